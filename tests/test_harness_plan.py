"""The scenarios and profiles as data, and the plans they make (no run is started)."""

from __future__ import annotations

import json
import subprocess
from types import SimpleNamespace
from typing import Any, cast

import pytest

from bench.analysis.derive import fit_thresholds
from bench.analysis.paired import compared_models
from bench.harness import cli as bench_cli
from bench.harness import costs
from bench.harness import plan as sc
from bench.harness.commands import crawl_argv, idle_argv
from bench.harness.points import CrawlPoint, Profile, Scenario
from bench.harness.profiles import C10K_MODELS, PROFILE_TABLE, PROFILES
from bench.harness.progress import plan_table
from bench.harness.recipes import _crawl_argv
from bench.harness.session import harness_runtime
from bench.harness.shapes import both_cores_points, sleepy_points
from bench.harness.site import ServeOptions
from bench.interpreter import python_command
from bench.results import Block, Results
from bench.results.words import left_out_text
from c10k import catalog, sequential
from c10k.durations import Latency, parse_latency

# The profiles that measure every claim; free-threading measures C8 alone (its own test).
# The profiles of the main run (the free-threading and loops profiles run a few models).
CLAIM_PROFILES = tuple(p for p in PROFILES if p not in ("free-threading", "loops"))


def plan_of(profile: str) -> list[sc.PlannedRun]:
    return sc.build_plan(PROFILE_TABLE[profile], sc.ALL_MODELS, sc.SCENARIOS)


@pytest.mark.parametrize("profile", CLAIM_PROFILES)
def test_every_profile_covers_every_model_and_scenario(profile: str) -> None:
    plan = plan_of(profile)
    # quick leaves the callgrind counts out: two minutes under valgrind, and CI's regression
    # gate counts the same instructions anyway. C8's crawls (and both-cores') are free-threading's,
    # and 100,000 connections (c100k, an hour and more) the full profile's.
    left_out = {catalog.MANY_LINKS_KEEP_ALIVE.name, catalog.BOTH_CORES.name}
    left_out |= {catalog.INSTRUCTIONS.name} if profile == "quick" else set()
    left_out |= {catalog.C100K.name} if profile != "full" else set()
    assert {r.scenario for r in plan} == set(sc.SCENARIOS) - left_out
    crawls = [r for r in plan if r.point is not None and not r.counted]
    assert {r.model for r in crawls} == set(sc.ALL_MODELS)
    counted = [r for r in plan if r.counted]
    if profile != "quick":
        assert [r.model for r in counted] == [*sc.ALL_MODELS, catalog.CORE_REPLAY]
        assert {r.scenario for r in counted} == {catalog.INSTRUCTIONS.name}
    assert {r.model for r in plan if r.scenario == "idle"} == set(catalog.IDLE_KINDS)
    assert len({r.id for r in plan}) == len(plan)
    assert all(r.estimate_s > 0 and r.timeout_s > r.estimate_s for r in plan)


@pytest.mark.parametrize("profile", PROFILES)
def test_every_profile_fits_its_budget(profile: str) -> None:
    """The budget holds the plan's least: each comparison decided at its first look, what
    this interpreter is too old for not planned and the runs of what it misses skipped (the
    conditional rounds are what a comparison the first look does not decide may add, up to
    the cap)."""
    here = harness_runtime()
    models, _ = bench_cli.plan_models(sc.ALL_CRAWLERS, {here["tag"]: here["version"]})
    plan = sc.build_plan(PROFILE_TABLE[profile], models, sc.SCENARIOS)
    skipped = bench_cli.unavailable_here(models)
    least = sc.plan_estimate_s(plan, conditional=False, skipped=skipped)
    assert least <= PROFILE_TABLE[profile].budget_s


def test_budgets_of_quick_and_default() -> None:
    # quick: a smoke run's plan of at most 1:30 (the runs of a missing peer skipped).
    assert PROFILE_TABLE["quick"].budget_s <= 90
    # default: every claim but C5 and C8 at 10,000 connections, with each comparison decided
    # at its first look (docs/notes/2026-11-26-profile-durations.md).
    assert PROFILE_TABLE["default"].budget_s <= 40 * 60


