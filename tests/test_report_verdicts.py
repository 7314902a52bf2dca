"""Verdict rules on crafted results: every verdict of every claim is reachable, and documented."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest

from bench.analysis.derive import derive_idle, thread_ceiling
from bench.analysis.overview import not_run, overview
from bench.report import verdicts as v
from bench.results import SCHEMA, Environment, IdleDocument, IdleEntry, Results, ThreadCeiling
from c10k.quantity import FIT
from tests.recorded import latency as latency_of
from tests.recorded import memory_fit, quantity, runs_of

KIB = 1024.0
ROOT = Path(__file__).resolve().parent.parent


def document(
    derived: dict[str, Any] | None = None,
    runs: list[dict[str, Any]] | None = None,
    nofile: int = 20_000,
    gil_disabled: bool = False,
) -> Results:
    """A results document around crafted per-scenario tables, completed as the harness
    completes them: idle runs that did not count, and the figures across models."""
    environment = {
        "python": {
            "implementation": "CPython",
            "version": "3.11.7",
            "gil_disabled": gil_disabled,
        },
        "limits": {
            "RLIMIT_NOFILE": {"soft": nofile, "hard": nofile},
            "ephemeral_ports_per_destination": 28_232,
        },
    }
    typed = runs_of(runs or [])
    tables = dict(derived or {})
    idle = {kind: IdleEntry(**entry) for kind, entry in tables.get("idle", {}).items()}
    idle_runs = [r for r in typed if r["scenario"] == "idle"]
    if idle_runs or idle:
        tables["idle"] = derive_idle(idle_runs) | idle
    across: Any = overview(tables, typed, cast(Environment, environment))
    found = {
        "schema": SCHEMA,
        "status": "complete",
        "profile": {"name": "default"},
        "environment": environment,
        "runs": typed,
        "derived": tables | across | {"not_run": not_run(tables, ())},
    }
    return cast(Results, found)


def idle_kind(
    rss: float,
    kernel: float = 0.0,
    count: int = 10_000,
    seconds: float = 1.0,
    spread: float | None = 0.01,
) -> dict[str, Any]:
    """An idle kind's figures, each fit's interval ± spread of its value (None: no interval)."""
    total, rate = rss + kernel, count / seconds

    def around(value: float) -> list[float] | None:
        return None if spread is None else [value * (1 - spread), value * (1 + spread)]

    return {
        "count": count,
        "rss_bytes_per_unit": rss,
        "rss_r2": 0.999,
        "kernel_bytes_per_unit": {"KernelStack": kernel, "Slab": 0.0, "PageTables": 0.0},
        "kernel_total_bytes_per_unit": kernel,
        "total_bytes_per_unit": quantity(total, around(total), "bytes", 6, FIT),
        "seconds_to_start_all": seconds,
        "start_rate_per_s": quantity(rate, around(rate), "per-second", 6, FIT),
        "rss_kib_at_count": 50_000,
    }


def ceiling(count: int, stopped_by: str, cap: int = 60_000, processes: int = 1) -> ThreadCeiling:
    """A thread ceiling as derive records it from the program's failure."""
    failure = {
        "count": count,
        "stopped_by": stopped_by,
        "error": None if stopped_by == "cap" else "can't start new thread",
        "errno": None,
        "cap": cap,
        "elapsed_s": 1.0,
        "context": {"vm.max_map_count": 65_530, "kernel.pid_max": 32_768},
    }
    return thread_ceiling(cast(IdleDocument, {"failure": failure}), processes)


def threads_stopped(count: int, stopped_by: str, cap: int = 60_000) -> Results:
    """An idle document whose thread ceiling stopped at count, for the reason given."""
    return document({"idle": {"thread": {"max_threads": ceiling(count, stopped_by, cap)}}})


def threads_on_the_machine(
    count: int, stopped_by: str, held: int, scenario: str = "c100k"
) -> Results:
    """Threads started by four processes at once (and one process's ceiling beside), and a
    crawl scenario whose server saw `held` connections at once."""
    machine = ceiling(count, stopped_by, processes=4)
    one = ceiling(22_000, "vm.max_map_count")
    return document(
        {
            "idle": {"thread": {"max_threads": one, "max_threads_machine": machine}},
            scenario: sleepy("asyncio", held, 0.9, 9e3),
        }
    )


