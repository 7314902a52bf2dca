"""Paired rounds in the run loop: a noisy round runs again, a point that failed twice is not
run again, and a conditional round runs only while a comparison is open (no real crawl)."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import pytest

from bench.analysis.paired import (
    Comparison,
    comparisons,
    round_counts,
    round_ratios,
    rounds_seen,
    shared_points,
)
from bench.harness import cli as bench_cli
from bench.harness import rounds, runner
from bench.harness import session as harness_session
from bench.harness.plan import PlannedRun, base_record, build_plan, ended, runs_at
from bench.harness.points import CrawlPoint, Profile, Scenario
from bench.harness.progress import describe_plan
from bench.harness.site import ServeOptions
from bench.results import Block, Point, Results, Run, crawl_table
from c10k import catalog, probes
from tests.recorded import latency, runs_of

THREADS, ASYNCIO, GEVENT = catalog.THREADS.name, catalog.ASYNCIO.name, catalog.GEVENT.name


def profile(repetitions: int = 2, cap: int | None = None, servers: int = 1) -> Profile:
    """Few-active at one point per server (each server a site of its own size)."""
    points = tuple(CrawlPoint(ServeOptions(pages=10 + n), concurrency=4) for n in range(servers))
    few = Scenario(catalog.FEW_ACTIVE, points=points, repetitions=repetitions, cap=cap)
    return Profile("fake", "paired rounds at one point per server", 60.0, 0.1, (few,))


def allowance_s(fake: Profile, server: int = 0) -> float:
    """What the noisy rounds of the server's rounds may take running again."""
    plan = build_plan(fake, [THREADS, ASYNCIO], ["few-active"], 3)
    allowances = rounds.again_allowances(rounds.always_run(plan), fake.again_share)
    return allowances["few-active", server]


class FakeServer:
    """Serves nothing."""

    started: ClassVar[int] = 0

    def __init__(self, options: ServeOptions, cpus: Any = None, host: Any = None) -> None:
        self.root = "http://127.0.0.1:1/"

    def start(self) -> None:
        FakeServer.started += 1

    def stop(self) -> None:
        pass


class Machine:
    """What the fake runs report: each loop's wall time in turn, each crawl's status."""

    def __init__(self) -> None:
        self.loop_walls: list[float] = []
        self.crawl_status: dict[str, str] = {}
        self.crawl_elapsed_s = 0.1
        self.started: list[str] = []

    def run(self, run: PlannedRun, *args: Any) -> Run:
        self.started.append(run.id)
        record = ended(base_record(run), self.crawl_status.get(run.model, "ok"), None)
        if run.model == catalog.CPU_LOOP:
            wall = self.loop_walls.pop(0) if self.loop_walls else 0.2
            record["loop"] = {"rounds": 300, "found": 1, "cpu_s": wall, "wall_s": wall}
            record["elapsed_s"] = wall
        elif record["status"] == "ok":  # what derive reads of a verified crawl
            record["elapsed_s"] = self.crawl_elapsed_s
            latency = {"p50": 0.001, "p99": 0.01}
            crawl = {"pages": 11, "wall_s": 0.1, "pages_per_s": 110.0, "cpu_us_per_page": 500.0}
            record["crawl"] = crawl | {"latency_s": latency, "max_rss_kib": 30_000}  # type: ignore[typeddict-item]
            record["server"] = {"saturated": False}  # type: ignore[typeddict-item]
            record["verification"] = {"server_peak_in_flight": 4}  # type: ignore[typeddict-item]
        return record


@pytest.fixture
def machine(monkeypatch: pytest.MonkeyPatch) -> Machine:
    found = Machine()
    for name in ("run_crawl", "run_idle", "run_loop", "run_counted"):
        monkeypatch.setattr(runner, name, found.run)
    monkeypatch.setattr(runner, "new_site", FakeServer)
    monkeypatch.setattr(harness_session, "missing_models", lambda models, python: {})
    monkeypatch.setattr(probes, "environment", lambda: {})
    return found


