"""The verdicts on C6-C9: crawls with few active, many sleepy, GIL-free and uvloop loops."""

from __future__ import annotations

from typing import Any

from bench.report.figures import (
    Problem,
    comparison,
    derived,
    highlights,
    memory_per_connection,
    problems,
)
from bench.report.text import kib, number, span
from bench.report.verdicts.base import (
    ASYNCIO,
    CONTRADICTED,
    CRAWLER_FAILURES,
    FEW_ACTIVE,
    GIL_GAIN,
    MANY_CONNECTIONS,
    MODERATE_RANGE,
    NOT_MEASURABLE,
    REPRODUCED,
    SLEEPY,
    THREADS,
    UVLOOP_SPEEDUP,
    Verdict,
    profile_name,
    verdict,
)


def _few_active_conditions(document: dict[str, Any], used: list[int]) -> str:
    site = highlights(document, FEW_ACTIVE)
    pages = site.get("threads_pages")
    runs = site.get("threads_most_runs_per_point") or 0
    return (
        f"{FEW_ACTIVE}: C {span(used)}, latency 0, {'?' if pages is None else pages} pages, "
        f"{runs} run(s) per point"
    )


def _instructions_text(document: dict[str, Any], key: str, template: str) -> str:
    """'; callgrind: ...' from the instructions comparison's ratios, or '' without a count."""
    ratios = (comparison(document, "instructions") or {}).get(key) or {}
    if not ratios:
        return ""
    return "; callgrind: " + ", ".join(template.format(m, r) for m, r in ratios.items())


def c6_event_loop_speed(document: dict[str, Any]) -> Verdict:
    """Reproduced if the event-loop models (callbacks, generators, asyncio) reach 50-95% of
    the threads' pages/s in few-active (median over those models of each one's geometric
    mean ratio over the concurrencies both ran, server-bound points left out); contradicted
    at 95% or more (not slower) or below 50% (more than moderately slower); not measurable
    without threads and at least one event-loop model there."""
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
        f"{m} {r['pages_per_s']:.2f}x pages/s, {r['cpu_us_per_page']:.2f}x CPU/page"
        if r["cpu_us_per_page"] is not None
        else f"{m} {r['pages_per_s']:.2f}x"
        for m, r in found["models"].items()
    )
    low, high = MODERATE_RANGE
    return verdict(
        "C6",
        f"event loop at {middle:.0%} of threads' pages/s",
        f"{each} (vs {THREADS})"
        + _instructions_text(
            document, "event_loop_vs_threads", "{} {:.2f}x " + THREADS + "' instructions/page"
        )
        + f"; {_few_active_conditions(document, found['concurrencies'])}; "
        f"{profile_name(document)}",
        REPRODUCED if low <= middle < high else CONTRADICTED,
    )


def _sleepy_failures(document: dict[str, Any]) -> str:
    found = problems(document, SLEEPY)
    if not found:
        return ""
    return f"; {len(found)} {SLEEPY} run(s) did not count (see below)"


def _crawler_failures(document: dict[str, Any], model: str) -> list[Problem]:
    return [
        p for p in problems(document, SLEEPY) if p.model == model and p.status in CRAWLER_FAILURES
    ]


def _c7_judged(
    found: dict[str, Any], threads_failed_there: bool, mine: float | None, theirs: float | None
) -> str:
    """asyncio against threads where both were asked to hold that many connections."""
    cheaper = mine is None or theirs is None or mine < theirs
    if threads_failed_there:
        return REPRODUCED if cheaper else CONTRADICTED
    faster = found["asyncio_fraction_of_ideal"] >= found["threads_fraction_of_ideal"]
    return REPRODUCED if faster and cheaper else CONTRADICTED