def asyncio_tasks(count: int, seconds: float = 1.0) -> Results:
    """An idle document with count asyncio tasks started in the given seconds."""
    return document({"idle": {"asyncio-task": idle_kind(1e3, count=count, seconds=seconds)}})


def summary(value: float) -> Any:
    return quantity(value)


def point(
    concurrency: int,
    pages_per_s: float,
    cpu_us: float = 500.0,
    latency: str = "0",
    saturated: int = 0,
    fraction: float | None = None,
    rounds: dict[str, list[float]] | None = None,
) -> dict[str, Any]:
    """A derived point; rounds: per figure, its value in each round (what ratios pair)."""
    p: dict[str, Any] = {
        "concurrency": concurrency,
        "processes": 1,
        "core": "c",
        "latency": latency_of(latency),
        "pages": 600,
        "runs": 3,
        "pages_per_s": summary(pages_per_s),
        "cpu_us_per_page": summary(cpu_us),
        "latency_p50_s": summary(0.001),
        "latency_p99_s": summary(0.01),
        "max_rss_kib": summary(30_000),
        "server_saturated_runs": saturated,
        "server_unknown_runs": 0,
        "server_peak_in_flight": concurrency,
    }
    if fraction is not None:
        p["fraction_of_ideal"] = quantity(fraction, unit="share")
        p["ideal_pages_per_s"] = concurrency / 2.0
    if rounds:
        count = len(next(iter(rounds.values())))
        p["rounds"] = [
            {"round": k} | {figure: values[k] for figure, values in rounds.items()}
            for k in range(count)
        ]
    return p


def few_active(**rates: float) -> dict[str, Any]:
    return {
        model.replace("_", "-"): {
            "runs_by_status": {"ok": 6},
            "points": [point(1, rate), point(4, rate)],
        }
        for model, rate in rates.items()
    }


def sleepy(
    model: str,
    concurrency: int,
    fraction: float,
    slope: float | None,
    interval: list[float] | None = None,
) -> dict[str, Any]:
    """A model's sleepy table: one point at `concurrency`, and a memory fit of `slope` bytes
    per connection (its interval ± 1% unless given)."""
    return {
        model: {
            "runs_by_status": {"ok": 1},
            "points": [point(concurrency, 100.0, latency="2s", fraction=fraction)],
            "memory_per_connection": memory_fit(
                slope,
                total_interval=interval or ([slope * 0.99, slope * 1.01] if slope else None),
                concurrencies=[1000, concurrency],
            ),
        }
    }


def failed_run(scenario: str, model: str, concurrency: int, status: str) -> dict[str, Any]:
    return {
        "id": f"{scenario}/{model}/c{concurrency}/s0/measured0",
        "scenario": scenario,
        "model": model,
        "kind": "measured",
        "status": status,
        "reason": "peak in flight too low",
        "params": {
            "concurrency": concurrency,
            "processes": 1,
            "server": {"latency": "2s", "pages": 1000, "shape": "wide"},
        },
    }


def idle_run(kind: str, count: int, status: str) -> dict[str, Any]:
    return {
        "id": f"idle/{kind}/slope/{count}/0",
        "scenario": "idle",
        "model": kind,
        "kind": "measured",
        "status": status,
        "reason": "exit 1: MemoryError",
        "params": {"kind": kind, "count": count, "mode": "slope", "processes": 1},
    }


def held(
    asyncio_rate: list[float],
    threads_rate: list[float] | None,
    asyncio_memory: list[float] | None = None,
    concurrency: int = 10_000,
    runs: list[dict[str, Any]] | None = None,
) -> Results:
    """asyncio and threads holding `concurrency` sleepy keep-alive connections, their plateau
    pages/s by round (threads None: no threads point there), and memory per connection from
    sleepy's fits: asyncio's interval as given (about 5 KiB by default), the threads' 39-41."""
    keep_alive = sleepy("asyncio", concurrency, 0.9, 5e3)
    if threads_rate is not None:
        keep_alive |= sleepy("threads", concurrency, 0.9, 4e4)
    for model, rates in (("asyncio", asyncio_rate), ("threads", threads_rate or [])):
        if model in keep_alive:
            keep_alive[model]["points"][0]["rounds"] = [
                {"round": k, "plateau_pages_per_s": rate} for k, rate in enumerate(rates)
            ]
    memory = sleepy("asyncio", 10_000, 0.9, 5e3, asyncio_memory) | sleepy(
        "threads", 3_000, 0.9, 4e4
    )
    return document({"sleepy": memory, "sleepy-keep-alive": keep_alive}, runs=runs)


