"""The verdicts on C6, C7 and C9: crawls with few active connections, many sleepy ones, and
uvloop against asyncio's own loop."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from bench.report.figures import (
    MemoryPerConnection,
    Problem,
    comparisons,
    crawl,
    few_active_highlights,
    memory_per_connection,
    problems,
)
from bench.report.text import kib_interval, span, with_interval
from bench.report.verdicts.base import (
    ASYNCIO,
    CONTRADICTED,
    CRAWLER_FAILURES,
    FEW_ACTIVE,
    INCONCLUSIVE,
    MANY_CONNECTIONS,
    MODERATE_RANGE,
    NOT_MEASURABLE,
    REPRODUCED,
    SLEEPY,
    SLEEPY_KEEP_ALIVE,
    THREADS,
    UVLOOP_SPEEDUP,
    Judged,
    Verdict,
    on_interval,
    profile_name,
    verdict,
)
from bench.results import AsyncioVsThreads, Results
from c10k.stats import recorded_interval

# Why a ratio over points has no interval: a point ran once (or its runs did not pair up).
ONE_RUN_PER_POINT = "1 run per point"
ONE_RUN = "1 run"


def _times(value: float) -> str:
    return f"{value:.2f}x"


def _percent(value: float) -> str:
    return f"{value:.0%}"


def judged_ratio(found: Mapping[str, Any], key: str, label: str) -> Judged:
    """found[key] and its interval found[key_ci95], as the figure a rule decides on; judged
    by paired rounds (found["look"]), at the look's confidence, saying where it stopped."""
    interval = recorded_interval(found.get(f"{key}_ci95"))
    before = f"{key}_ci95" not in found  # a file written before intervals
    why = "written before intervals" if before else f"{ONE_RUN_PER_POINT}, no interval"
    look = found.get("look")
    if not look:
        return Judged(found.get(key), interval, why, label)
    return Judged(
        found.get(key),
        interval,
        f"{look['rounds']} round(s), no interval",
        label,
        confidence=look["confidence"],
        stopping=stopping_text(look),
    )


def stopping_text(look: Mapping[str, Any]) -> str:
    """Where a paired comparison stopped: 'after 5 rounds: decided' (docs/report.md)."""
    rounds = int(look["rounds"])
    why = "decided" if look["decided"] else "precise" if look["precise"] else "undecided"
    return f"after {rounds} paired round{'s' if rounds != 1 else ''}: {why}"


def ratio_text(
    found: Mapping[str, Any],
    key: str,
    shown: Callable[[float], str] = _times,
    why: str = ONE_RUN_PER_POINT,
) -> str:
    """found[key] with its interval found[key_ci95]: '1.22x [1.00x, 1.49x]'."""
    if f"{key}_ci95" not in found:
        why = "results written before intervals: python -m bench.analysis.derive adds them"
    interval = recorded_interval(found.get(f"{key}_ci95"))
    return with_interval(found.get(key), interval, shown, why)


def _few_active_conditions(document: Results, used: list[int]) -> str:
    site = few_active_highlights(document, FEW_ACTIVE)
    pages = site["threads_pages"] if site else None
    runs = site["threads_most_runs_per_point"] if site else 0
    return (
        f"{FEW_ACTIVE}: C {span(used)}, latency 0, {'?' if pages is None else pages} pages, "
        f"{runs} run(s) per point" + rounds_text(document, FEW_ACTIVE)
    )


def _server_load(found: Mapping[str, Any]) -> str:
    """'; C/L asks the server for 21% of its core': whether the point can be fed (the
    server, at its measured CPU per request, has room when this is about half or less)."""
    load = found.get("server_ideal_load")
    return "" if load is None else f"; C/L asks the server for {load:.0%} of its core"


def rounds_text(document: Results, scenario: str) -> str:
    """', 15 paired round(s), 10 noisy (3 of them run again)': the scenario's rounds, and
    the ones that waited for a quiet machine first; '' without any."""
    found = (document["derived"].get("rounds") or {}).get(scenario)
    if not found:
        return ""
    noisy, again = found["noisy"], found["again"]
    if not noisy:
        said = ", none noisy"
    elif again >= noisy:
        said = f", {noisy} noisy and run again"
    else:
        said = f", {noisy} noisy ({again or 'none'} of them run again)"
    if waited := found.get("waited"):
        said += f", {waited} waited {found.get('waited_s', 0.0):.0f} s for a quiet machine first"
    return f", {found['rounds']} paired round(s){said}"


