"""The verdicts on C6-C9: crawls with few active connections, many sleepy ones, threads
without a GIL (a --pythons run's runtimes.json) and uvloop against asyncio's own loop."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from bench import results
from bench.report.verdicts import base
from bench.report.verdicts.base import ASYNCIO, SLEEPY, SLEEPY_KEEP_ALIVE, THREADS, Verdict
from bench.results import Results
from c10k import catalog
from c10k.quantity import T_95, Quantity
from c10k.words import ONE_RUN, Figure, Line, counts, in_kib, percent, span, times

# Why a ratio over points has no interval: a point ran once (or its runs did not pair up).
ONE_RUN_PER_POINT = "1 run per point"
UVLOOP = catalog.ASYNCIO_UVLOOP.name

# What each rule cannot judge without (docs/report.md, "What each rule needs").
C6_NEEDS = (
    base.Need(
        f"the event loops' pages/s over {THREADS}' in {base.FEW_ACTIVE}",
        ("derived", "comparisons", "event_loop_vs_threads", "median_pages_per_s"),
    ),
)
C7_NEEDS = (
    base.Need(
        f"{ASYNCIO} and {THREADS} at {SLEEPY_KEEP_ALIVE}'s largest point",
        ("derived", "comparisons", "asyncio_vs_threads_sleepy_keep_alive"),
    ),
    base.Need(
        f"{ASYNCIO}'s memory per connection ({SLEEPY}'s fit)",
        ("derived", SLEEPY, ASYNCIO, "memory_per_connection", "total_bytes"),
    ),
    base.Need(
        f"{THREADS}' memory per connection ({SLEEPY}'s fit)",
        ("derived", SLEEPY, THREADS, "memory_per_connection", "total_bytes"),
    ),
)
C8_NEEDS = (
    base.Need("a free-threaded build beside the GIL build of its version", ("free_threading", 0)),
    base.Need(
        f"{THREADS}' pages/s without the GIL over with it, in {base.MANY_LINKS_KEEP_ALIVE}",
        ("free_threading", 0, "models", THREADS, base.MANY_LINKS_KEEP_ALIVE, "pages_per_s"),
    ),
)
C9_NEEDS = (
    base.Need(
        f"{ASYNCIO}'s CPU per page over {UVLOOP}'s",
        ("derived", "comparisons", "uvloop", "pairs"),
    ),
)


def judged_ratio(
    claim: str, found: Quantity | None, label: str, look: results.Look | None = None
) -> Verdict:
    """A claim judged on a ratio's interval, made by its method; by paired rounds (look),
    saying where they stopped: 'after 5 paired rounds: decided' (docs/report.md)."""
    if not look:
        return base.judged(claim, found, label, f"{ONE_RUN_PER_POINT}, no interval")
    rounds = look["ratio"].n
    why = "decided" if look["decided"] else "precise" if look["precise"] else "undecided"
    stopping = f"after {rounds} paired round{'s' if rounds != 1 else ''}: {why}"
    fact = base.judged(claim, found, label, f"{rounds} round(s), no interval")
    return replace(fact, stopping=stopping)


def _paired(document: Results, claim: str, name: str = "") -> results.PairedComparison | None:
    """The paired rounds' comparison of a claim (by its name, where a claim has several)."""
    return next(
        (
            c
            for c in document["derived"]["comparisons"]["paired"]
            if c["claim"] == claim and (not name or c["name"] == name)
        ),
        None,
    )


def rounds_text(found: results.PairedComparison | None) -> str:
    """', 5 paired rounds ran at these points (1 noisy and run again)': the rounds the
    comparison's models ran at its points, as the cap counts them, and the attempts a
    sentinel found noisy; '' without any."""
    counts = found.get("round_counts") if found else None
    if not counts:
        return ""
    rounds, noisy, again = counts["rounds"], counts["noisy"], counts["again"]
    said = f", {rounds} paired round{'s' if rounds != 1 else ''} ran at these points"
    if not noisy:
        return said + ", none noisy"
    if again >= noisy:
        return said + f" ({noisy} noisy and run again)"
    return said + f" ({noisy} noisy, {again or 'none'} of them run again)"


