"""The verdict on each claim C1-C9, derived from a results document by a written rule (pure)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from c10k import catalog
from c10k.catalog import FREE_THREADED_MODELS, MODELS
from report.figures import (
    COROUTINE_KINDS,
    KIB,
    IdleUnit,
    derived,
    idle_run_counts,
    idle_units,
    kib,
    memory_per_connection,
    number,
    paired_ratio,
    points,
    problems,
    span,
)

# The models, idle kinds and scenarios the chapter's claims name.
THREADS, ASYNCIO = catalog.THREADS.name, catalog.ASYNCIO.name
THREAD, TASK = catalog.THREAD.name, catalog.ASYNCIO_TASK.name
FEW_ACTIVE, SLEEPY = catalog.FEW_ACTIVE.name, catalog.SLEEPY.name

REPRODUCED = "reproduced"
CONTRADICTED = "contradicted"
NOT_MEASURABLE = "not measurable here"

# The chapter's numbers ("50k", "3k"), read as KiB.
THREAD_CLAIM_BYTES = 50 * KIB
COROUTINE_CLAIM_BYTES = 3 * KIB
AROUND_FACTOR = 2.0  # "around 50k": within a factor of 2 either way
MIN_FIT_R2 = 0.9  # a per-unit slope with a worse fit is too noisy to judge
MANY_THREADS = 100_000  # "tens of thousands" means a failure below this count
MANY_COROUTINES = 100_000  # "hundreds of thousands" means at least this many
EASY_START_RATE = 10_000.0  # "easily": at least this many started per second (100,000 in 10 s)
MODERATE_RANGE = (0.5, 0.95)  # "moderately slower": 50-95% of the threads' pages/s
EVENT_LOOP_MODELS: tuple[str, ...] = tuple(m.name for m in MODELS.values() if m.event_loop)
MANY_CONNECTIONS = 1_000  # "many connections" starts here
GIL_GAIN = 1.05  # "even better": at least 5% more pages/s than threads with the GIL
UVLOOP_SPEEDUP = 2.0  # "2-4x faster": at least 2x less CPU per page
UVLOOP_PAIRS: tuple[tuple[str, str], ...] = tuple((a.name, b.name) for a, b in catalog.UVLOOP_PAIRS)
# Run statuses that are the crawler's own failure (not the harness's, not the server's).
CRAWLER_FAILURES = ("failed-verification", "crashed", "limit", "timeout")
# Idle stopping reasons that are the machine's limits (or the harness stepping back just
# before one); "cap" is the harness's own ceiling, not a failure.
THREAD_LIMITS = (
    "vm.max_map_count",
    "kernel.pid_max",
    "kernel.threads-max",
    "RLIMIT_NPROC",
    "memory",
    "memory-guard",
    "pid-reserve",
    "unknown",
)


@dataclass(frozen=True)
class Verdict:
    """One row of the verdict table."""

    claim: str
    words: str  # the chapter's words, shortened
    chapter: str  # the chapter's number
    measured: str  # the number measured here
    conditions: str  # how, and anything that qualifies it
    verdict: str  # REPRODUCED, CONTRADICTED or NOT_MEASURABLE
    rule: str  # the rule that gave the verdict, in one line


def _profile(document: dict[str, Any]) -> str:
    return f"profile {(document.get('profile') or {}).get('name', '?')}"


def _idle_missing(document: dict[str, Any], kind: str) -> str:
    for count, status, reason in idle_run_counts(document).get(kind, []):
        if status != "ok":
            return f"the idle {kind} run ({count:,} units) was {status}: {reason}"
    return f"no idle {kind} run in these results"


# -- C1-C5: idle units and ceilings ---------------------------------------------------------


def c1_thread_memory(document: dict[str, Any]) -> Verdict:
    """Reproduced if an idle thread's RSS plus kernel memory (stack, slab, page tables) per
    thread is within a factor of 2 of 50 KiB (25-100 KiB), contradicted outside it; not
    measurable without a valid idle `thread` slope run or when its fit has R² below 0.9."""
    rule = "RSS + kernel per idle thread within 2x of 50 KiB"
    base = dict(claim="C1", words="a Python thread costs around 50k of memory", chapter="~50 KiB")
    unit = idle_units(document).get(THREAD)
    if unit is None or unit.rss_bytes is None:
        return Verdict(
            **base,
            measured="-",
            conditions=_idle_missing(document, THREAD),
            verdict=NOT_MEASURABLE,
            rule=rule,
        )
    total = unit.total_bytes or 0.0
    conditions = (
        f"{unit.count or 0:,} threads blocked on an Event, default stack; RSS "
        f"{kib(unit.rss_bytes)} (R² {number(unit.rss_r2, 3)}) + kernel {kib(unit.kernel_bytes)}; "
        f"tracemalloc {kib(unit.tracemalloc_bytes)}; {_profile(document)}"
    )
    measured = f"{kib(total)} per thread"
    if (unit.rss_r2 or 0.0) < MIN_FIT_R2:
        return Verdict(
            **base,
            measured=measured,
            conditions=conditions + f"; fit R² below {MIN_FIT_R2}: too noisy",
            verdict=NOT_MEASURABLE,
            rule=rule,
        )
    low, high = THREAD_CLAIM_BYTES / AROUND_FACTOR, THREAD_CLAIM_BYTES * AROUND_FACTOR
    verdict = REPRODUCED if low <= total <= high else CONTRADICTED
    return Verdict(**base, measured=measured, conditions=conditions, verdict=verdict, rule=rule)


def c2_coroutine_memory(document: dict[str, Any]) -> Verdict:
    """Reproduced if every coroutine kind measured (asyncio and uvloop tasks, the generators
    model's tasks, bare generators and coroutines) costs at most 2 x 3 KiB of RSS plus
    kernel memory per unit ("barely 3k" is an upper bound: cheaper agrees with it);
    contradicted if one costs more; not measurable without any valid coroutine slope run."""
    rule = "RSS + kernel per idle coroutine at most 2 x 3 KiB, for every kind"
    base = dict(claim="C2", words="a coroutine takes barely 3k of memory", chapter="~3 KiB")
    units = idle_units(document)
    measured_kinds = [
        units[k] for k in COROUTINE_KINDS if k in units and units[k].rss_bytes is not None
    ]
    if not measured_kinds:
        return Verdict(
            **base,
            measured="-",
            conditions=_idle_missing(document, TASK),
            verdict=NOT_MEASURABLE,
            rule=rule,
        )
    worst = max(measured_kinds, key=lambda u: u.total_bytes or 0.0)
    headline = units.get(TASK) or worst
    each = ", ".join(f"{u.kind} {kib(u.total_bytes, 2)}" for u in measured_kinds)
    verdict = (
        REPRODUCED
        if (worst.total_bytes or 0.0) <= COROUTINE_CLAIM_BYTES * AROUND_FACTOR
        else CONTRADICTED
    )
    return Verdict(
        **base,
        measured=f"{kib(headline.total_bytes, 2)} per {headline.kind}",
        conditions=f"{each} (RSS slope + kernel, {_count(headline)} units); {_profile(document)}",
        verdict=verdict,
        rule=rule,
    )


def _count(unit: IdleUnit) -> str:
    return f"{unit.count:,}" if unit.count else "?"


def _thread_ceiling(document: dict[str, Any]) -> dict[str, Any] | None:
    thread = idle_units(document).get(THREAD)
    return thread.max_threads if thread else None


def c3_thread_failures(document: dict[str, Any]) -> Verdict:
    """Reproduced if starting threads until failure stopped at a machine limit (or the harness
    stepped back just before one: memory guard, PID reserve) below 100,000 threads;
    contradicted if the harness's cap of 100,000 or more was reached without a failure; not
    measurable when a smaller cap was reached first or the run did not happen."""
    rule = "thread start fails at a machine limit below 100,000 threads"
    base = dict(
        claim="C3",
        words="starting tens of thousands of threads causes failures",
        chapter="fails at 10,000s",
    )
    ceiling = _thread_ceiling(document)
    if ceiling is None:
        reason = next(
            (
                f"the until-failure run was {p['status']}: {p['reason']}"
                for p in (idle_units(document).get(THREAD) or _NO_UNIT).problems
                if p.get("mode") == "until-failure"
            ),
            "no threads-until-failure run in these results",
        )
        return Verdict(**base, measured="-", conditions=reason, verdict=NOT_MEASURABLE, rule=rule)
    count, stopped = int(ceiling["count"]), str(ceiling["stopped_by"])
    context = ceiling.get("context") or {}
    conditions = (
        f"threads blocked on an Event, started until failure; stopped by {stopped}"
        + (f" ({ceiling['error']})" if ceiling.get("error") else "")
        + f"; vm.max_map_count {number(context.get('vm.max_map_count'))}, kernel.pid_max "
        f"{number(context.get('kernel.pid_max'))}; {_profile(document)}"
    )
    measured = f"{count:,} threads"
    if stopped in THREAD_LIMITS:
        verdict = REPRODUCED if count < MANY_THREADS else CONTRADICTED
    elif int(ceiling.get("cap") or count) >= MANY_THREADS:
        verdict, measured = CONTRADICTED, f"{count:,} threads, no failure"
    else:
        verdict = NOT_MEASURABLE
        conditions = f"the harness's cap of {count:,} threads came first; " + conditions
    return Verdict(**base, measured=measured, conditions=conditions, verdict=verdict, rule=rule)


_NO_UNIT = IdleUnit("", None, None, None, None, None, None, None, None, [])


def c4_many_coroutines(document: dict[str, Any]) -> Verdict:
    """Reproduced if every coroutine kind run with 100,000 units or more started them at
    10,000 or more per second (100,000 within 10 s, however many ran); contradicted if such
    a run failed (crash, limit, timeout) or was slower; not measurable when no run reached
    100,000 units."""
    rule = "100,000+ idle coroutines of each kind, started at 10,000 or more per second"
    base = dict(
        claim="C4",
        words="Python can easily start hundreds of thousands of coroutines",
        chapter="100,000s",
    )
    failures = [
        (kind, count, status, reason)
        for kind, runs in idle_run_counts(document).items()
        if kind in COROUTINE_KINDS
        for count, status, reason in runs
        if count >= MANY_COROUTINES and status not in ("ok", "skipped", "unavailable")
    ]
    units = idle_units(document)
    big = [
        units[k] for k in COROUTINE_KINDS if k in units and (units[k].count or 0) >= MANY_COROUTINES
    ]
    if failures:
        kind, count, status, reason = failures[0]
        return Verdict(
            **base,
            measured=f"{kind}: {status} at {count:,}",
            conditions=f"{reason}; {_profile(document)}",
            verdict=CONTRADICTED,
            rule=rule,
        )
    if not big:
        reached = max((u.count or 0 for k, u in units.items() if k in COROUTINE_KINDS), default=0)
        return Verdict(
            **base,
            measured=f"{reached:,} units at most" if reached else "-",
            conditions=f"no coroutine run reached {MANY_COROUTINES:,} units; {_profile(document)}",
            verdict=NOT_MEASURABLE,
            rule=rule,
        )

    def rate(unit: IdleUnit) -> float:
        seconds = unit.seconds_to_start_all or 0.0
        return (unit.count or 0) / seconds if seconds > 0 else math.inf

    slowest = min(big, key=rate)
    headline = units.get(TASK) if TASK in [u.kind for u in big] else slowest
    assert headline is not None
    each = ", ".join(
        f"{u.kind} {number(u.seconds_to_start_all, 2)} s, "
        f"{number((u.rss_kib_at_count or 0) / KIB, 0)} MiB"
        for u in big
    )
    verdict = REPRODUCED if rate(slowest) >= EASY_START_RATE else CONTRADICTED
    return Verdict(
        **base,
        measured=(
            f"{_count(headline)} {headline.kind}s in {number(headline.seconds_to_start_all, 2)} s"
        ),
        conditions=(
            f"time to start all, RSS at the end: {each}; slowest start rate "
            f"{number(rate(slowest), 0)} per second ({slowest.kind}); {_profile(document)}"
        ),
        verdict=verdict,
        rule=rule,
    )


def socket_ceiling(document: dict[str, Any]) -> tuple[int | None, str]:
    """Sockets one process can open to one server: open files, ephemeral ports (pure)."""
    limits = (document.get("environment") or {}).get("limits") or {}
    candidates = []
    nofile = (limits.get("RLIMIT_NOFILE") or {}).get("hard")
    if isinstance(nofile, int):
        candidates.append((nofile, "hard RLIMIT_NOFILE"))
    ports = limits.get("ephemeral_ports_per_destination")
    if isinstance(ports, int):
        candidates.append((ports, "ephemeral ports per destination"))
    if not candidates:
        return None, "unknown"
    value, name = min(candidates)
    return value, name


def c5_threads_before_sockets(document: dict[str, Any]) -> Verdict:
    """Reproduced if the thread ceiling (threads started until a machine limit) is below the
    socket ceiling of one process (the lower of the hard open-file limit and the ephemeral
    ports to one address); contradicted if threads reached the socket ceiling (a cap at or
    above it counts); not measurable when the cap stopped threads below the socket ceiling."""
    rule = "thread ceiling below the per-process socket ceiling"
    base = dict(
        claim="C5",
        words="we run out of threads before we run out of sockets",
        chapter="threads < sockets",
    )
    sockets, socket_limit = socket_ceiling(document)
    ceiling = _thread_ceiling(document)
    largest = max(
        (
            int(p["server_peak_in_flight"] or 0)
            for entries in points(document, SLEEPY).values()
            for p in entries
        ),
        default=0,
    )
    shown = f"; {largest:,} connections verified open at once in sleepy" if largest else ""
    if ceiling is None or sockets is None:
        why = "no threads-until-failure run" if ceiling is None else "the socket limits unknown"
        return Verdict(
            **base, measured="-", conditions=why + shown, verdict=NOT_MEASURABLE, rule=rule
        )
    count, stopped = int(ceiling["count"]), str(ceiling["stopped_by"])
    measured = f"{count:,} threads ({stopped}) vs {sockets:,} sockets ({socket_limit})"
    conditions = f"one process, one server address{shown}; {_profile(document)}"
    if stopped in THREAD_LIMITS:
        verdict = REPRODUCED if count < sockets else CONTRADICTED
    elif count >= sockets:
        verdict = CONTRADICTED
    else:
        verdict = NOT_MEASURABLE
        conditions = f"the harness's cap of {count:,} threads came first; " + conditions
    return Verdict(**base, measured=measured, conditions=conditions, verdict=verdict, rule=rule)


# -- C6-C9: crawls --------------------------------------------------------------------------


def _few_active_conditions(document: dict[str, Any], used: list[int]) -> str:
    entries = points(document, FEW_ACTIVE).get(THREADS) or []
    pages = entries[0]["pages"] if entries else "?"
    runs = max((p["runs"] for p in entries), default=0)
    return f"few-active: C {span(used)}, latency 0, {pages} pages, {runs} run(s) per point"


def c6_event_loop_speed(document: dict[str, Any]) -> Verdict:
    """Reproduced if the event-loop models (callbacks, generators, asyncio) reach 50-95% of
    the threads' pages/s in few-active (median over those models of each one's geometric
    mean ratio over the concurrencies both ran, server-bound points left out); contradicted
    at 95% or more (not slower) or below 50% (more than moderately slower); not measurable
    without threads and at least one event-loop model there."""
    rule = "event loop pages/s 50-95% of threads' in few-active"
    base = dict(
        claim="C6",
        words="an event loop is moderately slower than threads for a few very active connections",
        chapter="moderately slower",
    )
    ratios: dict[str, float] = {}
    cpu: dict[str, float] = {}
    used_all: list[int] = []
    for model in EVENT_LOOP_MODELS:
        ratio, used = paired_ratio(
            document, FEW_ACTIVE, model, THREADS, "pages_per_s", skip_saturated=True
        )
        if ratio is not None:
            ratios[model] = ratio
            used_all += used
            cpu_ratio, _ = paired_ratio(document, FEW_ACTIVE, model, THREADS, "cpu_us_per_page")
            if cpu_ratio is not None:
                cpu[model] = cpu_ratio
    if not ratios:
        why = (
            "few-active did not run"
            if not derived(document, FEW_ACTIVE)
            else "no verified few-active points shared by threads and an event-loop model "
            "(or the server was CPU-bound at all of them)"
        )
        return Verdict(**base, measured="-", conditions=why, verdict=NOT_MEASURABLE, rule=rule)
    ordered = sorted(ratios.values())
    middle = (
        ordered[len(ordered) // 2]
        if len(ordered) % 2
        else sum(ordered[len(ordered) // 2 - 1 : len(ordered) // 2 + 1]) / 2
    )
    each = ", ".join(
        f"{m} {ratios[m]:.2f}x pages/s, {cpu[m]:.2f}x CPU/page"
        if m in cpu
        else f"{m} {ratios[m]:.2f}x"
        for m in ratios
    )
    low, high = MODERATE_RANGE
    verdict = REPRODUCED if low <= middle < high else CONTRADICTED
    return Verdict(
        **base,
        measured=f"event loop at {middle:.0%} of threads' pages/s",
        conditions=f"{each} (vs threads); "
        f"{_few_active_conditions(document, sorted(set(used_all)))}; {_profile(document)}",
        verdict=verdict,
        rule=rule,
    )


def c7_sleepy_connections(document: dict[str, Any]) -> Verdict:
    """Compares asyncio with threads at the largest sleepy concurrency (1,000 or more) where
    asyncio has a verified run. Reproduced if threads could not hold that many connections
    (their run there failed), or if asyncio's throughput there is at least the threads' and
    its memory per connection (RSS + kernel slopes) is lower. Contradicted if asyncio is
    slower or not cheaper, or failed by itself (verification, crash, limit, timeout) at a
    larger concurrency of 1,000 or more. Not measurable below 1,000 connections or without a
    threads run to compare with. The fraction of the ideal C/L is shown, not judged: on a
    small machine the CPU of crawler and server together caps every model below C/L."""
    rule = (
        "at 1,000+ sleepy connections, asyncio at least as fast as threads with less memory per"
        " connection, or threads unable to hold that many"
    )
    base = dict(
        claim="C7",
        words="async is right for many slow or sleepy connections",
        chapter="async wins",
    )
    table = points(document, SLEEPY)
    mine = [p for p in table.get(ASYNCIO, []) if p.get("fraction_of_ideal") is not None]
    if not mine:
        return Verdict(
            **base,
            measured="-",
            conditions="no verified sleepy run of asyncio" + _sleepy_failures(document),
            verdict=NOT_MEASURABLE,
            rule=rule,
        )
    top = max(mine, key=lambda p: p["concurrency"])
    concurrency, fraction = int(top["concurrency"]), float(top["fraction_of_ideal"])
    memory = memory_per_connection(document)
    mine_mem, theirs_mem = memory.get(ASYNCIO), memory.get(THREADS)
    mine_total = mine_mem.total_bytes if mine_mem else None
    theirs_total = theirs_mem.total_bytes if theirs_mem else None
    threads_there = [
        p
        for p in table.get(THREADS, [])
        if p["concurrency"] == concurrency and p.get("fraction_of_ideal") is not None
    ]
    sleepy_problems = problems(document, SLEEPY)
    threads_failed_there = [
        p
        for p in sleepy_problems
        if p.model == THREADS and p.status in CRAWLER_FAILURES and p.concurrency == concurrency
    ]
    theirs_text = (
        f"threads {float(threads_there[0]['fraction_of_ideal']):.0%}"
        if threads_there
        else "threads failed there"
        if threads_failed_there
        else "threads not run there"
    )
    conditions = (
        f"sleepy: C {concurrency:,}, latency {top['latency']}, {top['pages']:,} pages; "
        f"of C/L: asyncio {fraction:.0%}, {theirs_text}; memory per connection asyncio "
        f"{kib(mine_total)}, threads {kib(theirs_total)}"
        f"{_sleepy_failures(document)}; {_profile(document)}"
    )
    measured = f"{fraction:.0%} of C/L at {concurrency:,} connections ({theirs_text})"
    later_failures = [
        p
        for p in sleepy_problems
        if p.model == ASYNCIO
        and p.status in CRAWLER_FAILURES
        and (p.concurrency or 0) > max(concurrency, MANY_CONNECTIONS - 1)
    ]
    if later_failures:
        first = later_failures[0]
        return Verdict(
            **base,
            measured=measured,
            conditions=f"asyncio {first.status} at C {first.concurrency:,}: {first.reason}; "
            + conditions,
            verdict=CONTRADICTED,
            rule=rule,
        )
    if concurrency < MANY_CONNECTIONS or not (threads_there or threads_failed_there):
        why = (
            f"largest verified C below {MANY_CONNECTIONS:,}"
            if concurrency < MANY_CONNECTIONS
            else "no threads run at that concurrency to compare with"
        )
        return Verdict(
            **base,
            measured=measured,
            conditions=f"{why}; " + conditions,
            verdict=NOT_MEASURABLE,
            rule=rule,
        )
    cheaper = mine_total is None or theirs_total is None or mine_total < theirs_total
    if threads_failed_there:
        verdict = REPRODUCED if cheaper else CONTRADICTED
    else:
        faster = fraction >= float(threads_there[0]["fraction_of_ideal"])
        verdict = REPRODUCED if faster and cheaper else CONTRADICTED
    return Verdict(**base, measured=measured, conditions=conditions, verdict=verdict, rule=rule)


def _sleepy_failures(document: dict[str, Any]) -> str:
    found = problems(document, SLEEPY)
    if not found:
        return ""
    return f"; {len(found)} sleepy run(s) did not count (see below)"


def c8_without_gil(document: dict[str, Any]) -> Verdict:
    """Reproduced if a free-threaded threads model (named threads-free-threaded or
    threads-nogil) makes at least 5% more pages/s than threads with the GIL in few-active
    (geometric mean over the shared concurrencies); contradicted if not; not measurable
    here when no free-threaded CPython ran."""
    rule = "free-threaded threads >= 1.05x the pages/s of threads with the GIL"
    base = dict(
        claim="C8",
        words="without a GIL, threads would do even better",
        chapter="better without GIL",
    )
    table = points(document, FEW_ACTIVE)
    model = next((m for m in FREE_THREADED_MODELS if table.get(m)), None)
    if model is None or not table.get(THREADS):
        python = (document.get("environment") or {}).get("python") or {}
        return Verdict(
            **base,
            measured="-",
            conditions=(
                f"no free-threaded CPython ran: these results hold only "
                f"{python.get('implementation', 'Python')} {python.get('version', '?')} "
                f"{'without' if python.get('gil_disabled') else 'with'} the GIL, and no "
                f"free-threaded model beside the threads model"
            ),
            verdict=NOT_MEASURABLE,
            rule=rule,
        )
    ratio, used = paired_ratio(document, FEW_ACTIVE, model, THREADS, "pages_per_s")
    if ratio is None:
        return Verdict(
            **base,
            measured="-",
            conditions=f"no few-active points shared by {model} and threads",
            verdict=NOT_MEASURABLE,
            rule=rule,
        )
    return Verdict(
        **base,
        measured=f"{ratio:.2f}x the pages/s of threads",
        conditions=f"{model} vs threads; {_few_active_conditions(document, used)}",
        verdict=REPRODUCED if ratio >= GIL_GAIN else CONTRADICTED,
        rule=rule,
    )


def c9_uvloop(document: dict[str, Any]) -> Verdict:
    """Reproduced if uvloop cuts the asyncio model's CPU per page at least 2x in few-active
    (geometric mean over the shared concurrencies; CPU per page, because pages/s there is
    shared with a server on the same cores); contradicted if less. The aiohttp pair is used
    when the asyncio pair is missing, and sleepy when few-active is; not measurable without
    a model and its uvloop twin in either scenario."""
    rule = "uvloop >= 2x less CPU per page than the same code on asyncio's loop"
    base = dict(
        claim="C9",
        words="uvloop makes asyncio 2-4x faster (uvloop's README)",
        chapter="2-4x",
    )
    found: list[tuple[str, str, str, float, list[int]]] = []
    for scenario in (FEW_ACTIVE, SLEEPY):
        for plain, fast in UVLOOP_PAIRS:
            speedup, used = paired_ratio(document, scenario, plain, fast, "cpu_us_per_page")
            if speedup is not None:
                found.append((scenario, plain, fast, speedup, used))
        if found:
            break
    if not found:
        return Verdict(
            **base,
            measured="-",
            conditions="no verified point of a model and its uvloop twin in few-active or sleepy",
            verdict=NOT_MEASURABLE,
            rule=rule,
        )
    scenario, plain, fast, speedup, used = found[0]
    details = []
    for _, p, f, s, _used in found:
        rate, _ = paired_ratio(document, scenario, f, p, "pages_per_s")
        details.append(f"{f} vs {p}: {s:.2f}x less CPU/page, {number(rate, 2)}x pages/s")
    return Verdict(
        **base,
        measured=f"{speedup:.2f}x ({plain})",
        conditions=f"{'; '.join(details)}; {scenario}, C {span(used)}; {_profile(document)}",
        verdict=REPRODUCED if speedup >= UVLOOP_SPEEDUP else CONTRADICTED,
        rule=rule,
    )


RULES: tuple[Callable[[dict[str, Any]], Verdict], ...] = (
    c1_thread_memory,
    c2_coroutine_memory,
    c3_thread_failures,
    c4_many_coroutines,
    c5_threads_before_sockets,
    c6_event_loop_speed,
    c7_sleepy_connections,
    c8_without_gil,
    c9_uvloop,
)


def verdicts(document: dict[str, Any]) -> list[Verdict]:
    """Every claim's verdict, C1 to C9."""
    return [rule(document) for rule in RULES]