def bench(
    out: Path,
    fake: Profile,
    session_loops: list[float] | None = None,
    models: tuple[str, ...] = (THREADS, ASYNCIO),
) -> Results:
    """The fake profile's plan for the models (threads and asyncio), run by the real run loop."""
    args = bench_cli.parser().parse_args(
        ["--models", ",".join(models), "--out", str(out), "--pin", "off", "--seed", "3"]
    )
    plan = build_plan(fake, args.models, ["few-active"], 3)
    runtime = harness_session.harness_runtime()
    session = harness_session.start_session(args, fake, plan, [runtime])
    pinning = session.pinning
    lane = harness_session.new_lane(args, session, out, runtime, ["c10k"])
    for n, wall in enumerate(session_loops or []):  # the session's noise floor, before
        loop = ended(
            base_record(PlannedRun(f"floor/{n}", "noise-floor", "cpu-loop", "measured", n)),
            "ok",
            None,
        )
        loop["loop"] = {"rounds": 300, "found": 1, "cpu_s": wall, "wall_s": wall}
        lane.store.document["runs"].append(loop)
    runner.execute(fake, plan, [lane], pinning)
    return lane.store.document


def test_a_round_whose_sentinel_is_a_fifth_slow_runs_again(
    tmp_path: Path, machine: Machine
) -> None:
    machine.loop_walls = [0.2, 0.3, 0.2]  # round 0 quiet; round 1's sentinel 50% slow
    document = bench(tmp_path, profile(), session_loops=[0.2, 0.2, 0.2])
    runs = [r for r in document["runs"] if r["scenario"] == "few-active"]
    noisy = [r for r in runs if r["noisy"]]
    assert {r["round"] for r in noisy} == {1} and len(noisy) == 3  # its sentinel and 2 crawls
    again = [r for r in runs if r["again"]]
    assert {r["round"] for r in again} == {1} and not any(r["noisy"] for r in again)
    assert all(r["id"].endswith("-again1") for r in again)
    assert document["derived"]["rounds"]["few-active"] == {"rounds": 3, "noisy": 1, "again": 1}
    # the noisy round counts in nothing: each model's point has rounds 0 and 1 (run again)
    points = crawl_table(document["derived"], "few-active")[THREADS]["points"]
    assert [r["round"] for r in points[0]["rounds"]] == [0, 1] and points[0]["runs"] == 2


def test_a_noise_floor_taken_in_a_burst_leaves_quiet_rounds_counted(
    tmp_path: Path, machine: Machine
) -> None:
    # The session began in a burst (most of its noise floor 50% slow); the rounds ran quiet,
    # one faster still. Only a loop 20% slower than the fastest so far is noisy.
    machine.loop_walls = [0.2, 0.18, 0.2]
    document = bench(tmp_path, profile(), session_loops=[0.2, 0.3, 0.3, 0.3, 0.3])
    assert not any(r["noisy"] for r in document["runs"])
    assert document["derived"]["rounds"]["few-active"] == {"rounds": 2, "noisy": 0, "again": 0}


def test_a_sentinel_is_not_judged_before_the_session_has_three_loops(
    tmp_path: Path, machine: Machine
) -> None:
    machine.loop_walls = [0.2, 0.9]
    document = bench(tmp_path, profile())
    assert not any(r["noisy"] for r in document["runs"])


def test_a_run_that_was_skipped_is_not_run_again_with_its_noisy_round(
    tmp_path: Path, machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        harness_session, "missing_models", lambda models, python: {GEVENT: "missing"}
    )
    machine.loop_walls = [0.2, 0.5, 0.2]  # round 1 noisy, then quiet
    models = (THREADS, ASYNCIO, GEVENT)
    document = bench(tmp_path, profile(), session_loops=[0.2, 0.2, 0.2], models=models)
    again = {r["model"] for r in document["runs"] if r["again"]}
    assert again == {catalog.CPU_LOOP, THREADS, ASYNCIO}
    gevent = [r for r in document["runs"] if r["model"] == GEVENT]
    assert [(r["round"], r["status"], r["noisy"]) for r in gevent] == [
        (0, "skipped", False),
        (1, "skipped", False),  # it felt no noise: its point is not short of a quiet run
    ]


def test_a_noisy_round_runs_again_until_it_runs_quiet(tmp_path: Path, machine: Machine) -> None:
    machine.loop_walls = [0.5, 0.5, 0.5, 0.2, 0.2]  # round 0 noisy three times, then quiet
    # An allowance that the three rounds again do not reach, whatever the cost model says.
    fake = dataclasses.replace(profile(), again_share=10.0)
    document = bench(tmp_path, fake, session_loops=[0.2, 0.2, 0.2])
    zero = [r for r in document["runs"] if r["round"] == 0]
    assert {r["again"] for r in zero} == {0, 1, 2, 3}
    assert [r["again"] for r in zero if not r["noisy"]] == [3, 3, 3]  # its sentinel, 2 crawls
    assert document["derived"]["rounds"]["few-active"] == {"rounds": 5, "noisy": 3, "again": 3}