def _instructions_text(
    document: Results, key: Literal["event_loop_vs_threads", "uvloop_speedup"], template: str
) -> str:
    """'; callgrind: ...' from the instructions comparison's ratios, or '' without a count.
    Counts repeat to within 0.1% from run to run: these ratios have no noise to bound."""
    found = comparisons(document).get("instructions")
    ratios = found[key] if found else {}
    if not ratios:
        return ""
    return (
        "; callgrind: "
        + ", ".join(template.format(m, r) for m, r in ratios.items())
        + " (counts repeat to within 0.1%: no interval)"
    )


def c6_event_loop_speed(document: Results) -> Verdict:
    """Reproduced if the event-loop models (callbacks, generators, asyncio) reach 50-95% of
    the threads' pages/s in few-active (median over those models of each one's geometric
    mean ratio over the concurrencies both ran, server-bound points left out), the whole 95%
    interval of that median inside the range; contradicted when the interval lies at 95% or
    more (not slower) or below 50% (more than moderately slower); inconclusive (within
    noise) when it straddles 50% or 95%; not measurable without threads and at least one
    event-loop model there."""
    found = comparisons(document).get("event_loop_vs_threads")
    middle = found["median_pages_per_s"] if found else None
    if found is None or middle is None:
        why = (
            f"{FEW_ACTIVE} did not run"
            if not crawl(document, FEW_ACTIVE)
            else f"no verified {FEW_ACTIVE} points shared by {THREADS} and an event-loop model "
            "(or the server was CPU-bound at all of them)"
        )
        return verdict("C6", "-", why, NOT_MEASURABLE)
    each = ", ".join(
        f"{m} {ratio_text(r, 'pages_per_s')} pages/s"
        + (
            f", {ratio_text(r, 'cpu_us_per_page')} CPU/page"
            if r["cpu_us_per_page"] is not None
            else ""
        )
        for m, r in found["models"].items()
    )
    interval = recorded_interval(found.get("median_pages_per_s_ci95"))
    shown = ratio_text(found, "median_pages_per_s", _percent)
    return verdict(
        "C6",
        f"event loop pages/s over {THREADS}': {shown}",
        f"{each} (vs {THREADS})"
        + _instructions_text(
            document, "event_loop_vs_threads", "{} {:.2f}x " + THREADS + "' instructions/page"
        )
        + f"; {_few_active_conditions(document, found['concurrencies'])}; "
        f"{profile_name(document)}",
        on_interval(middle, interval, *MODERATE_RANGE),
        judged_ratio(found, "median_pages_per_s", "event loops"),
    )


def _sleepy_failures(document: Results, scenario: str) -> str:
    found = problems(document, scenario)
    if not found:
        return ""
    return f"; {len(found)} {scenario} run(s) did not count (see below)"


def _crawler_failures(document: Results, model: str, scenario: str) -> list[Problem]:
    return [
        p for p in problems(document, scenario) if p.model == model and p.status in CRAWLER_FAILURES
    ]


def _close_mode_beside(document: Results) -> str:
    """The close mode's fractions of C/L at its largest C, shown beside a keep-alive verdict."""
    close = comparisons(document).get("asyncio_vs_threads_sleepy")
    if close is None:
        return f"; {SLEEPY} (a connection per fetch) not run"
    concurrency = close["concurrency"]
    failed = [
        p for p in _crawler_failures(document, THREADS, SLEEPY) if p.concurrency == concurrency
    ]
    theirs = (
        f"{THREADS} {ratio_text(close, 'threads_fraction_of_ideal', _percent, ONE_RUN)}"
        if close["threads_fraction_of_ideal"] is not None
        else f"{THREADS} {failed[0].status} there"
        if failed
        else f"{THREADS} not run there"
    )
    return (
        f"; beside it, {SLEEPY} (a connection per fetch) at C {concurrency:,}, of C/L: "
        f"{ASYNCIO} {ratio_text(close, 'asyncio_fraction_of_ideal', _percent, ONE_RUN)}, {theirs}"
    )


CHEAPER, COSTLIER, OVERLAP = "cheaper", "costlier", "overlap"


def _held(memory: MemoryPerConnection | None) -> str:
    return "-" if memory is None else kib_interval(memory.total_bytes, memory.total_ci95)