def _instructions_text(
    document: Results,
    key: Literal["event_loop_vs_threads", "uvloop_speedup", "loop_own_speedup"],
    after: str,
) -> list[str]:
    """['callgrind: ...'] from the instructions comparison's ratios, [] without a count.
    Counts repeat to within 0.1% from run to run: these ratios have no noise to bound."""
    found = document["derived"]["comparisons"]["instructions"]
    ratios = found[key] if found else {}
    if not ratios:
        return []
    return [
        "callgrind: "
        + ", ".join(f"{m} {times(r)} {after}" for m, r in ratios.items())
        + " (counts repeat to within 0.1%: no interval)"
    ]


def c6_event_loop_speed(document: Results) -> Verdict:
    """Reproduced if the event-loop models (callbacks, generators, asyncio) reach 50-95% of
    the threads' pages/s in few-active (the median over those models, each one's geometric
    mean ratio over the concurrencies both ran, server-bound points left out), the whole
    interval of that median inside the range: the paired rounds' look, else the median of
    the models' intervals at a Bonferroni-corrected level; contradicted when the interval
    lies at 95% or more (not slower) or below 50% (more than moderately slower);
    inconclusive (within noise) when it straddles 50% or 95%. Needs the median (C6_NEEDS)."""
    if need := base.lacking(document, C6_NEEDS):
        return base.not_measured("C6", need.words)
    found = document["derived"]["comparisons"]["event_loop_vs_threads"]
    each: list[str | Figure] = []
    for m, r in found["models"].items():
        each += [", " if each else "", f"{m} ", Figure(r["pages_per_s"]), " pages/s"]
        if r["cpu_us_per_page"] is not None:
            each += [", ", Figure(r["cpu_us_per_page"]), " CPU/page"]
    site = results.highlights(document["derived"], base.FEW_ACTIVE, results.FewActiveHighlights)
    shown: tuple[Line, ...] = (
        (*each, f" (vs {THREADS}; intervals {T_95})"),
        *_instructions_text(document, "event_loop_vs_threads", f"{THREADS}' instructions/page"),
        f"{base.FEW_ACTIVE}: C {span(found['concurrencies'])}, latency 0, "
        f"{site['threads_pages'] if site else '?'} pages" + rounds_text(_paired(document, "C6")),
        base.profile_of(document),
    )
    median = found["median_pages_per_s"]
    fact = judged_ratio("C6", median, "event loops", found.get("look"))
    measured = (f"event loop pages/s over {THREADS}': ", Figure(median, percent))
    return replace(fact, measured=measured, shown=shown)


def _failures(document: Results, model: str, scenario: str) -> list[results.NotCounted]:
    """The model's runs in the scenario that failed by themselves (not the harness's or the
    server's failures)."""
    return [
        p
        for p in results.not_counted(document["derived"], scenario)
        if p.model == model and p.status in base.CRAWLER_FAILURES
    ]


def _threads_there(found: results.AsyncioVsThreads, failed: str) -> Line:
    """The threads' fraction of C/L at a sleepy point, or how their run there ended."""
    if found["threads_fraction_of_ideal"] is not None:
        return (f"{THREADS} ", Figure(found["threads_fraction_of_ideal"], percent, ONE_RUN))
    return f"{THREADS} {failed or 'not run'} there"


def _threads_failed(document: Results, scenario: str, concurrency: int) -> list[results.NotCounted]:
    return [p for p in _failures(document, THREADS, scenario) if p.concurrency == concurrency]


def _close_mode_beside(document: Results) -> Line:
    """The close mode's fractions of C/L at its largest C, shown beside the keep-alive verdict."""
    close = document["derived"]["comparisons"]["asyncio_vs_threads_sleepy"]
    if close is None:
        return f"{SLEEPY} (a connection per fetch) not run"
    concurrency = close["concurrency"]
    failed = _threads_failed(document, SLEEPY, concurrency)
    return (
        f"beside it, {SLEEPY} (a connection per fetch) at C {concurrency:,}, of C/L: {ASYNCIO} ",
        Figure(close["asyncio_fraction_of_ideal"], percent, ONE_RUN),
        ", ",
        *_threads_there(close, failed[0].status if failed else ""),
    )


def memory_outcome(mine: results.MemoryFit, theirs: results.MemoryFit) -> str:
    """Less memory per connection than the other model, on the two fits' intervals:
    REPRODUCED when they lie apart with mine below, CONTRADICTED when apart with mine above,
    INCONCLUSIVE when they overlap, FROM_ONE_RUN when one fit has no interval."""
    low, high = mine.total_bytes.interval, theirs.total_bytes.interval
    if low is None or high is None:
        return base.FROM_ONE_RUN
    if low.high < high.low:
        return base.REPRODUCED
    if low.low > high.high:
        return base.CONTRADICTED
    return base.INCONCLUSIVE