FASTER, SLOWER = [4700.0, 4750.0, 4800.0], [4000.0, 4050.0, 4100.0]
THREE = [1000.0, 1000.0, 1000.0]
EVEN = [4500.0, 4500.0, 4500.0]


def uvloop_against_asyncio(cpu_us: float, uvloop_cpu_us: float) -> Results:
    """A few-active document with asyncio and asyncio-uvloop at C=4, one run each."""
    return document(
        {
            "few-active": {
                "asyncio": {"points": [point(4, 900, cpu_us=cpu_us)]},
                "asyncio-uvloop": {"points": [point(4, 1200, cpu_us=uvloop_cpu_us)]},
            }
        }
    )


CASES: list[tuple[str, Results, str]] = [
    # C1: 50 KiB within a factor of 2, on the fit's interval
    ("C1", document({"idle": {"thread": idle_kind(16 * KIB, 28 * KIB)}}), v.REPRODUCED),
    ("C1", document({"idle": {"thread": idle_kind(8 * KIB, 4 * KIB)}}), v.CONTRADICTED),
    ("C1", document({"idle": {"thread": idle_kind(200 * KIB)}}), v.CONTRADICTED),
    ("C1", document({"idle": {"thread": idle_kind(25 * KIB, spread=0.2)}}), v.INCONCLUSIVE),
    ("C1", document({"idle": {"thread": idle_kind(40 * KIB, spread=None)}}), v.FROM_ONE_RUN),
    ("C1", document(), v.NOT_MEASURED),
    # C2: at most 2 x 3 KiB for every stackless coroutine kind
    (
        "C2",
        document({"idle": {"asyncio-task": idle_kind(1.1 * KIB), "generator": idle_kind(200)}}),
        v.REPRODUCED,
    ),
    (
        "C2",
        document({"idle": {"asyncio-task": idle_kind(1.1 * KIB), "coroutine": idle_kind(7 * KIB)}}),
        v.CONTRADICTED,
    ),
    ("C2", document({"idle": {"thread": idle_kind(16 * KIB)}}), v.NOT_MEASURED),
    # A stackful greenlet is listed, not judged; alone it decides nothing.
    (
        "C2",
        document({"idle": {"asyncio-task": idle_kind(1.1 * KIB), "greenlet": idle_kind(8 * KIB)}}),
        v.REPRODUCED,
    ),
    ("C2", document({"idle": {"greenlet": idle_kind(8 * KIB)}}), v.NOT_MEASURED),
    # C3: a machine limit below 100,000 threads (a count: no interval needed)
    ("C3", threads_stopped(22_000, "vm.max_map_count"), v.REPRODUCED),
    ("C3", threads_stopped(30_000, "pid-reserve"), v.REPRODUCED),
    ("C3", threads_stopped(30_000, "EAGAIN (a process or thread limit)", 100_000), v.REPRODUCED),
    ("C3", threads_stopped(100_000, "cap", 100_000), v.CONTRADICTED),
    ("C3", threads_stopped(500, "cap", 500), v.NOT_MEASURED),
    # C4: 100,000+ coroutines, started at 10,000 or more per second
    ("C4", asyncio_tasks(1_000_000, seconds=4.0), v.REPRODUCED),
    ("C4", asyncio_tasks(1_000_000, seconds=30.0), v.REPRODUCED),
    ("C4", asyncio_tasks(1_000_000, seconds=200.0), v.CONTRADICTED),
    ("C4", document(runs=[idle_run("asyncio-task", 1_000_000, "crashed")]), v.CONTRADICTED),
    ("C4", asyncio_tasks(20_000), v.NOT_MEASURED),
    # C5: threads of several processes against connections held at once (c100k)
    ("C5", threads_on_the_machine(31_000, "pid-reserve", held=100_000), v.REPRODUCED),
    ("C5", threads_on_the_machine(31_000, "kernel.pid_max", 40_000), v.REPRODUCED),
    ("C5", threads_on_the_machine(31_000, "pid-reserve", held=10_000), v.NOT_MEASURED),
    ("C5", threads_on_the_machine(31_000, "pid-reserve", 40_000, "sleepy"), v.NOT_MEASURED),
    (
        "C5",
        threads_on_the_machine(80_000, "per-process: vm.max_map_count", held=100_000),
        v.NOT_MEASURED,
    ),
    ("C5", threads_on_the_machine(60_000, "cap", held=100_000), v.NOT_MEASURED),
    # One process's ceiling never judges C5: its open files end its sockets first.
    ("C5", threads_stopped(15_000, "kernel.pid_max"), v.NOT_MEASURED),
    # C6: an event loop at 50-95% of the threads' pages/s (one run per point: no interval)
    ("C6", document({"few-active": few_active(threads=1000, asyncio=800)}), v.FROM_ONE_RUN),
    ("C6", document({"few-active": few_active(asyncio=800)}), v.NOT_MEASURED),
    # C7: asyncio against threads at 1,000+ sleepy keep-alive connections
    ("C7", held(FASTER, EVEN), v.REPRODUCED),
    (
        "C7",
        held(FASTER, None, runs=[failed_run("sleepy-keep-alive", "threads", 10_000, "limit")]),
        v.REPRODUCED,
    ),
    (
        "C7",
        held(
            FASTER,
            EVEN,
            concurrency=3_000,
            runs=[failed_run("sleepy-keep-alive", "asyncio", 10_000, "failed-verification")],
        ),
        v.CONTRADICTED,
    ),
    ("C7", held(FASTER, None), v.NOT_MEASURED),  # no threads run there to compare with
    ("C7", held(FASTER, EVEN, concurrency=100), v.NOT_MEASURED),
    ("C7", document({"sleepy": sleepy("asyncio", 10_000, 0.95, 5e3)}), v.NOT_MEASURED),
    ("C7", held([4700.0], [4500.0]), v.FROM_ONE_RUN),
    # C9: uvloop at least 2x less CPU per page (one run per point: no interval)
    ("C9", uvloop_against_asyncio(1000, uvloop_cpu_us=400), v.FROM_ONE_RUN),
    ("C9", document({"few-active": few_active(asyncio=900)}), v.NOT_MEASURED),
]