def c7_sleepy_connections(document: dict[str, Any]) -> Verdict:
    """Compares asyncio with threads at the largest sleepy concurrency (1,000 or more) where
    asyncio has a verified run. Reproduced if threads could not hold that many connections
    (their run there failed), or if asyncio's throughput there is at least the threads' and
    its memory per connection (RSS + kernel slopes) is lower. Contradicted if asyncio is
    slower or not cheaper, or failed by itself (verification, crash, limit, timeout) at a
    larger concurrency of 1,000 or more. Not measurable below 1,000 connections or without a
    threads run to compare with. The fraction of the ideal C/L is shown, not judged: on a
    small machine the CPU of crawler and server together caps every model below C/L."""
    found = comparison(document, "asyncio_vs_threads_sleepy")
    if found is None:
        why = f"no verified {SLEEPY} run of {ASYNCIO}" + _sleepy_failures(document)
        return verdict("C7", "-", why, NOT_MEASURABLE)
    concurrency, fraction = found["concurrency"], found["asyncio_fraction_of_ideal"]
    memory = memory_per_connection(document)
    mine = memory[ASYNCIO].total_bytes if ASYNCIO in memory else None
    theirs = memory[THREADS].total_bytes if THREADS in memory else None
    threads_there = found["threads_fraction_of_ideal"] is not None
    failed_there = [p for p in _crawler_failures(document, THREADS) if p.concurrency == concurrency]
    theirs_text = (
        f"{THREADS} {found['threads_fraction_of_ideal']:.0%}"
        if threads_there
        else f"{THREADS} failed there"
        if failed_there
        else f"{THREADS} not run there"
    )
    conditions = (
        f"{SLEEPY}: C {concurrency:,}, latency {found['latency']}, {found['pages']:,} pages; "
        f"of C/L: {ASYNCIO} {fraction:.0%}, {theirs_text}; memory per connection {ASYNCIO} "
        f"{kib(mine)}, {THREADS} {kib(theirs)}{_sleepy_failures(document)}; "
        f"{profile_name(document)}"
    )
    measured = f"{fraction:.0%} of C/L at {concurrency:,} connections ({theirs_text})"
    later = [
        p
        for p in _crawler_failures(document, ASYNCIO)
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
    outcome = _c7_judged(found, bool(failed_there), mine, theirs)
    return verdict("C7", measured, conditions, outcome)


def c8_without_gil(document: dict[str, Any]) -> Verdict:
    """Reproduced if a free-threaded threads model (named threads-free-threaded or
    threads-nogil) makes at least 5% more pages/s than threads with the GIL in few-active
    (geometric mean over the shared concurrencies); contradicted if not; not measurable
    here when no free-threaded CPython ran."""
    found = comparison(document, "free_threaded_vs_threads")
    if found is None:
        python = (document.get("environment") or {}).get("python") or {}
        return verdict(
            "C8",
            "-",
            f"no free-threaded CPython ran: these results hold only "
            f"{python.get('implementation', 'Python')} {python.get('version', '?')} "
            f"{'without' if python.get('gil_disabled') else 'with'} the GIL, and no "
            f"free-threaded model beside the threads model",
            NOT_MEASURABLE,
        )
    model, ratio = found["model"], found["pages_per_s"]
    if ratio is None:
        why = f"no {FEW_ACTIVE} points shared by {model} and {THREADS}"
        return verdict("C8", "-", why, NOT_MEASURABLE)
    return verdict(
        "C8",
        f"{ratio:.2f}x the pages/s of {THREADS}",
        f"{model} vs {THREADS}; {_few_active_conditions(document, found['concurrencies'])}",
        REPRODUCED if ratio >= GIL_GAIN else CONTRADICTED,
    )


def c9_uvloop(document: dict[str, Any]) -> Verdict:
    """Reproduced if uvloop cuts the asyncio model's CPU per page at least 2x in few-active
    (geometric mean over the shared concurrencies; CPU per page, because pages/s there is
    shared with a server on the same cores); contradicted if less. The aiohttp pair is used
    when the asyncio pair is missing, and sleepy when few-active is; not measurable without
    a model and its uvloop twin in either scenario."""
    found = comparison(document, "uvloop")
    if found is None:
        why = f"no verified point of a model and its uvloop twin in {FEW_ACTIVE} or {SLEEPY}"
        return verdict("C9", "-", why, NOT_MEASURABLE)
    first = found["pairs"][0]
    speedup = first["cpu_per_page_speedup"]
    details = "; ".join(
        f"{p['fast']} vs {p['plain']}: {p['cpu_per_page_speedup']:.2f}x less CPU/page, "
        f"{number(p['pages_per_s_ratio'], 2)}x pages/s"
        for p in found["pairs"]
    )
    return verdict(
        "C9",
        f"{speedup:.2f}x ({first['plain']})",
        f"{details}"
        + _instructions_text(
            document, "uvloop_speedup", "{} {:.2f}x fewer instructions/page on uvloop"
        )
        + f"; {found['scenario']}, C {span(first['concurrencies'])}; {profile_name(document)}",
        REPRODUCED if speedup >= UVLOOP_SPEEDUP else CONTRADICTED,
    )