def test_default_reaches_ten_thousand_connections_and_a_million_coroutines() -> None:
    profile = PROFILE_TABLE["default"]
    sleepy = profile.scenario("sleepy")
    assert max(p.concurrency for p in sleepy.points) >= 10_000
    assert sum(1 for p in sleepy.points if p.concurrency >= 1000) >= 3  # a fit needs points
    idle = profile.scenario("idle").idle
    assert max(s.count for s in idle if s.kind == "asyncio-task") >= 1_000_000
    assert any(s.mode == "until-failure" and s.processes == 1 for s in idle)
    # C5 on the machine (several processes at once, each under its own vm.max_map_count) is
    # the full profile's: C5 is judged from its run.
    assert not [s for s in idle if s.mode == "until-failure" and s.processes > 1]
    full = PROFILE_TABLE["full"].scenario("idle").idle
    machine = [s for s in full if s.mode == "until-failure" and s.processes > 1]
    assert len(machine) == 1 and "--processes" in idle_argv(machine[0])
    few = profile.scenario("few-active")
    assert [p.concurrency for p in few.points] == [1, 10, 64]  # C 10: every model's figures
    assert few.repetitions >= 3 and few.warmups >= 1


def test_sleepy_sites_hold_whole_waves_and_check_the_peak() -> None:
    for profile in CLAIM_PROFILES:
        for point in PROFILE_TABLE[profile].scenario("sleepy").points:
            server = point.server
            assert server.shape == "wide" and server.links == 0
            assert server.pages % point.concurrency == 0
            assert server.pages // point.concurrency >= 1
            assert point.check_peak and not server.root_latency


def test_free_threading_measures_c8_small_and_unpinned() -> None:
    profile = PROFILE_TABLE["free-threading"]
    assert profile.pin == "off"
    assert [s.name for s in profile.scenarios] == [
        catalog.NOISE_FLOOR.name,
        catalog.IDLE.name,
        catalog.FEW_ACTIVE.name,
        catalog.MANY_LINKS_KEEP_ALIVE.name,
        catalog.BOTH_CORES.name,
    ]
    assert [(s.kind, s.mode) for s in profile.scenario("idle").idle] == [("thread", "slope")]
    few, heavy = profile.scenario("few-active"), profile.scenario("many-links-keep-alive")
    for scenario in (few, heavy):
        assert [p.concurrency for p in scenario.points] == [2, 4, 8, 16, 32, 64]
        assert scenario.repetitions == 3
    assert few.warmups == 1 and not few.about.keep_alive
    assert heavy.about.keep_alive and {p.server.links for p in heavy.points} == {200}
    plan = sc.build_plan(profile, ["threads", "asyncio"], sc.SCENARIOS)
    assert sc.plan_estimate_s(plan, runtimes=2) <= 6 * 60  # C8's run: 3.14 and 3.14t


def _measured(plan: list[sc.PlannedRun], scenario: str) -> list[sc.PlannedRun]:
    return [r for r in plan if r.scenario == scenario and r.kind == "measured"]


def _few_active(profile: Profile) -> Scenario:
    return next(s for s in profile.scenarios if s.name == "few-active")