def rule(claim: str) -> Callable[[Results], v.Verdict]:
    return v.RULES[claim].judge


def cases(found: list[tuple[str, Results, str]]) -> pytest.MarkDecorator:
    """Parametrize a test by (claim, document, expected verdict)."""
    ids = [f"{c}-{e.split()[0]}-{n}" for n, (c, _, e) in enumerate(found)]
    return pytest.mark.parametrize(("claim", "doc", "expected"), found, ids=ids)


@cases(CASES)
def test_rule_gives_the_expected_verdict(claim: str, doc: Results, expected: str) -> None:
    verdict = rule(claim)(doc)
    assert verdict.claim == claim
    assert verdict.verdict == expected, verdict
    assert verdict.about.rule and verdict.about.words and verdict.about.chapter
    assert verdict.conditions or expected == v.NOT_MEASURED
    assert bool(verdict.missing) == (expected == v.NOT_MEASURED)


def test_every_verdict_of_every_claim_is_reachable() -> None:
    reached = {(claim, expected) for claim, _, expected in CASES + INTERVAL_CASES}
    # C8 is judged beside the runtimes: test_runtimes_free_threading reaches each outcome.
    # C5 has no contradiction: no run shows sockets running out first (its rule says so).
    for claim in [f"C{n}" for n in range(1, 10) if n != 8]:
        for outcome in (v.REPRODUCED, v.CONTRADICTED, v.NOT_MEASURED):
            if (claim, outcome) != ("C5", v.CONTRADICTED):
                assert (claim, outcome) in reached, (claim, outcome)


def test_server_bound_points_do_not_decide_the_event_loop_claim() -> None:
    table = few_active(threads=1000, asyncio=800)
    for entry in table.values():
        for p in entry["points"]:
            p["server_saturated_runs"] = 1
    verdict = v.RULES["C6"].judge(document({"few-active": table}))
    assert verdict.verdict == v.NOT_MEASURED


def test_an_empty_document_is_not_measured_everywhere() -> None:
    assert {x.verdict for x in v.verdicts(document()).values()} == {v.NOT_MEASURED}


def test_every_rule_has_a_docstring_and_is_in_the_docs() -> None:
    docs = (ROOT / "docs" / "report.md").read_text(encoding="utf-8")
    for found in [r.judge for r in v.RULES.values()]:
        assert inspect.getdoc(found), found.__name__
        assert found.__name__ in docs, f"{found.__name__} is missing from docs/report.md"