def _held(memory: results.MemoryFit) -> Line:
    return (in_kib(memory.total_bytes), f" (fitted over C {counts(memory.concurrencies)})")


def _sleepy_conditions(
    document: Results,
    found: results.AsyncioVsThreads,
    mine: results.MemoryFit,
    theirs: results.MemoryFit,
) -> tuple[Line, ...]:
    """C7's conditions: the point, the server's load there, both memory fits, the close mode."""
    load = found.get("server_ideal_load")
    return (
        f"{SLEEPY_KEEP_ALIVE}: C {found['concurrency']:,}, latency {found['latency'].text}, "
        f"{found['pages']:,} pages{rounds_text(_paired(document, 'C7'))}",
        *([] if load is None else [f"C/L asks the server for {load:.0%} of its core"]),
        (
            f"memory per connection (RSS + kernel, {SLEEPY}): {ASYNCIO} ",
            *_held(mine),
            f", {THREADS} ",
            *_held(theirs),
        ),
        _close_mode_beside(document),
        base.profile_of(document),
    )


def c7_sleepy_connections(document: Results) -> Verdict:
    """Judged in sleepy-keep-alive (C connections held at once), with sleepy's close mode
    shown beside it. Compares asyncio with threads at the scenario's largest point (1,000
    connections or more) where asyncio has a verified run. Reproduced if threads could not
    hold that many connections (their run there failed) or asyncio's throughput there is at
    least the threads' (the whole interval of asyncio's plateau pages/s over the threads',
    paired by round, at 1x or above), and asyncio's memory per connection (RSS + kernel, one
    fit over sleepy's runs) is lower, the two fits' intervals apart. Contradicted if
    asyncio's memory interval lies wholly above the threads', or it is slower (the interval
    below 1x), or it failed by itself (verification, crash, limit, timeout) at a larger
    concurrency of 1,000 or more. Inconclusive (within noise) when the memory intervals
    overlap or the speed interval straddles 1x. Needs the comparison and both memory fits
    (C7_NEEDS), a point of 1,000 connections or more, and a threads run there. The fraction
    of the ideal C/L is shown, not judged: on a small machine the CPU of crawler and server
    together caps every model below C/L."""
    if need := base.lacking(document, C7_NEEDS):
        return base.not_measured("C7", need.words)
    found = document["derived"]["comparisons"]["asyncio_vs_threads_sleepy_keep_alive"]
    assert found is not None
    concurrency = found["concurrency"]
    if concurrency < base.MANY_CONNECTIONS:
        return base.not_measured(
            "C7", f"a verified point of {base.MANY_CONNECTIONS:,}+ connections"
        )
    memory = results.memory_fits(document["derived"], SLEEPY)
    mine, theirs = memory[ASYNCIO], memory[THREADS]
    assert mine is not None and theirs is not None
    failed = _threads_failed(document, SLEEPY_KEEP_ALIVE, concurrency)
    shown = _sleepy_conditions(document, found, mine, theirs)
    measured = (
        f"{ASYNCIO} at {concurrency:,} connections, of C/L: ",
        Figure(found["asyncio_fraction_of_ideal"], percent, ONE_RUN),
        "; ",
        *_threads_there(found, "failed" if failed else ""),
    )
    # asyncio's first failure of its own at a larger concurrency, of 1,000 or more.
    later = _failures(document, ASYNCIO, SLEEPY_KEEP_ALIVE)
    first = next((p for p in later if (p.concurrency or 0) > concurrency), None)
    if first is not None:
        why = f"{ASYNCIO} {first.status} at C {first.concurrency:,}: {first.reason}"
        return Verdict("C7", base.CONTRADICTED, measured, (why, *shown), why=why)
    if failed:
        fact = Verdict("C7", base.REPRODUCED, why=f"{THREADS} failed at C {concurrency:,}")
    elif found["asyncio_over_threads"] is None:
        return base.not_measured("C7", f"a verified {THREADS} run at C {concurrency:,}", shown)
    else:
        label = f"{ASYNCIO} over {THREADS}:"
        fact = judged_ratio("C7", found["asyncio_over_threads"], label, found.get("look"))
    outcome = base.combined((fact.verdict, memory_outcome(mine, theirs)))
    return replace(fact, verdict=outcome, measured=measured, shown=shown)