def test_a_round_runs_every_model_at_every_point_of_its_server_back_to_back() -> None:
    """Round k of every model at C 1, 10 and 64 (one server), then round k+1: each round
    after its sentinel, the models in an order of their own per round. A round past the
    point's repetitions holds the models its comparisons (C6, C9) need."""
    plan = [r for r in plan_of("default") if r.scenario == "few-active"]
    few = _few_active(PROFILE_TABLE["default"])
    warmups = [r for r in plan if r.kind == "warmup"]
    assert plan[: len(warmups)] == warmups  # every warm-up before the first round
    assert all(r.round is None and r.block is None for r in warmups)
    blocks: dict[Block, list[sc.PlannedRun]] = {}
    for run in plan[len(warmups) :]:
        assert run.block is not None
        blocks.setdefault(run.block, []).append(run)
    for k, runs in enumerate(blocks.values()):
        assert runs[0].kind == "sentinel" and runs[0].model == catalog.CPU_LOOP
        crawls = runs[1:]
        assert {r.round for r in runs} == {k}
        concurrencies = [r.params["concurrency"] for r in crawls]
        assert concurrencies == sorted(concurrencies)  # point after point
        expected = set(sc.ALL_MODELS) if k < few.repetitions else compared_models("few-active")
        assert len(set(sc.ALL_MODELS) - compared_models("few-active")) >= 2
        for c in (1, 10, 64):
            assert {r.model for r in crawls if r.params["concurrency"] == c} == expected


def test_the_order_within_a_round_is_shuffled_per_round_by_the_seed() -> None:
    """Randomized multiple interleaved trials: a drift of the machine favours no model."""
    profile, models = PROFILE_TABLE["default"], list(sc.ALL_MODELS)

    def orders(seed: int) -> list[list[str]]:
        found: dict[Block | None, list[str]] = {}
        plan = sc.build_plan(profile, models, ["few-active"], order_seed=seed)
        for run in plan:
            if run.kind == "measured" and run.params["concurrency"] == 1:
                found.setdefault(run.block, []).append(run.model)
        return list(found.values())

    first = orders(1)
    compared, reps = compared_models("few-active"), _few_active(profile).repetitions
    assert all(sorted(order) == sorted(models) for order in first[:reps])  # the repetitions
    assert all(set(order) == compared for order in first[reps:])  # the conditional rounds
    assert len({tuple(order) for order in first}) > 1  # not one order every round
    assert orders(1) == first  # the seed gives the plan again
    assert orders(2) != first


def test_rounds_past_the_repetitions_up_to_the_cap_are_conditional() -> None:
    """C6 and C9 are judged in few-active: 3 rounds always, up to the stopping rule's cap
    while a comparison is open; few-active-keep-alive runs its rounds unconditionally."""
    plan = plan_of("default")
    few = _measured(plan, "few-active")
    assert {r.round for r in few if not r.conditional} == {0, 1, 2}
    assert {r.round for r in few if r.conditional} == set(range(3, sequential.LOOKS[-1]))
    assert not any(r.conditional for r in plan if r.scenario == "few-active-keep-alive")
    sentinels = [r for r in plan if r.scenario == "few-active" and r.kind == "sentinel"]
    assert [r.conditional for r in sentinels] == [(r.round or 0) >= 3 for r in sentinels]


def test_the_c10k_point_is_judged_by_paired_rounds_of_its_own_models() -> None:
    """sleepy-keep-alive: the CPU-bound view at 2 s, and C 10,000 at 10 s, where the server
    has room, for the threads and the stackless event loops, in paired rounds."""
    plan = _measured(plan_of("default"), "sleepy-keep-alive")
    judged = [r for r in plan if r.params["server"]["latency"] == Latency("fixed", 10.0)]
    assert {r.params["concurrency"] for r in judged} == {10_000}
    assert {r.model for r in judged} == set(C10K_MODELS)
    assert {r.round for r in judged if not r.conditional} == {0, 1, 2}
    assert max(r.round for r in judged if r.round is not None) == sequential.LOOKS[-1] - 1
    viewed = {r.params["concurrency"] for r in plan if r.params["server"]["latency"].text == "2s"}
    assert viewed == {1000, 3000, 10_000}
    assert all(not r.params["server"]["root_latency"] for r in plan)  # the hub at once