def memory_order(mine: MemoryPerConnection | None, theirs: MemoryPerConnection | None) -> str:
    """How one model's held memory per connection (RSS + kernel slopes) compares with
    another's on their 95% intervals: CHEAPER or COSTLIER when the intervals are apart,
    OVERLAP when they overlap. A fit without an interval counts as its value alone; a model
    without a fit is not a cost to compare (CHEAPER, as before intervals)."""
    if mine is None or theirs is None or mine.total_bytes is None or theirs.total_bytes is None:
        return CHEAPER
    low, high = _total_range(mine)
    their_low, their_high = _total_range(theirs)
    if high < their_low:
        return CHEAPER
    if low > their_high:
        return COSTLIER
    return OVERLAP


def _total_range(memory: MemoryPerConnection) -> tuple[float, float]:
    total = memory.total_bytes or 0.0
    interval = memory.total_ci95
    return (total, total) if interval is None else (interval.low, interval.high)


def _c7_judged(found: AsyncioVsThreads, threads_failed_there: bool, order: str) -> str:
    """asyncio against threads where both were asked to hold that many connections: memory
    per connection on the intervals of the two slopes (overlapping: inconclusive), speed on
    the interval of asyncio's plateau pages/s over the threads' (paired by round)."""
    if order == COSTLIER:
        return CONTRADICTED
    if threads_failed_there:
        return REPRODUCED if order == CHEAPER else INCONCLUSIVE
    ratio = found.get("asyncio_over_threads")
    if ratio is None:  # a file written before intervals: the fractions as they are
        faster = found["asyncio_fraction_of_ideal"] >= (found["threads_fraction_of_ideal"] or 0.0)
        speed = REPRODUCED if faster else CONTRADICTED
    else:
        speed = on_interval(ratio, recorded_interval(found.get("asyncio_over_threads_ci95")), 1.0)
    return INCONCLUSIVE if order == OVERLAP and speed == REPRODUCED else speed


def _asyncio_failed_later(document: Results, scenario: str, at: int) -> Problem | None:
    """asyncio's first failure of its own at a larger concurrency (1,000 or more) than `at`."""
    later = [
        p
        for p in _crawler_failures(document, ASYNCIO, scenario)
        if (p.concurrency or 0) > max(at, MANY_CONNECTIONS - 1)
    ]
    return later[0] if later else None


def _c7_measured(found: AsyncioVsThreads, failed_there: bool) -> tuple[str, Judged]:
    """C7's fractions of C/L in words, and the figure it is judged on: asyncio's pages/s over
    the threads' (or, without it, that threads failed there)."""
    concurrency = found["concurrency"]
    theirs = (
        f"{THREADS} {ratio_text(found, 'threads_fraction_of_ideal', _percent, ONE_RUN)}"
        if found["threads_fraction_of_ideal"] is not None
        else f"{THREADS} failed there"
        if failed_there
        else f"{THREADS} not run there"
    )
    shown = ratio_text(found, "asyncio_fraction_of_ideal", _percent, ONE_RUN)
    measured = f"{ASYNCIO} at {concurrency:,} connections, of C/L: {shown}; {theirs}"
    if found.get("asyncio_over_threads") is not None:
        return measured, judged_ratio(found, "asyncio_over_threads", f"{ASYNCIO} over {THREADS}:")
    return measured, Judged(
        None, why=f"{THREADS} failed at C {concurrency:,}" if failed_there else "-"
    )