def test_a_servers_noisy_rounds_run_again_within_its_share_of_their_planned_time(
    tmp_path: Path, machine: Machine
) -> None:
    # Every loop noisy; a round again takes 0.6 of the allowance (2 crawls and a sentinel):
    # after two of them (over the allowance in all) no round at the server runs again.
    machine.loop_walls = [0.25] * 20  # a quarter slower than the session's 0.2 s: noisy
    fake = dataclasses.replace(profile(), again_share=2.0)  # well above one sentinel's 0.25 s
    machine.crawl_elapsed_s = (0.6 * allowance_s(fake) - 0.25) / 2
    document = bench(tmp_path, fake, session_loops=[0.2, 0.2, 0.2])
    again = {(r["round"], r["again"]) for r in document["runs"] if r["again"]}
    assert again == {(0, 1), (0, 2)}
    spent = 2 * (2 * machine.crawl_elapsed_s + 0.25)  # two rounds again: 2 crawls, a sentinel
    assert rounds.again_seconds(document, ("few-active", 0)) == pytest.approx(spent)


def test_one_servers_noisy_rounds_do_not_spend_another_servers_allowance(
    tmp_path: Path, machine: Machine
) -> None:
    # Every loop noisy; the first server's rounds run again past their allowance, and the
    # second server's rounds, later in the scenario, still run again within theirs.
    machine.loop_walls = [0.25] * 40
    fake = profile(servers=2)
    machine.crawl_elapsed_s = allowance_s(fake, 0) / 3
    document = bench(tmp_path, fake, session_loops=[0.2, 0.2, 0.2])
    again = [r for r in document["runs"] if r["again"]]
    servers = {r["block"].rounds for r in again if r["block"] is not None}
    assert servers == {("few-active", 0), ("few-active", 1)}
    for server in sorted(servers):
        spent = rounds.again_seconds(document, server)
        assert spent >= allowance_s(fake, server[1]), server  # it ran until it was spent