# -- rules on intervals: above, below and straddling each ratio rule's threshold ----------------


def few_active_rounds(**rounds: list[float]) -> dict[str, Any]:
    """A few-active table at C 1 and 4: each model's pages/s by round (CPU per page 500)."""
    return {
        model.replace("_", "-"): {
            "points": [point(c, values[0], rounds={"pages_per_s": values}) for c in (1, 4)]
        }
        for model, values in rounds.items()
    }


def uvloop_rounds(asyncio_cpu: list[float], uvloop_cpu: list[float]) -> Results:
    """A few-active document at C 4: asyncio's and asyncio-uvloop's CPU per page by round."""
    return document(
        {
            "few-active": {
                model: {
                    "points": [
                        point(
                            4,
                            900,
                            cpu_us=cpu[0],
                            rounds={"cpu_us_per_page": cpu, "pages_per_s": [900.0] * len(cpu)},
                        )
                    ]
                }
                for model, cpu in (("asyncio", asyncio_cpu), ("asyncio-uvloop", uvloop_cpu))
            }
        }
    )


def against_threads(**rounds: list[float]) -> Results:
    """A few-active document: threads at 1,000 pages/s in 3 rounds, and models beside them."""
    return document({"few-active": few_active_rounds(threads=THREE, **rounds)})


INTERVAL_CASES: list[tuple[str, Results, str]] = [
    # C6: the median over event-loop models within 50-95% of the threads' pages/s
    ("C6", against_threads(asyncio=[790.0, 800.0, 810.0]), v.REPRODUCED),
    ("C6", against_threads(asyncio=[1190.0, 1200.0, 1210.0]), v.CONTRADICTED),
    ("C6", against_threads(asyncio=[300.0, 310.0, 320.0]), v.CONTRADICTED),
    ("C6", against_threads(asyncio=[850.0, 950.0, 1050.0]), v.INCONCLUSIVE),
    ("C6", against_threads(asyncio=[420.0, 500.0, 600.0]), v.INCONCLUSIVE),
    # C9: at least 2x less CPU per page on uvloop
    ("C9", uvloop_rounds(THREE, [390.0, 400.0, 410.0]), v.REPRODUCED),
    ("C9", uvloop_rounds(THREE, [790.0, 800.0, 810.0]), v.CONTRADICTED),
    ("C9", uvloop_rounds(THREE, [350.0, 500.0, 700.0]), v.INCONCLUSIVE),
    # C7: asyncio cheaper per connection, and at least as fast: its pages/s over the threads'
    ("C7", held(SLOWER, EVEN), v.CONTRADICTED),
    ("C7", held([4200.0, 4500.0, 4800.0], EVEN), v.INCONCLUSIVE),
    # C7's memory on the fits' intervals: apart decides, overlapping is within noise
    ("C7", held(FASTER, EVEN, [30e3, 45e3]), v.INCONCLUSIVE),
    ("C7", held(FASTER, EVEN, [42e3, 50e3]), v.CONTRADICTED),
]


@cases(INTERVAL_CASES)
def test_ratio_rules_decide_on_the_interval(claim: str, doc: Results, expected: str) -> None:
    verdict = rule(claim)(doc)
    assert verdict.verdict == expected, verdict
    # The figure with its interval and how it was made: '0.80x [0.78x, 0.82x] (t, 95%)'.
    assert re.search(r"\d[x%]? \[\d[^\]]*, \d[^\]]*\] \([a-z][^)]*, [\d.]+%\)", verdict.figure)


def test_inconclusive_is_reachable_for_every_ratio_rule() -> None:
    reached = {claim for claim, _, expected in INTERVAL_CASES if expected == v.INCONCLUSIVE}
    assert reached == {"C6", "C7", "C9"}  # C8's: test_runtimes_free_threading


def test_a_single_run_decides_nothing_and_says_it_has_no_interval() -> None:
    found = rule("C9")(uvloop_against_asyncio(1000, uvloop_cpu_us=400))
    assert found.verdict == v.FROM_ONE_RUN
    assert "(1 run per point, no interval)" in found.figure


@pytest.mark.parametrize(
    ("claim", "doc"),
    [(c, d) for c, d, e in CASES + INTERVAL_CASES if e != v.NOT_MEASURED],
)
def test_every_judged_verdict_shows_its_interval_or_why_it_has_none(
    claim: str, doc: Results
) -> None:
    shown = rule(claim)(doc).figure
    with_interval = re.search(r"\[[^\]]+, [^\]]+\] \([a-z][^)]*%\)$", shown)
    assert with_interval or re.search(r"\((1 run|a count)|failed|crashed", shown), shown


