"""The verdicts on C6-C9: crawls with few active, many sleepy, GIL-free and uvloop loops."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench.report.figures import (
    MemoryPerConnection,
    Problem,
    comparison,
    derived,
    highlights,
    memory_per_connection,
    problems,
)
from bench.report.text import kib_interval, span, with_interval
from bench.report.verdicts.base import (
    ASYNCIO,
    CONTRADICTED,
    CRAWLER_FAILURES,
    FEW_ACTIVE,
    GIL_GAIN,
    INCONCLUSIVE,
    MANY_CONNECTIONS,
    MANY_LINKS_KEEP_ALIVE,
    MODERATE_RANGE,
    NOT_MEASURABLE,
    REPRODUCED,
    SLEEPY,
    SLEEPY_KEEP_ALIVE,
    THREADS,
    UVLOOP_SPEEDUP,
    Verdict,
    on_interval,
    profile_name,
    verdict,
)
from c10k.stats import recorded_interval

# Why a ratio over points has no interval: a point ran once (or its runs did not pair up).
ONE_RUN_PER_POINT = "1 run per point"
ONE_RUN = "1 run"


def _times(value: float) -> str:
    return f"{value:.2f}x"


def _percent(value: float) -> str:
    return f"{value:.0%}"


def _ratio(
    found: dict[str, Any],
    key: str,
    shown: Callable[[float], str] = _times,
    why: str = ONE_RUN_PER_POINT,
) -> str:
    """found[key] with its interval found[key_ci95]: '1.22x [1.00x, 1.49x]'."""
    if f"{key}_ci95" not in found:
        why = "results written before intervals: python -m bench.analysis.derive adds them"
    interval = recorded_interval(found.get(f"{key}_ci95"))
    return with_interval(found.get(key), interval, shown, why)


def _few_active_conditions(document: dict[str, Any], used: list[int]) -> str:
    site = highlights(document, FEW_ACTIVE)
    pages = site.get("threads_pages")
    runs = site.get("threads_most_runs_per_point") or 0
    return (
        f"{FEW_ACTIVE}: C {span(used)}, latency 0, {'?' if pages is None else pages} pages, "
        f"{runs} run(s) per point"
    )


def _instructions_text(document: dict[str, Any], key: str, template: str) -> str:
    """'; callgrind: ...' from the instructions comparison's ratios, or '' without a count.
    Counts repeat to within 0.1% from run to run: these ratios have no noise to bound."""
    ratios = (comparison(document, "instructions") or {}).get(key) or {}
    if not ratios:
        return ""
    return (
        "; callgrind: "
        + ", ".join(template.format(m, r) for m, r in ratios.items())
        + " (counts repeat to within 0.1%: no interval)"
    )


def c6_event_loop_speed(document: dict[str, Any]) -> Verdict:
    """Reproduced if the event-loop models (callbacks, generators, asyncio) reach 50-95% of
    the threads' pages/s in few-active (median over those models of each one's geometric
    mean ratio over the concurrencies both ran, server-bound points left out), the whole 95%
    interval of that median inside the range; contradicted when the interval lies at 95% or
    more (not slower) or below 50% (more than moderately slower); inconclusive (within
    noise) when it straddles 50% or 95%; not measurable without threads and at least one
    event-loop model there."""
    found = comparison(document, "event_loop_vs_threads") or {}
    middle = found.get("median_pages_per_s")
    if middle is None:
        why = (
            f"{FEW_ACTIVE} did not run"
            if not derived(document, FEW_ACTIVE)
            else f"no verified {FEW_ACTIVE} points shared by {THREADS} and an event-loop model "
            "(or the server was CPU-bound at all of them)"
        )
        return verdict("C6", "-", why, NOT_MEASURABLE)
    each = ", ".join(
        f"{m} {_ratio(r, 'pages_per_s')} pages/s"
        + (f", {_ratio(r, 'cpu_us_per_page')} CPU/page" if r["cpu_us_per_page"] is not None else "")
        for m, r in found["models"].items()
    )
    interval = recorded_interval(found.get("median_pages_per_s_ci95"))
    shown = _ratio(found, "median_pages_per_s", _percent)
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
    )


def _sleepy_failures(document: dict[str, Any], scenario: str) -> str:
    found = problems(document, scenario)
    if not found:
        return ""
    return f"; {len(found)} {scenario} run(s) did not count (see below)"


def _crawler_failures(document: dict[str, Any], model: str, scenario: str) -> list[Problem]:
    return [
        p for p in problems(document, scenario) if p.model == model and p.status in CRAWLER_FAILURES
    ]


def _close_mode_beside(document: dict[str, Any]) -> str:
    """The close mode's fractions of C/L at its largest C, shown beside a keep-alive verdict."""
    close = comparison(document, "asyncio_vs_threads_sleepy")
    if close is None:
        return f"; {SLEEPY} (a connection per fetch) not run"
    concurrency = close["concurrency"]
    failed = [
        p for p in _crawler_failures(document, THREADS, SLEEPY) if p.concurrency == concurrency
    ]
    theirs = (
        f"{THREADS} {_ratio(close, 'threads_fraction_of_ideal', _percent, ONE_RUN)}"
        if close["threads_fraction_of_ideal"] is not None
        else f"{THREADS} {failed[0].status} there"
        if failed
        else f"{THREADS} not run there"
    )
    return (
        f"; beside it, {SLEEPY} (a connection per fetch) at C {concurrency:,}, of C/L: "
        f"{ASYNCIO} {_ratio(close, 'asyncio_fraction_of_ideal', _percent, ONE_RUN)}, {theirs}"
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


def _c7_judged(found: dict[str, Any], threads_failed_there: bool, order: str) -> str:
    """asyncio against threads where both were asked to hold that many connections: memory
    per connection on the intervals of the two slopes (overlapping: inconclusive), speed on
    the interval of asyncio's plateau pages/s over the threads' (paired by round)."""
    if order == COSTLIER:
        return CONTRADICTED
    if threads_failed_there:
        return REPRODUCED if order == CHEAPER else INCONCLUSIVE
    ratio = found.get("asyncio_over_threads")
    if ratio is None:  # a file written before intervals: the fractions as they are
        faster = found["asyncio_fraction_of_ideal"] >= found["threads_fraction_of_ideal"]
        speed = REPRODUCED if faster else CONTRADICTED
    else:
        speed = on_interval(ratio, recorded_interval(found.get("asyncio_over_threads_ci95")), 1.0)
    return INCONCLUSIVE if order == OVERLAP and speed == REPRODUCED else speed


def c7_sleepy_connections(document: dict[str, Any]) -> Verdict:
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
    found = comparison(document, "asyncio_vs_threads_sleepy_keep_alive")
    beside = _close_mode_beside(document)
    if found is None:
        scenario, found = SLEEPY, comparison(document, "asyncio_vs_threads_sleepy")
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
    theirs_text = (
        f"{THREADS} {_ratio(found, 'threads_fraction_of_ideal', _percent, ONE_RUN)}"
        if threads_there
        else f"{THREADS} failed there"
        if failed_there
        else f"{THREADS} not run there"
    )
    speed = (
        f"; {ASYNCIO}'s pages/s over {THREADS}' {_ratio(found, 'asyncio_over_threads')}"
        if found.get("asyncio_over_threads") is not None
        else ""
    )
    conditions = (
        f"{scenario}: C {concurrency:,}, latency {found['latency']}, {found['pages']:,} pages"
        f"{speed}; memory per connection ({SLEEPY}, RSS + kernel slopes over the runs) "
        f"{ASYNCIO} {_held(mine)}, {THREADS} {_held(theirs)}"
        f"{_sleepy_failures(document, scenario)}{beside}; "
        f"{profile_name(document)}"
    )
    shown = _ratio(found, "asyncio_fraction_of_ideal", _percent, ONE_RUN)
    measured = f"{ASYNCIO} at {concurrency:,} connections, of C/L: {shown}; {theirs_text}"
    later = [
        p
        for p in _crawler_failures(document, ASYNCIO, scenario)
        if (p.concurrency or 0) > max(concurrency, MANY_CONNECTIONS - 1)
    ]
    if later:
        first = later[0]
        why = f"{ASYNCIO} {first.status} at C {first.concurrency:,}: {first.reason}; "
        return verdict("C7", measured, why + conditions, CONTRADICTED)
    if concurrency < MANY_CONNECTIONS or not (threads_there or failed_there):
        why = (
            f"largest verified C below {MANY_CONNECTIONS:,}"
            if concurrency < MANY_CONNECTIONS
            else f"no {THREADS} run at that concurrency to compare with"
        )
        return verdict("C7", measured, f"{why}; " + conditions, NOT_MEASURABLE)
    outcome = _c7_judged(found, bool(failed_there), memory_order(mine, theirs))
    return verdict("C7", measured, conditions, outcome)


def c8_without_gil(document: dict[str, Any]) -> Verdict:
    """One results file holds one runtime: C8 is judged beside the runtimes side by side
    (c8_free_threading, in runtimes.md), never here."""
    python = (document.get("environment") or {}).get("python") or {}
    runtime = document.get("runtime") or {}
    version = runtime.get("version") or python.get("version", "?")
    gil = runtime.get("gil_disabled", python.get("gil_disabled"))
    return verdict(
        "C8",
        "-",
        f"judged in runtimes.md, beside the results of `c10k bench --profile free-threading "
        f"--pythons 3.14,3.14t` (docs/runtimes.md, C8): it needs the threads model on a "
        f"free-threaded build and on the GIL build of the same version in one run; this file "
        f"holds only {python.get('implementation', 'Python')} {version} "
        f"{'without' if gil else 'with'} the GIL",
        NOT_MEASURABLE,
    )


def c8_free_threading(side_by_side: dict[str, Any]) -> Verdict:
    """C8 on runtimes.json: the threads model on the free-threaded build over the GIL build
    of the same version, pages/s in many-links-keep-alive (where the crawler's CPU limits,
    so the GIL binds), geometric mean over its points paired by round. Reproduced when the
    whole 95% interval is at 1.05x or above; contradicted when it lies wholly below 1.05x;
    inconclusive (within noise) when it straddles 1.05x; not measurable when no such pair
    ran, the threads model has no shared point there, or a free-threaded threads crawl there
    ended with the GIL enabled (or did not say)."""
    pairs = side_by_side.get("free_threading") or []
    if not pairs:
        why = (
            "no free-threaded runtime beside the GIL build of the same version in this run "
            "(`c10k bench --profile free-threading --pythons 3.14,3.14t`)"
        )
        return verdict("C8", "-", why, NOT_MEASURABLE)
    pair = pairs[0]
    names = f"{THREADS} on {pair['free_threaded']} over {pair['gil']} (Python {pair['version']})"
    found = (pair["models"].get(THREADS) or {}).get(MANY_LINKS_KEEP_ALIVE)
    if found is None or found.get("pages_per_s") is None:
        why = f"no {MANY_LINKS_KEEP_ALIVE} point of {THREADS} shared by {names}"
        return verdict("C8", "-", why, NOT_MEASURABLE)
    measured = (
        f"pages/s {_ratio(found, 'pages_per_s')}, CPU/page {_ratio(found, 'cpu_us_per_page')}"
    )
    gil = ((pair.get("gil_at_end") or {}).get(MANY_LINKS_KEEP_ALIVE) or {}).get(THREADS) or {}
    against = gil.get("gil_enabled") or gil.get("unknown") or not gil.get("crawls")
    conditions = (
        f"{names}, {MANY_LINKS_KEEP_ALIVE} at C "
        f"{', '.join(str(c) for c in found['concurrencies'])}, paired by round"
    )
    if against:
        on, unknown = len(gil.get("gil_enabled") or []), len(gil.get("unknown") or [])
        why = (
            f"the GIL was enabled at the end of {on} and not reported in {unknown} of "
            f"{gil.get('crawls', 0)} {THREADS} crawls on {pair['free_threaded']}; {conditions}"
        )
        return verdict("C8", measured, why, NOT_MEASURABLE)
    interval = recorded_interval(found.get("pages_per_s_ci95"))
    gil_note = (
        f"; the GIL was off at the end of all {gil['crawls']} {THREADS} crawls there on "
        f"{pair['free_threaded']}"
    )
    return verdict(
        "C8", measured, conditions + gil_note, on_interval(found["pages_per_s"], interval, GIL_GAIN)
    )


def c9_uvloop(document: dict[str, Any]) -> Verdict:
    """Reproduced if uvloop cuts the asyncio model's CPU per page at least 2x in few-active
    (geometric mean over the shared concurrencies; CPU per page, because pages/s there is
    shared with a server on the same cores), the whole 95% interval at 2x or above;
    contradicted when the interval lies below 2x; inconclusive (within noise) when it
    straddles 2x. The aiohttp pair is used when the asyncio pair is missing, and sleepy when
    few-active is; not measurable without a model and its uvloop twin in either scenario."""
    found = comparison(document, "uvloop")
    if found is None:
        why = f"no verified point of a model and its uvloop twin in {FEW_ACTIVE} or {SLEEPY}"
        return verdict("C9", "-", why, NOT_MEASURABLE)
    first = found["pairs"][0]
    speedup = first["cpu_per_page_speedup"]
    interval = recorded_interval(first.get("cpu_per_page_speedup_ci95"))
    details = "; ".join(
        f"{p['fast']} vs {p['plain']}: {_ratio(p, 'cpu_per_page_speedup')} less CPU/page, "
        f"{_ratio(p, 'pages_per_s_ratio')} pages/s"
        for p in found["pairs"]
    )
    return verdict(
        "C9",
        f"{first['plain']} CPU/page over {first['fast']}': {_ratio(first, 'cpu_per_page_speedup')}",
        f"{details}"
        + _instructions_text(document, "uvloop_speedup", "{} {:.2f}x fewer instructions/page")
        + f"; {found['scenario']}, C {span(first['concurrencies'])}; {profile_name(document)}",
        on_interval(speedup, interval, UVLOOP_SPEEDUP),
    )