@pytest.fixture
def pauses(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The pauses the run loop took, waiting for a quiet machine (none really taken)."""
    taken: list[float] = []
    monkeypatch.setattr(runner, "sleep", taken.append)
    return taken


def test_a_round_waits_for_a_quiet_machine_before_it_starts(
    tmp_path: Path, machine: Machine, pauses: list[float]
) -> None:
    machine.loop_walls = [0.2, 0.5, 0.5, 0.2, 0.2]  # round 1's sentinel noisy twice, then quiet
    fake = replace(profile(), quiet_wait_s=60.0)
    document = bench(tmp_path, fake, session_loops=[0.2, 0.2, 0.2])
    assert pauses == [rounds.QUIET_PAUSE_S] * 2
    runs = [r for r in document["runs"] if r["scenario"] == "few-active"]
    waits = [r for r in runs if "waited_s" in r]
    assert [r["id"] for r in waits] == [
        "few-active/s0/round1/cpu-loop-wait1",
        "few-active/s0/round1/cpu-loop-wait2",
    ]
    assert [r["wait"] for r in waits] == [1, 2]
    assert all(r["block"] == Block("few-active", 0, 1) and r["noisy"] for r in waits)
    # the round started once the machine was quiet: nothing of it is noisy or ran again
    rounds_ = [r for r in runs if r["block"] is not None and not r["wait"]]
    assert not any(r["noisy"] or r["again"] for r in rounds_)
    counted = document["derived"]["rounds"]["few-active"]
    assert counted == {"rounds": 2, "noisy": 0, "again": 0, "waited": 1, "waited_s": 10.0}
    points = crawl_table(document["derived"], "few-active")[THREADS]["points"]
    assert [r["round"] for r in points[0]["rounds"]] == [0, 1]


def test_once_the_session_has_waited_its_allowance_a_noisy_round_runs_and_runs_again(
    tmp_path: Path, machine: Machine, pauses: list[float]
) -> None:
    machine.loop_walls = [0.5, 0.5, 0.5, 0.2, 0.2]  # round 0 noisy three times, then quiet
    fake = replace(profile(), quiet_wait_s=7.0)  # one full pause and a part of one
    document = bench(tmp_path, fake, session_loops=[0.2, 0.2, 0.2])
    assert pauses == [rounds.QUIET_PAUSE_S, 2.0]
    zero = [
        r for r in document["runs"] if r["round"] == 0 and r["block"] is not None and not r["wait"]
    ]
    assert [r["again"] for r in zero if r["noisy"]] == [0, 0, 0]  # it ran noisy, then again
    assert [r["again"] for r in zero if not r["noisy"]] == [1, 1, 1]
    counted = document["derived"]["rounds"]["few-active"]
    assert counted == {"rounds": 3, "noisy": 1, "again": 1, "waited": 1, "waited_s": 7.0}


def test_a_sentinel_that_could_not_run_does_not_wait(
    tmp_path: Path, machine: Machine, pauses: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    failing = machine.run

    def run(run: PlannedRun, *args: Any) -> Run:
        record = failing(run, *args)
        if run.kind == "sentinel":
            record["status"] = "crashed"
        return record

    monkeypatch.setattr(runner, "run_loop", run)
    fake = replace(profile(), quiet_wait_s=60.0, again_share=0.0)
    document = bench(tmp_path, fake, session_loops=[0.2, 0.2, 0.2])
    assert pauses == []
    assert not any("waited_s" in r for r in document["runs"])


def test_a_point_that_failed_twice_is_not_run_again(tmp_path: Path, machine: Machine) -> None:
    machine.crawl_status = {THREADS: "timeout"}
    document = bench(tmp_path, profile(repetitions=4))
    threads = [r for r in document["runs"] if r["model"] == THREADS]
    assert [r["status"] for r in threads] == ["timeout", "timeout", "not-run", "not-run"]
    assert "failed 2 times before: timeout, timeout" in (threads[2]["reason"] or "")
    started = [i for i in machine.started if f"/{THREADS}/" in i]
    assert len(started) == 2  # the later ones never started
    asyncio = [r for r in document["runs"] if r["model"] == ASYNCIO]
    assert [r["status"] for r in asyncio] == ["ok"] * 4


def test_conditional_rounds_run_only_while_a_comparison_is_open(
    tmp_path: Path, machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_until = 4  # the comparison stops once 4 rounds ran
    ran: list[int] = []

    def needed(documents: list[Results], runs: list[PlannedRun], always: Any) -> list[PlannedRun]:
        done = {r["round"] for r in documents[0]["runs"] if r["kind"] == "measured"}
        ran.append(runs[0].round or 0)
        return runs if not runs[0].conditional or len(done) < open_until else []

    monkeypatch.setattr(runner, "runs_needed", needed)
    document = bench(tmp_path, profile(repetitions=3, cap=8))
    rounds_run = sorted({r["round"] or 0 for r in document["runs"] if r["kind"] == "measured"})
    assert rounds_run == [0, 1, 2, 3]
    assert ran == list(range(8))  # asked before every round, also those it passed over


def test_conditional_rounds_make_up_for_noisy_rounds_with_every_model_left_short(
    tmp_path: Path, machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No comparison is ever open and no round runs again: round 0 is noisy, so each model
    # has 1 quiet run of the 2 it always runs. The first conditional round makes that up,
    # for gevent too, which no comparison needs and no conditional round of the plan holds.
    monkeypatch.setattr(rounds, "open_comparisons", lambda *args: [])
    machine.loop_walls = [0.5, 0.2, 0.2, 0.2, 0.2]
    fake = replace(profile(repetitions=2, cap=5), again_share=0.0)
    models = (THREADS, ASYNCIO, GEVENT)
    planned = build_plan(fake, list(models), ["few-active"], 3)
    assert not any(r.model == GEVENT and r.conditional for r in planned)
    document = bench(tmp_path, fake, session_loops=[0.2, 0.2, 0.2], models=models)
    measured = [r for r in document["runs"] if r["kind"] == "measured"]
    assert sorted({r["round"] or 0 for r in measured}) == [0, 1, 2]  # round 2 made it up
    for model in models:
        quiet = [r["round"] for r in measured if r["model"] == model and not r["noisy"]]
        assert quiet == [1, 2], model
    gevent = [r["id"] for r in measured if r["model"] == GEVENT]
    assert gevent[-1].endswith("/measured2")


def test_a_point_that_failed_twice_is_not_made_up(
    tmp_path: Path, machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rounds, "open_comparisons", lambda *args: [])
    machine.crawl_status = {THREADS: "timeout"}
    machine.loop_walls = [0.2, 0.5, 0.2, 0.2, 0.2]  # round 1 noisy
    fake = replace(profile(repetitions=3, cap=5), again_share=0.0)
    document = bench(tmp_path, fake, session_loops=[0.2, 0.2, 0.2])
    threads = [r for r in document["runs"] if r["model"] == THREADS]
    assert [r["round"] for r in threads] == [0, 1, 2]  # failed twice: not made up
    asyncio = [r["round"] for r in document["runs"] if r["model"] == ASYNCIO and not r["noisy"]]
    assert asyncio == [0, 2, 3]


def _point(concurrency: int, by_round: dict[int, float], figure: str = "pages_per_s") -> Point:
    return {  # type: ignore[typeddict-item]  # what the comparison reads of a point
        "concurrency": concurrency,
        "latency": latency("0"),
        "server_saturated_runs": 0,
        "rounds": [{"round": r, figure: v} for r, v in by_round.items()],
    }


def test_a_round_of_c6_is_the_median_over_the_event_loops_of_each_ones_mean_log_ratio() -> None:
    loops = tuple(m.name for m in catalog.MODELS.values() if m.event_loop)
    table = {THREADS: [_point(1, {0: 100.0, 1: 100.0}), _point(10, {0: 200.0, 1: 200.0})]}
    for factor, model in zip((0.5, 0.8, 0.9), loops, strict=True):
        table[model] = [_point(1, {0: 100 * factor, 1: 100.0}), _point(10, {0: 200 * factor})]
    c6 = Comparison("C6", "t", "few-active", "pages_per_s", loops, THREADS, (0.5, 0.95))
    points = shared_points(table, c6)
    assert points == [(1, latency("0")), (10, latency("0"))]
    # round 1 lacks C 10 for every loop: only round 0 is complete
    assert round_ratios(table, c6, points) == pytest.approx({0: math.log(0.8)})


def test_the_cap_counts_every_round_a_comparisons_models_ran_at_its_points() -> None:
    c7 = next(c for c in comparisons() if c.claim == "C7")

    def run(
        model: str,
        round_: int,
        status: str = "ok",
        at: tuple[int, str] = (10_000, "10s"),
        **more: Any,
    ) -> dict[str, Any]:
        server = {"latency": at[1], "pages": 10_000}
        params = {"concurrency": at[0], "processes": 1, "server": server}
        found = {"scenario": c7.scenario, "kind": "measured", "model": model, "round": round_}
        return found | {"status": status, "params": params} | more

    runs = runs_of(
        [
            run(ASYNCIO, 0),
            run(THREADS, 0, again=1, noisy=True),  # a noisy round run again: one round
            run(THREADS, 1, noisy=True),  # noisy, never run quiet: still a round
            run(THREADS, 2, status="timeout"),  # failed: still a round
            run(THREADS, 3, status="not-run"),  # never ran
            run(GEVENT, 4),  # no model of the comparison
            run(ASYNCIO, 5, at=(1_000, "2s")),  # another point
        ]
    )
    found = rounds_seen(runs, c7, [(10_000, latency("10s"))])
    assert found == {"rounds": 3, "noisy": 2, "again": 1}


def test_a_ceiling_keeps_a_model_out_past_it() -> None:
    httpx = catalog.HTTPX
    assert httpx.max_concurrency > 0
    assert runs_at(httpx.name, "sleepy", httpx.max_concurrency)
    assert not runs_at(httpx.name, "sleepy", httpx.max_concurrency + 1)


def test_round_counts_count_each_round_once_and_its_noise() -> None:
    def run(block: str, again: int, noisy: bool) -> dict[str, Any]:
        return {"scenario": "s", "kind": "sentinel", "block": block, "again": again, "noisy": noisy}

    a, b = "s/s0/round0", "s/s0/round1"
    found = round_counts(
        runs_of([run(a, 0, False), run(a, 0, False), run(b, 0, True), run(b, 1, False)])
    )
    assert found == {"s": {"rounds": 3, "noisy": 1, "again": 1}}


def _stopped(*claims: str) -> Any:
    """Results whose derive stopped the comparisons of these claims."""
    names = [c.name for c in comparisons() if c.claim in claims]
    paired = [{"name": n, "scenario": "few-active", "stopped": True} for n in names]
    return {"runs": [], "derived": {"comparisons": {"paired": paired}}}


def test_a_comparison_not_judged_yet_keeps_its_conditional_rounds() -> None:
    # Every round so far was noisy: no point has every model of C6, so derive judged nothing.
    models = (THREADS, catalog.CALLBACKS.name, catalog.GENERATORS.name, ASYNCIO)
    later = [
        PlannedRun(f"few-active/{m}/r3", "few-active", m, "measured", 3, conditional=True)
        for m in models
    ]
    assert rounds.runs_needed([_stopped()], later) == later
    assert not rounds.runs_needed([_stopped("C6")], later)  # C9's models are not in this round


def test_a_comparison_whose_model_failed_twice_stops_its_conditional_rounds() -> None:
    models = (THREADS, catalog.CALLBACKS.name, catalog.GENERATORS.name, ASYNCIO)
    later = [
        PlannedRun(f"few-active/{m}/c4/r3", "few-active", m, "measured", 3, conditional=True)
        for m in models
    ]
    failed: Any = [
        {"scenario": "few-active", "model": THREADS, "point": None, "params": {}}
        | {"id": f"few-active/{THREADS}/c4/r{n}", "kind": "measured", "status": "timeout"}
        for n in (0, 1)
    ]
    # Not judged yet, but threads will not run again: more rounds cannot judge it.
    document: Any = {"runs": failed, "derived": {"comparisons": {"paired": []}}}
    assert not rounds.runs_needed([document], later)


def test_a_conditional_round_runs_only_the_models_of_the_comparisons_still_open() -> None:
    uvloop = catalog.ASYNCIO_UVLOOP.name
    models = (THREADS, catalog.CALLBACKS.name, ASYNCIO, uvloop, catalog.GEVENT.name)
    sentinel = PlannedRun("few-active/r3/cpu-loop", "few-active", "cpu-loop", "sentinel", 3)
    later = [sentinel] + [
        PlannedRun(f"few-active/{m}/r3", "few-active", m, "measured", 3, conditional=True)
        for m in models
    ]
    # C6 stopped, C9's asyncio over asyncio-uvloop is open: the sentinel and that pair run.
    needed = rounds.runs_needed([_stopped("C6")], later)
    assert [r.model for r in needed] == ["cpu-loop", ASYNCIO, uvloop]
    # A round every model always runs is run whole, whatever has stopped.
    fixed = [PlannedRun(f"few-active/{m}/r0", "few-active", m, "measured", 0) for m in models]
    assert rounds.runs_needed([_stopped("C6", "C9")], fixed) == fixed


def test_a_round_past_the_repetitions_holds_only_the_models_a_comparison_needs() -> None:
    point = CrawlPoint(ServeOptions(pages=10, latency=latency("10s")), concurrency=100)
    sleepy = Scenario(catalog.SLEEPY_KEEP_ALIVE, points=(point,), repetitions=3, cap=5)
    fake = Profile("fake", "one C10K-like point", 60.0, 0.1, (sleepy,))
    models = [THREADS, ASYNCIO, catalog.CALLBACKS.name, catalog.TRIO.name]
    plan = build_plan(fake, models, [sleepy.name], 3)
    by_round: dict[int, set[str]] = {}
    for run in plan:
        if run.kind == "measured":
            by_round.setdefault(run.repetition, set()).add(run.model)
    assert [by_round[r] == set(models) for r in range(3)] == [True] * 3
    assert by_round[3] == by_round[4] == {THREADS, ASYNCIO}  # C7's pair
    assert all(run.conditional == (run.repetition >= 3) for run in plan if run.kind != "warmup")


def test_the_runs_plan_costs_nothing_for_a_model_the_harness_misses(
    tmp_path: Path,
    machine: Machine,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The plan a run prints counts a model that is not installed at no cost, as --dry-run
    does: its runs are skipped."""
    missing = {ASYNCIO: "missing x"}
    monkeypatch.setattr(harness_session, "missing_models", lambda models, python: missing)
    fake = profile()
    bench(tmp_path, fake)
    plan = build_plan(fake, [THREADS, ASYNCIO], ["few-active"], 3)
    expected = describe_plan(fake, plan, 1, frozenset({ASYNCIO}))
    assert expected != describe_plan(fake, plan, 1, frozenset())
    assert expected in capsys.readouterr().err