def test_a_point_with_its_own_repetitions_runs_that_many_rounds() -> None:
    """The default's memory fit repeats its points: two rounds of every model at C 1,000
    and 3,000, three at 10,000, one at the per-URL point; a peer keeps its cap of one."""
    models = ["threads", "asyncio", "scrapy"]
    plan = _measured(sc.build_plan(PROFILE_TABLE["default"], models, ["sleepy"]), "sleepy")
    rounds: dict[tuple[str, int, int], set[int]] = {}
    for run in plan:
        key = (run.model, run.params["concurrency"], run.params["server"]["pages"])
        rounds.setdefault(key, set()).add(run.repetition)
    for model in ("threads", "asyncio"):
        for c in (1000, 3000):
            assert rounds[(model, c, c)] == {0, 1}
        assert rounds[(model, 10_000, 10_000)] == {0, 1, 2}
        assert rounds[(model, 3000, 9000)] == {0}  # the per-URL point
    assert rounds[("scrapy", 1000, 1000)] == {0}


def test_only_measured_crawls_have_a_round() -> None:
    plan = plan_of("default")
    assert all(r.round is None for r in plan if r.scenario == "idle")
    counted = [r for r in plan if r.counted]
    assert counted and all(r.round == 0 for r in counted)


def test_the_plan_listing_shows_each_runs_round() -> None:
    models = ["threads", "asyncio"]
    plan = sc.build_plan(PROFILE_TABLE["default"], models, ["few-active"])
    lines = plan_table(plan).splitlines()
    assert lines[0].split() == ["#", "estimate", "round", "run"]
    rows = [line.split() for line in lines[1:]]
    assert [(row[2], row[3]) for row in rows[:3]] == [
        ("-", "few-active/threads/c1/s0/warmup0"),
        ("-", "few-active/asyncio/c1/s0/warmup0"),
        ("0", "few-active/s0/round0/cpu-loop"),
    ]
    first_round = {row[3] for row in rows[3:9]}
    assert {row[2] for row in rows[3:9]} == {"0"}
    assert "few-active/threads/c1/s0/measured0" in first_round


def test_runs_sharing_a_site_share_a_server_key() -> None:
    plan = [r for r in plan_of("default") if r.point is not None]
    keys: dict[int, ServeOptions] = {}
    for run in plan:
        assert run.point is not None
        assert keys.setdefault(run.server_key, run.point.server) == run.point.server


def test_filters_select_models_and_scenarios() -> None:
    plan = sc.build_plan(PROFILE_TABLE["quick"], ["threads"], ["few-active"])
    crawls = {(r.scenario, r.model) for r in plan if r.kind != "sentinel"}
    assert crawls == {("few-active", "threads")}


@pytest.mark.parametrize(
    ("spec", "seconds"),
    [("0", 0.0), ("50ms", 0.05), ("2s", 2.0), ("250us", 250e-6), ("uniform:10ms..30ms", 0.02)],
)
def test_mean_latency(spec: str, seconds: float) -> None:
    assert parse_latency(spec).mean_s == pytest.approx(seconds)


def test_mean_latency_of_lognormal_is_above_its_median() -> None:
    assert parse_latency("lognormal:50ms,0.5").mean_s == pytest.approx(0.05 * 1.1331, rel=1e-3)
    with pytest.raises(ValueError):
        parse_latency("pareto:1s")


def test_server_argv() -> None:
    config = ServeOptions(pages=10, shape="wide", latency=Latency("fixed", 2.0), faults="500=0.1")
    argv = config.argv()
    assert argv[argv.index("--latency") + 1] == "2s"
    assert argv[argv.index("--pages") + 1] == "10"
    assert argv[argv.index("--faults") + 1] == "500=0.1"
    assert "--bandwidth" not in argv and "--parts" not in argv
    parted = ServeOptions(pages=10, parts=2).argv()
    assert parted[parted.index("--parts") + 1] == "2"


def test_the_points_of_several_processes_serve_a_part_to_each() -> None:
    for point in sleepy_points((100,), 1.0, waves=2, processes=3):
        assert point.server.parts == point.server.addresses == point.processes == 3
    for point in both_cores_points(300, 200, (8,), workers=2):
        assert point.server.parts == 2