def test_c7_is_judged_with_connections_held_and_shows_the_close_mode_beside() -> None:
    # Keep-alive: asyncio faster than threads in every round; close mode: the reverse. The
    # verdict follows the keep-alive scenario and quotes the close mode's fractions beside it.
    found = held(FASTER, EVEN)
    close = sleepy("asyncio", 10_000, 0.40, 5e3) | sleepy("threads", 10_000, 0.60, 4e4)
    tables = dict(found["derived"])
    tables["sleepy"] = close
    c7 = rule("C7")(document(tables))
    assert c7.verdict == v.REPRODUCED
    assert c7.conditions[0].startswith("sleepy-keep-alive: C 10,000")
    beside = "beside it, sleepy (a connection per fetch) at C 10,000, of C/L: asyncio 40%"
    assert any(clause.startswith(beside) for clause in c7.conditions)


def test_c7_without_its_keep_alive_point_is_not_measured() -> None:
    """The close mode alone never judges C7: a connection per fetch holds none for long."""
    close = sleepy("asyncio", 10_000, 0.40, 5e3) | sleepy("threads", 10_000, 0.60, 4e4)
    found = rule("C7")(document({"sleepy": close}))
    assert found.verdict == v.NOT_MEASURED and "sleepy-keep-alive" in found.missing


# -- the judged figure, machine-readable: what the table's threshold and the verdict chart read ---


@pytest.mark.parametrize(
    ("band", "unit", "text"),
    [
        (v.Band(25 * KIB, 100 * KIB, True), "bytes", "25–100 KiB"),
        (v.Band(0.0, 6 * KIB, True), "bytes", "≤ 6 KiB"),
        (v.Band(0.0, 100_000), "threads", "< 100,000 threads"),
        (v.Band(10_000.0), "per-second", "≥ 10,000/s"),
        (v.Band(0.5, 0.95), "share", "50%–95%"),
        (v.Band(2.0), "times", "≥ 2x"),
        (v.Band(0.0, 10_000, of=" connections held"), "threads", "< 10,000 connections held"),
    ],
)
def test_a_band_is_written_as_the_rule_reads_it(band: v.Band, unit: str, text: str) -> None:
    assert band.text(unit) == text


@pytest.mark.parametrize(("claim", "doc", "expected"), CASES + INTERVAL_CASES)
def test_every_judged_figure_has_its_value_interval_and_band(
    claim: str, doc: Results, expected: str
) -> None:
    found = rule(claim)(doc)
    assert found.band is not None or claim == "C5"
    assert found.threshold != "-"
    if found.value is None:
        return
    assert found.figure != "-" and found.band is not None
    # The outcome follows from the interval against the band, where the rule judges nothing
    # more than that.
    if claim in ("C6", "C8", "C9") and expected != v.NOT_MEASURED:
        assert found.band.judge(found.interval) == expected
    if found.interval is not None:
        assert "[" in found.figure and found.method in found.figure
    else:
        assert "(" in found.figure


def test_the_figure_of_a_ratio_names_what_it_is_over() -> None:
    found = rule("C9")(uvloop_rounds(THREE, [390.0, 400.0, 410.0]))
    assert found.figure.startswith("asyncio over asyncio-uvloop: 2.50x [")
    assert found.value == pytest.approx(2.5, rel=0.01) and found.interval is not None
    assert found.threshold == "≥ 2x less CPU per page"


def test_an_interval_names_the_method_that_made_it() -> None:
    from c10k.quantity import FIT, PAIRED_ROUNDS, Interval

    share, ratio, memory = ("C6", v.REPRODUCED), ("C7", v.REPRODUCED), ("C1", v.REPRODUCED)
    rounds = PAIRED_ROUNDS.format(0.9875)
    looked = v.Verdict(*share, value=0.86, interval=Interval(0.79, 0.93), method=rounds)
    assert replace(looked, label="event loops").figure == (
        "event loops 86% [79%, 93%] (paired rounds, 98.75%)"
    )
    assert replace(looked, method="t, 95%").figure == "86% [79%, 93%] (t, 95%)"
    fitted = v.Verdict(*memory, value=42 * KIB, interval=Interval(41 * KIB, 43 * KIB), method=FIT)
    assert fitted.figure == "42.0 KiB [41.0 KiB, 43.0 KiB] (fit, 95%)"
    assert v.Verdict(*memory, value=43.9 * KIB).figure == "43.9 KiB (1 run, no interval)"
    failed = v.Verdict(*ratio, why="threads failed at C 10,000")
    assert failed.figure == "threads failed at C 10,000"