def c9_uvloop(document: Results) -> Verdict:
    """Reproduced if uvloop cuts the asyncio model's CPU per page at least 2x in few-active
    (geometric mean over the shared concurrencies; CPU per page, because pages/s there is
    shared with a server on the same cores), the whole interval at 2x or above; contradicted
    when the interval lies below 2x; inconclusive (within noise) when it straddles 2x. Needs
    the asyncio model and its uvloop twin (C9_NEEDS); the other loop pairs are shown beside."""
    if need := base.lacking(document, C9_NEEDS):
        return base.not_measured("C9", need.words)
    found = document["derived"]["comparisons"]["uvloop"]
    assert found is not None
    first = next((p for p in found["pairs"] if (p["plain"], p["fast"]) == (ASYNCIO, UVLOOP)), None)
    if first is None:
        return base.not_measured("C9", C9_NEEDS[0].words)
    pairs: tuple[Line, ...] = tuple(
        (
            f"{p['fast']} vs {p['plain']}: ",
            Figure(p["cpu_per_page_speedup"]),
            " less CPU/page, ",
            Figure(p["pages_per_s_ratio"]),
            " pages/s",
        )
        for p in found["pairs"]
    )
    speedup = first["cpu_per_page_speedup"]
    fact = judged_ratio("C9", speedup, f"{ASYNCIO} over {UVLOOP}:", first.get("look"))
    shown = (
        *pairs,
        *_instructions_text(document, "uvloop_speedup", "fewer instructions/page"),
        *_instructions_text(
            document, "loop_own_speedup", "fewer of the loop's own instructions/page"
        ),
        f"{found['scenario']}, C {span(first['concurrencies'])}"
        + rounds_text(_paired(document, "C9", f"{ASYNCIO} over {UVLOOP}")),
        base.profile_of(document),
    )
    measured = (f"{ASYNCIO}'s CPU/page over {UVLOOP}'s: ", Figure(speedup))
    counted = document["derived"]["comparisons"]["instructions"]
    own = counted["loop_own_speedup"].get(UVLOOP) if counted else None
    beside = f"the loop's own instructions/page {times(own)} fewer (callgrind, not judged)"
    beside = beside if own else ""
    return replace(fact, measured=measured, shown=shown, beside=beside)


def c8_free_threading(side_by_side: dict[str, Any]) -> Verdict:
    """C8 on runtimes.json: the threads model on the free-threaded build over the GIL build
    of the same version, pages/s in many-links-keep-alive (where the crawler's CPU limits,
    so the GIL binds), geometric mean over its points paired by round. Reproduced when the
    whole interval is at 1.05x or above; contradicted when it lies wholly below 1.05x;
    inconclusive (within noise) when it straddles 1.05x. Needs the pair and the threads
    model's ratio there (C8_NEEDS), and every free-threaded threads crawl there ending with
    the GIL still off (said, and off)."""
    if need := base.lacking(side_by_side, C8_NEEDS):
        return base.not_measured("C8", need.words)
    pair = side_by_side["free_threading"][0]
    names = f"{THREADS} on {pair['free_threaded']} over {pair['gil']} (Python {pair['version']})"
    found = pair["models"][THREADS][base.MANY_LINKS_KEEP_ALIVE]
    pages = found.get("pages_per_s")
    cpu = Figure(found.get("cpu_us_per_page"))
    measured = ("pages/s ", Figure(pages), ", CPU/page ", cpu)
    gil = ((pair.get("gil_at_end") or {}).get(base.MANY_LINKS_KEEP_ALIVE) or {}).get(THREADS) or {}
    against = gil.get("gil_enabled") or gil.get("unknown") or not gil.get("crawls")
    conditions = (
        f"{names}, {base.MANY_LINKS_KEEP_ALIVE} at C "
        f"{', '.join(str(c) for c in found['concurrencies'])}, paired by round",
    )
    label = f"{THREADS} on {pair['free_threaded']}:"
    if against:
        on, unknown = len(gil.get("gil_enabled") or []), len(gil.get("unknown") or [])
        why = (
            f"the GIL was enabled at the end of {on} and not reported in {unknown} of "
            f"{gil.get('crawls', 0)} {THREADS} crawls on {pair['free_threaded']}"
        )
        return base.not_measured("C8", f"crawls that ran without the GIL ({why})", conditions)
    gil_note = (
        f"the GIL was off at the end of all {gil['crawls']} {THREADS} crawls there on "
        f"{pair['free_threaded']}"
    )
    fact = judged_ratio("C8", pages, label)
    return replace(fact, measured=measured, shown=(*conditions, gil_note))