def test_serve_options_keep_the_keys_results_json_records() -> None:
    # results.json holds the options' fields as params.server: its keys and order are the schema.
    options = sc.run_params(CrawlPoint(ServeOptions(pages=10), 1))["server"]
    assert list(options) == [
        "pages",
        "links",
        "shape",
        "seed",
        "latency",
        "bandwidth",
        "faults",
        "workers",
        "preset",
        "addresses",
        "root_latency",
        "parts",
    ]
    assert options == {
        "pages": 10,
        "links": 10,
        "shape": "deep",
        "seed": 1,
        "latency": Latency("fixed"),
        "bandwidth": None,
        "faults": None,
        "workers": 1,
        "preset": None,
        "addresses": 1,
        "root_latency": True,
        "parts": 1,
    }


def test_crawl_argv_passes_timeout_and_tries_only_when_given() -> None:
    root = "http://127.0.0.1:1/"
    plain = crawl_argv(root, "threads", 10)
    assert plain[-7:] == ["crawl", root, "--model", "threads", "--concurrency", "10", "--json"]
    full = crawl_argv(root, "threads", 10, timeout_s=2.0, max_tries=3)
    assert full[-11:] == [
        *["crawl", root, "--model", "threads", "--concurrency", "10"],
        *["--timeout", "2.0", "--max-tries", "3", "--json"],
    ]


def test_crawl_argv_shares_the_crawl_only_among_several_processes() -> None:
    root = "http://127.0.0.1:1/"
    addresses = ["127.0.3.1", "127.0.3.2"]
    # One process: a plain crawl to ROOT's host, whatever addresses the server has.
    assert crawl_argv(root, "threads", 10, processes=1, connect_to=addresses) == crawl_argv(
        root, "threads", 10
    )
    argv = crawl_argv(root, "threads", 10, processes=3, connect_to=addresses)
    assert argv[-11:] == [
        *["crawl", root, "--model", "threads", "--concurrency", "10"],
        *["--processes", "3", "--connect-to", "127.0.3.1,127.0.3.2", "--json"],
    ]
    assert "--connect-to" not in crawl_argv(root, "threads", 10, processes=3)


def test_a_point_of_several_processes_is_recorded_and_told_apart() -> None:
    site = ServeOptions(pages=60, links=0, shape="wide", latency=Latency("fixed", 0.2), addresses=2)
    plain, shared = CrawlPoint(site, concurrency=30), CrawlPoint(site, 30, processes=3)
    assert sc.run_params(plain)["processes"] == 1
    assert sc.run_params(shared)["processes"] == 3
    assert sc.run_params(shared)["server"]["addresses"] == 2
    scenario = Scenario(catalog.SLEEPY, points=(plain, shared))
    profile = Profile("t", "test", 600.0, 0.1, (scenario,))
    plan = sc.build_plan(profile, ["threads"], [catalog.SLEEPY.name])
    ids = [run.id for run in plan if run.kind == "measured"]
    assert ids == ["sleepy/threads/c30/s0/measured0", "sleepy/threads/c30/p3/s0/measured0"]


def test_several_processes_start_more_interpreters_and_ramp_side_by_side() -> None:
    site = ServeOptions(pages=10_000, links=0, shape="wide")
    model = catalog.THREADS
    plain, shared = CrawlPoint(site, 10_000), CrawlPoint(site, 10_000, processes=4)
    ramp = 10_000 * costs.THREAD_CEILING_S_PER_THREAD
    # The parent's and the children's starts in place of one, three quarters of the ramp
    # saved: each child starts its quarter of the threads.
    expected = 4 * costs.CRAWL_COSTS[model.name].startup_s - 0.75 * ramp
    assert shared.estimate_s(model.name) - plain.estimate_s(model.name) == pytest.approx(expected)


def test_a_site_is_charged_a_hang_tail_only_when_it_has_a_hanging_page() -> None:
    """Timeouts at the end of the crawl, when the server places a hanging page at all."""

    def tail(pages: int, faults: str) -> float:
        site = ServeOptions(pages=pages, shape="deep", latency=Latency("fixed"), faults=faults)
        point = CrawlPoint(site, 10, timeout_s=2.0, max_tries=3)
        plain = CrawlPoint(ServeOptions(pages=pages, shape="deep", latency=Latency("fixed")), 10)
        return point.estimate_s("callbacks") - plain.estimate_s("callbacks")

    assert tail(1000, "reset=0.05") == pytest.approx(0.0)
    assert tail(100, "hang=0.005") == pytest.approx(0.0)  # half a page rounds to none
    assert tail(1000, "hang=0.005") == pytest.approx(6.0)