def test_where_a_sequential_comparison_stopped_reaches_the_claims_section() -> None:
    from bench.report.claims import claim_section
    from bench.report.layout import Paragraph, plain

    row = v.Verdict("C6", v.REPRODUCED, shown=("few-active",), value=0.86, label="event loops",
                    stopping="look 3 (8 rounds): decided")  # fmt: skip
    assert row.stopping == "look 3 (8 rounds): decided"
    texts = [plain(b.spans) for b in claim_section(v.Ruling(row, None)) if isinstance(b, Paragraph)]
    assert "Rounds: look 3 (8 rounds): decided." in texts


def test_an_idle_kinds_memory_is_one_fit_of_rss_and_kernel_as_measured() -> None:
    """Kernel memory that shrank while units were parked is kept, not clamped to 0: the held
    total is one fit of RSS + kernel over the run's steps, with its interval."""
    steps = [
        {
            "n": n,
            "rss_kib": 20_000 + n * 2,
            "meminfo_kib": {"KernelStack": 1_000, "Slab": 50_000 - n // 4, "PageTables": 3_000},
            "elapsed_s": n / 50_000,
            "traced_bytes": None,
        }
        for n in range(0, 60_000, 10_000)
    ]
    idle = {
        "kind": "asyncio-task",
        "mode": "slope",
        "count": 50_000,
        "points": steps,
        "per_unit": {
            "rss_bytes": 2048.0,
            "rss_r2": 1.0,
            "KernelStack_bytes": 0.0,
            "Slab_bytes": -256.0,
            "PageTables_bytes": 0.0,
            "start_us": 20.0,
        },
    }
    run = idle_run("asyncio-task", 50_000, "ok") | {"idle": idle}
    entry = derive_idle(runs_of([run]))["asyncio-task"]
    assert entry.kernel_total_bytes_per_unit == -256.0
    total = entry.total_bytes_per_unit
    assert total is not None and total.value == pytest.approx(2048.0 - 256.0)
    assert total.interval is not None
    assert total.interval.low <= (total.value or 0.0) <= total.interval.high
    rate = entry.start_rate_per_s
    assert rate is not None and rate.value == pytest.approx(50_000.0)
    assert entry.parked == 50_000  # the units parked at its last step


@pytest.mark.parametrize(
    ("stopped_by", "capped", "machine_limit"),
    [
        ("cap", True, False),
        ("pid-reserve", False, True),
        ("per-process: RLIMIT_NPROC", False, False),
    ],
)
def test_derive_says_whether_the_cap_or_a_limit_of_the_machine_stopped_the_threads(
    stopped_by: str, capped: bool, machine_limit: bool
) -> None:
    found = ceiling(30_000, stopped_by, processes=4)
    assert (found["capped"], found["machine_limit"]) == (capped, machine_limit)


def test_derive_names_a_scenario_only_some_profiles_run_where_its_profile_ran_it() -> None:
    tables: dict[str, Any] = {"idle": {}}
    assert "sleepy" in not_run(tables, ()) and "c100k" not in not_run(tables, ())
    assert "c100k" in not_run(tables, ("c100k",)) and "idle" not in not_run(tables, ("c100k",))


def test_the_answer_line_counts_each_outcome() -> None:
    from bench.report.answer import tally
    from bench.report.layout import plain

    found = [
        v.Ruling(
            v.RULES["C1"].judge(document({"idle": {"thread": idle_kind(16 * KIB, 28 * KIB)}})), None
        ),
        v.Ruling(
            v.RULES["C1"].judge(document({"idle": {"thread": idle_kind(40 * KIB, spread=None)}})),
            None,
        ),
        v.Ruling(v.RULES["C6"].judge(document()), None),
    ]
    assert plain(tally(found)) == (
        "1 of 3 claims reproduced (C1); 1 inconclusive (one run): C1; 1 not measured: C6 "
        "(each lacks a figure or a run it needs: see its section)."
    )