def c7_sleepy_connections(document: Results) -> Verdict:
    """Judged in sleepy-keep-alive (C connections held at once), with sleepy's close mode
    shown beside it; on sleepy alone when the keep-alive scenario did not run.
    Compares asyncio with threads at the largest concurrency (1,000 or more) where
    asyncio has a verified run. Reproduced if threads could not hold that many connections
    (their run there failed), or if asyncio's throughput there is at least the threads' (the
    whole 95% interval of asyncio's plateau pages/s over the threads', paired by round, at
    1x or above) and its memory per connection (RSS + kernel slopes) is lower, the two
    slopes' 95% intervals apart. Contradicted if asyncio's memory interval lies wholly above
    the threads', or it is slower (the interval below 1x), or failed by itself (verification,
    crash, limit, timeout) at a larger concurrency of 1,000 or more. Inconclusive (within
    noise) when the memory intervals overlap or the speed interval straddles 1x. Not
    measurable below 1,000 connections or without a threads run to compare with. The
    fraction of the ideal C/L is shown, not judged: on a small machine the CPU of crawler and
    server together caps every model below C/L."""
    scenario = SLEEPY_KEEP_ALIVE
    found = comparisons(document).get("asyncio_vs_threads_sleepy_keep_alive")
    beside = _close_mode_beside(document)
    if found is None:
        scenario, found = SLEEPY, comparisons(document).get("asyncio_vs_threads_sleepy")
        beside = ""
    if found is None:
        why = f"no verified {SLEEPY_KEEP_ALIVE} or {SLEEPY} run of {ASYNCIO}"
        return verdict("C7", "-", why + _sleepy_failures(document, SLEEPY), NOT_MEASURABLE)
    concurrency = found["concurrency"]
    memory = memory_per_connection(document)
    mine, theirs = memory.get(ASYNCIO), memory.get(THREADS)
    threads_there = found["threads_fraction_of_ideal"] is not None
    failed_there = [
        p for p in _crawler_failures(document, THREADS, scenario) if p.concurrency == concurrency
    ]
    speed = (
        f"; {ASYNCIO}'s pages/s over {THREADS}' {ratio_text(found, 'asyncio_over_threads')}"
        if found.get("asyncio_over_threads") is not None
        else ""
    )
    conditions = (
        f"{scenario}: C {concurrency:,}, latency {found['latency']}, {found['pages']:,} pages"
        f"{rounds_text(document, scenario)}{_server_load(found)}{speed}; memory per "
        f"connection ({SLEEPY}, "
        "RSS + kernel slopes over the runs) "
        f"{ASYNCIO} {_held(mine)}, {THREADS} {_held(theirs)}"
        f"{_sleepy_failures(document, scenario)}{beside}; "
        f"{profile_name(document)}"
    )
    measured, judged = _c7_measured(found, bool(failed_there))
    first = _asyncio_failed_later(document, scenario, concurrency)
    if first is not None:
        why = f"{ASYNCIO} {first.status} at C {first.concurrency:,}: {first.reason}; "
        return verdict("C7", measured, why + conditions, CONTRADICTED, judged)
    if concurrency < MANY_CONNECTIONS or not (threads_there or failed_there):
        why = (
            f"largest verified C below {MANY_CONNECTIONS:,}"
            if concurrency < MANY_CONNECTIONS
            else f"no {THREADS} run at that concurrency to compare with"
        )
        return verdict("C7", measured, f"{why}; " + conditions, NOT_MEASURABLE, judged)
    outcome = _c7_judged(found, bool(failed_there), memory_order(mine, theirs))
    return verdict("C7", measured, conditions, outcome, judged)


def c9_uvloop(document: Results) -> Verdict:
    """Reproduced if uvloop cuts the asyncio model's CPU per page at least 2x in few-active
    (geometric mean over the shared concurrencies; CPU per page, because pages/s there is
    shared with a server on the same cores), the whole 95% interval at 2x or above;
    contradicted when the interval lies below 2x; inconclusive (within noise) when it
    straddles 2x. The aiohttp pair is used when the asyncio pair is missing, and sleepy when
    few-active is; not measurable without a model and its uvloop twin in either scenario."""
    found = comparisons(document).get("uvloop")
    if found is None:
        why = f"no verified point of a model and its uvloop twin in {FEW_ACTIVE} or {SLEEPY}"
        return verdict("C9", "-", why, NOT_MEASURABLE)
    first = found["pairs"][0]
    speedup = first["cpu_per_page_speedup"]
    interval = recorded_interval(first.get("cpu_per_page_speedup_ci95"))
    details = "; ".join(
        f"{p['fast']} vs {p['plain']}: {ratio_text(p, 'cpu_per_page_speedup')} less CPU/page, "
        f"{ratio_text(p, 'pages_per_s_ratio')} pages/s"
        for p in found["pairs"]
    )
    return verdict(
        "C9",
        f"{first['plain']} CPU/page over {first['fast']}': "
        + ratio_text(first, "cpu_per_page_speedup"),
        f"{details}"
        + _instructions_text(document, "uvloop_speedup", "{} {:.2f}x fewer instructions/page")
        + f"; {found['scenario']}, C {span(first['concurrencies'])}; {profile_name(document)}",
        on_interval(speedup, interval, UVLOOP_SPEEDUP),
        judged_ratio(first, "cpu_per_page_speedup", f"{first['plain']} over {first['fast']}:"),
    )