def test_a_point_needs_one_unit_of_concurrency_per_process() -> None:
    site = ServeOptions(pages=10)
    with pytest.raises(ValueError, match="processes"):
        CrawlPoint(site, concurrency=2, processes=3)
    with pytest.raises(ValueError, match="processes"):
        CrawlPoint(site, concurrency=2, processes=0)
    with pytest.raises(ValueError, match="addresses"):
        ServeOptions(pages=10, addresses=0)


@pytest.mark.parametrize("profile", PROFILES)
def test_recorded_definition_gives_derive_the_memory_fit_thresholds(profile: str) -> None:
    """results.json records each scenario by name beside its points; derive reads it back."""
    definition = json.loads(json.dumps(PROFILE_TABLE[profile].definition()))
    assert [s["name"] for s in definition["scenarios"]] == [
        s.name for s in PROFILE_TABLE[profile].scenarios
    ]
    expected = {
        s.name: s.fit_min_concurrency
        for s in PROFILE_TABLE[profile].scenarios
        if s.fit_min_concurrency
    }
    document = cast(Results, {"profile": {"definition": definition}})
    assert fit_thresholds(document) == expected
    if profile == "default":
        assert expected == {catalog.SLEEPY.name: 1000, catalog.SLEEPY_KEEP_ALIVE.name: 1000}
    if profile == "full":
        assert expected == {
            catalog.SLEEPY.name: 1000,
            catalog.SLEEPY_KEEP_ALIVE.name: 1000,
            catalog.C100K.name: 1000,
        }


def test_keep_alive_scenarios_and_only_they_crawl_with_keep_alive() -> None:
    runs = [r for r in plan_of("default") if r.point is not None]
    site: Any = SimpleNamespace(root="http://127.0.0.1:1/", remote=False, addresses=[])
    for run in runs:
        keep_alive = catalog.SCENARIOS[run.scenario].keep_alive
        assert run.params["keep_alive"] == keep_alive, run.id
        assert ("--keep-alive" in _crawl_argv(run, site, "python")) == keep_alive, run.id
    modes = {catalog.SCENARIOS[r.scenario].keep_alive for r in runs}
    assert modes == {False, True}
    root = "http://127.0.0.1:1/"
    assert "--keep-alive" in crawl_argv(root, "threads", 10, keep_alive=True)
    assert "--keep-alive" not in crawl_argv(root, "threads", 10)


@pytest.mark.parametrize("profile", ["quick", "default", "full"])
def test_only_the_memory_fits_of_one_wave_run_under_the_steady_heap(profile: str) -> None:
    """sleepy, and c100k (the full profile's), whose slopes in one process and across
    several are compared under the same heap conditions."""
    plan = sc.build_plan(PROFILE_TABLE[profile], list(catalog.MODELS), list(catalog.SCENARIOS))
    steady = {run.scenario for run in plan if run.steady_heap and run.kind != "sentinel"}
    c100k = {catalog.C100K.name} if profile == "full" else set()
    assert steady == {catalog.SLEEPY.name} | c100k
    crawls = [run for run in plan if run.scenario in steady and run.kind != "sentinel"]
    assert all(run.steady_heap for run in crawls)


OPEN_FILES, PORTS_PER_ADDRESS, MACHINE_THREADS = 20_000, 28_232, 32_768


def test_c100k_holds_100000_connections_within_each_processs_and_addresss_limits() -> None:
    """Only the full profile has it. Each crawler process and each server worker stays under
    one process's open files, each server address under its ephemeral ports; the server's
    peak is checked; the threads model sits it out (its concurrency is past the threads the
    machine can start) and every other model runs it."""
    for name in ("quick", "default"):
        assert not [r for r in plan_of(name) if r.scenario == catalog.C100K.name]
    plan = sc.build_plan(PROFILE_TABLE["full"], list(catalog.MODELS), [catalog.C100K.name])
    points = {run.point for run in plan if run.point is not None}
    assert max(p.concurrency for p in points) == 100_000
    for point in points:
        assert point.check_peak and point.server.shape == "wide"
        share = -(-point.concurrency // point.processes)
        assert share < OPEN_FILES and point.concurrency // point.server.workers < OPEN_FILES
        assert point.concurrency / point.server.addresses < PORTS_PER_ADDRESS
    assert {p.processes for p in points} == {1, 6}
    assert all(p.concurrency <= 10_000 for p in points if p.processes == 1)
    assert max(p.concurrency for p in points) > 3 * MACHINE_THREADS  # past pid_max, thrice
    models = {run.model for run in plan if run.kind != "sentinel"}
    thread_models = {m.name for m in catalog.MODELS.values() if m.thread_per_worker}
    assert thread_models and not models & thread_models
    smallest = min(p.concurrency for p in points)
    capped = {m.name for m in catalog.MODELS.values() if 0 < m.max_concurrency < smallest}
    assert models == set(catalog.MODELS) - thread_models - capped
    crawls = [run for run in plan if run.kind != "sentinel"]
    assert all(run.params["keep_alive"] and run.steady_heap for run in crawls)


def test_a_run_on_a_runtime_too_old_for_a_model_plans_none_of_its_runs() -> None:
    models, left = bench_cli.plan_models(sc.ALL_CRAWLERS, {"3.11": "3.11.7"})
    interpreters = catalog.INTERPRETERS.name
    assert interpreters not in models
    mine = next(entry for entry in left if entry["model"] == interpreters)
    assert mine == {"model": interpreters, "needs": "3.14", "runtimes": ["3.11"]}
    assert left_out_text(mine) == "needs CPython 3.14 (this run: 3.11)"
    for profile in ("quick", "default"):
        plan = sc.build_plan(PROFILE_TABLE[profile], models, sc.SCENARIOS)
        assert plan and not [r for r in plan if r.model == interpreters]
    # Planned when some runtime of the run can run it (--pythons 3.11,3.14: the 3.11 lane
    # skips it), and on that runtime alone.
    for runtimes in ({"3.11": "3.11.7", "3.14": "3.14.0"}, {"3.14t": "3.14.0"}):
        models, left = bench_cli.plan_models(sc.ALL_CRAWLERS, runtimes)
        assert interpreters in models and interpreters not in [e["model"] for e in left]


def test_a_model_that_keeps_the_gil_is_planned_only_beside_a_gil_build() -> None:
    gevent = catalog.GEVENT.name
    models, left = bench_cli.plan_models(sc.ALL_CRAWLERS, {"3.14t": "3.14.7"})
    assert gevent not in models
    mine = next(entry for entry in left if entry["model"] == gevent)
    assert mine == {"model": gevent, "needs": "with the GIL", "runtimes": ["3.14t"]}
    assert left_out_text(mine) == "needs CPython with the GIL (this run: 3.14t)"
    models, left = bench_cli.plan_models(sc.ALL_CRAWLERS, {"3.14": "3.14.7", "3.14t": "3.14.7"})
    assert gevent in models and left == []


@pytest.mark.skipif(
    catalog.INTERPRETERS.unavailable() is None,
    reason="this interpreter runs the interpreters model",
)
def test_the_dry_run_on_this_interpreter_plans_no_run_it_must_skip() -> None:
    done = subprocess.run(
        python_command("bench", "--profile", "quick", "--check", "--dry-run"),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    runs = [line.split()[-1] for line in done.stdout.splitlines() if "/" in line]
    assert runs and not [r for r in runs if f"/{catalog.INTERPRETERS.name}/" in r]
    assert "not planned: interpreters, needs CPython 3.14 (this run: 3." in done.stdout
