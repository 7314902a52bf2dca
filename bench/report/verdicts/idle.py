"""The verdicts on C1-C5: idle units and the ceilings of threads and sockets."""

from __future__ import annotations

import math

from bench.report.figures import (
    KIB,
    NO_UNIT,
    IdleUnit,
    failed_slope_runs,
    idle_highlights,
    idle_units,
    largest_peak_in_flight,
    socket_ceiling,
    stopped_by_a_limit,
    stopped_by_a_machine_limit,
)
from bench.report.text import kib, number
from bench.report.verdicts.base import (
    AROUND_FACTOR,
    C100K,
    CONTRADICTED,
    COROUTINE_CLAIM_BYTES,
    EASY_START_RATE,
    MANY_COROUTINES,
    MANY_THREADS,
    MIN_FIT_R2,
    NOT_MEASURABLE,
    REPRODUCED,
    SLEEPY,
    SLEEPY_KEEP_ALIVE,
    TASK,
    THREAD,
    THREAD_CLAIM_BYTES,
    Band,
    Judged,
    Verdict,
    idle_missing,
    profile_name,
    verdict,
)
from bench.results import Results, ThreadCeiling
from c10k.catalog import COROUTINE_KINDS, STACKLESS_COROUTINE_KINDS

# Each idle figure comes from one run (a slope over its steps, a count, a time): the words
# its measured text gives instead of a 95% interval.
ONE_RUN = "no interval (1 run)"
A_COUNT = "no interval (a count)"
# Where connections are held open at once, each verified by the server's peak in flight.
CONNECTION_SCENARIOS = (SLEEPY, SLEEPY_KEEP_ALIVE, C100K)


def c1_thread_memory(document: Results) -> Verdict:
    """Reproduced if an idle thread's RSS plus kernel memory (stack, slab, page tables) per
    thread is within a factor of 2 of 50 KiB (25-100 KiB), contradicted outside it; not
    measurable without a valid idle `thread` slope run or when its fit has R² below 0.9."""
    unit = idle_units(document).get(THREAD)
    if unit is None or unit.rss_bytes is None:
        return verdict("C1", "-", idle_missing(document, THREAD), NOT_MEASURABLE)
    total = unit.total_bytes or 0.0
    conditions = (
        f"{unit.count or 0:,} threads blocked on an Event, default stack; RSS "
        f"{kib(unit.rss_bytes)} (R² {number(unit.rss_r2, 3)}) + kernel {kib(unit.kernel_bytes)}; "
        f"tracemalloc {kib(unit.tracemalloc_bytes)}; {profile_name(document)}"
    )
    measured = f"{kib(total)} per thread, {ONE_RUN}"
    judged = Judged(total, label=THREAD)
    if (unit.rss_r2 or 0.0) < MIN_FIT_R2:
        noisy = conditions + f"; fit R² below {MIN_FIT_R2}: too noisy"
        return verdict("C1", measured, noisy, NOT_MEASURABLE, judged)
    low, high = THREAD_CLAIM_BYTES / AROUND_FACTOR, THREAD_CLAIM_BYTES * AROUND_FACTOR
    outcome = REPRODUCED if low <= total <= high else CONTRADICTED
    return verdict("C1", measured, conditions, outcome, judged)


def c2_coroutine_memory(document: Results) -> Verdict:
    """Reproduced if every stackless coroutine kind measured (asyncio, uvloop and trio tasks,
    the generators model's tasks, bare generators and coroutines) costs at most 2 x 3 KiB of
    RSS plus kernel memory per unit ("barely 3k" is an upper bound: cheaper agrees with it);
    contradicted if one costs more; not measurable without any valid stackless slope run. A
    stackful kind (a greenlet) is listed beside, not judged: the chapter's coroutines keep no
    stack of their own."""
    units = idle_units(document)
    measured = [units[k] for k in COROUTINE_KINDS if k in units and units[k].rss_bytes is not None]
    judged = [u for u in measured if u.kind in STACKLESS_COROUTINE_KINDS]
    if not judged:
        return verdict("C2", "-", idle_missing(document, TASK), NOT_MEASURABLE)
    worst = max(judged, key=lambda u: u.total_bytes or 0.0)
    headline = units.get(TASK) or worst
    each = ", ".join(
        f"{u.kind} {kib(u.total_bytes, 2)}"
        + ("" if u.kind in STACKLESS_COROUTINE_KINDS else " (stackful: not judged)")
        for u in measured
    )
    cheap_enough = (worst.total_bytes or 0.0) <= COROUTINE_CLAIM_BYTES * AROUND_FACTOR
    return verdict(
        "C2",
        f"{kib(headline.total_bytes, 2)} per {headline.kind}, {ONE_RUN}",
        f"{each} (RSS slope + kernel, {_count(headline)} units); {profile_name(document)}",
        REPRODUCED if cheap_enough else CONTRADICTED,
        Judged(worst.total_bytes, label=worst.kind),
    )


def _count(unit: IdleUnit) -> str:
    return f"{unit.count:,}" if unit.count else "?"


def _thread_ceiling(document: Results) -> ThreadCeiling | None:
    thread = idle_units(document).get(THREAD)
    return thread.max_threads if thread else None


def c3_thread_failures(document: Results) -> Verdict:
    """Reproduced if starting threads until failure stopped at a machine limit (or the harness
    stepped back just before one: memory guard, PID reserve) below 100,000 threads;
    contradicted if the harness's cap of 100,000 or more was reached without a failure; not
    measurable when a smaller cap was reached first or the run did not happen."""
    ceiling = _thread_ceiling(document)
    if ceiling is None:
        reason = next(
            (
                f"the until-failure run was {p['status']}: {p['reason']}"
                for p in (idle_units(document).get(THREAD) or NO_UNIT).problems
                if p.get("mode") == "until-failure" and p.get("processes", 1) == 1
            ),
            "no threads-until-failure run in these results",
        )
        return verdict("C3", "-", reason, NOT_MEASURABLE)
    count, stopped = int(ceiling["count"]), str(ceiling["stopped_by"])
    context = ceiling.get("context") or {}
    conditions = (
        f"threads blocked on an Event, started until failure; stopped by {stopped}"
        + (f" ({ceiling['error']})" if ceiling.get("error") else "")
        + f"; vm.max_map_count {number(context.get('vm.max_map_count'))}, kernel.pid_max "
        f"{number(context.get('kernel.pid_max'))}; {profile_name(document)}"
    )
    measured = f"{count:,} threads, {A_COUNT}"
    judged = Judged(count, why="a count")
    if stopped_by_a_limit(ceiling):
        outcome = REPRODUCED if count < MANY_THREADS else CONTRADICTED
    elif int(ceiling.get("cap") or count) >= MANY_THREADS:
        outcome, measured = CONTRADICTED, f"{count:,} threads, no failure, {A_COUNT}"
    else:
        outcome = NOT_MEASURABLE
        conditions = f"the harness's cap of {count:,} threads came first; " + conditions
    return verdict("C3", measured, conditions, outcome, judged)


def _start_rate(unit: IdleUnit) -> float:
    """Units started per second; no start time recorded counts as instant."""
    return math.inf if unit.start_rate_per_s is None else unit.start_rate_per_s


def c4_many_coroutines(document: Results) -> Verdict:
    """Reproduced if every coroutine kind run with 100,000 units or more started them at
    10,000 or more per second (100,000 within 10 s, however many ran); contradicted if such
    a run failed (crash, limit, timeout) or was slower; not measurable when no run reached
    100,000 units."""
    failures = [
        (kind, count, status, reason)
        for kind, runs in failed_slope_runs(document).items()
        if kind in COROUTINE_KINDS
        for count, status, reason in runs
        if count >= MANY_COROUTINES and status not in ("skipped", "unavailable")
    ]
    if failures:
        kind, count, status, reason = failures[0]
        conditions = f"{reason}; {profile_name(document)}"
        measured = f"{kind}: {status} at {count:,}, no interval (a run that failed)"
        judged = Judged(None, why=f"{kind} {status} at {count:,} units")
        return verdict("C4", measured, conditions, CONTRADICTED, judged)
    units, found = idle_units(document), idle_highlights(document)
    big = [
        units[k] for k in COROUTINE_KINDS if k in units and (units[k].count or 0) >= MANY_COROUTINES
    ]
    if not big:
        reached = found["most_coroutine_units"] if found else 0
        return verdict(
            "C4",
            f"{reached:,} units at most" if reached else "-",
            f"no coroutine run reached {MANY_COROUTINES:,} units; {profile_name(document)}",
            NOT_MEASURABLE,
        )
    # The slowest of the kinds that ran enough units: the first of them from the slowest up.
    big_kinds = [u.kind for u in big]
    by_rate = found["coroutines_by_start_rate"] if found else big_kinds
    slowest = next(units[k] for k in by_rate if k in big_kinds)
    headline = units[TASK] if TASK in big_kinds else slowest
    each = ", ".join(
        f"{u.kind} {number(u.seconds_to_start_all, 2)} s, "
        f"{number((u.rss_kib_at_count or 0) / KIB, 0)} MiB"
        for u in big
    )
    rate = _start_rate(slowest)
    return verdict(
        "C4",
        f"{_count(headline)} {headline.kind}s in {number(headline.seconds_to_start_all, 2)} s, "
        f"{ONE_RUN}",
        f"time to start all, RSS at the end: {each}; slowest start rate "
        f"{number(rate, 0)} per second ({slowest.kind}); {profile_name(document)}",
        REPRODUCED if rate >= EASY_START_RATE else CONTRADICTED,
        Judged(rate if math.isfinite(rate) else None, label=slowest.kind),
    )


def c5_threads_before_sockets(document: Results) -> Verdict:
    """On the machine (the chapter's claim): reproduced if threads started by several processes
    at once stopped at a limit of the machine below the connections verified open at once
    (any crawl scenario, across its processes and addresses); not measurable when they did not
    stop at a machine limit, or when no crawl held more connections than that ceiling. The
    per-process figures stand beside it. Results without the machine's run are judged per
    process, as before: threads of one process against the sockets one process can open."""
    units = idle_units(document)
    machine = (units.get(THREAD) or NO_UNIT).max_threads_machine
    if machine is None:
        return _c5_one_process(document)
    held, where = _most_connections_held(document)
    count, stopped = int(machine["count"]), str(machine["stopped_by"])
    measured = (
        f"{count:,} threads on the machine ({stopped}) vs {held:,} connections held at once"
        f"{where}, {A_COUNT}"
    )
    one = _thread_ceiling(document)
    sockets, socket_limit = socket_ceiling(document)
    beside = (
        f"; one process: {int(one['count']):,} threads ({one['stopped_by']}) vs "
        f"{sockets:,} sockets ({socket_limit})"
        if one is not None and sockets is not None
        else ""
    )
    conditions = (
        f"threads blocked on an Event in {machine.get('processes')} processes at once"
        f"{beside}; {profile_name(document)}"
    )
    judged = Judged(count, why="a count", band=Band(0.0, max(held, 1), of=" connections held"))
    if not stopped_by_a_machine_limit(machine):
        outcome = NOT_MEASURABLE
        conditions = f"no limit of the machine stopped the threads ({stopped}); " + conditions
    elif held > count:
        outcome = REPRODUCED
    else:
        outcome = NOT_MEASURABLE
        conditions = (
            "no crawl held more connections than the machine's thread ceiling (the full "
            "profile's c100k does); " + conditions
        )
    return verdict("C5", measured, conditions, outcome, judged)


def _most_connections_held(document: Results) -> tuple[int, str]:
    """The largest server-verified peak in flight of any crawl scenario, and where."""
    best, where = 0, ""
    for scenario in CONNECTION_SCENARIOS:
        peak = largest_peak_in_flight(document, scenario)
        if peak > best:
            best, where = peak, f" ({scenario}, server-verified)"
    return best, where


def _c5_one_process(document: Results) -> Verdict:
    """C5 per process: the thread ceiling of one process against the sockets one process can
    open (the lower of the hard open-file limit and the ephemeral ports to one address);
    contradicted if threads reached the socket ceiling (a cap at or above it counts)."""
    sockets, socket_limit = socket_ceiling(document)
    ceiling = _thread_ceiling(document)
    largest = largest_peak_in_flight(document, SLEEPY)
    shown = f"; {largest:,} connections verified open at once in {SLEEPY}" if largest else ""
    if ceiling is None or sockets is None:
        why = "no threads-until-failure run" if ceiling is None else "the socket limits unknown"
        return verdict("C5", "-", why + shown, NOT_MEASURABLE)
    count, stopped = int(ceiling["count"]), str(ceiling["stopped_by"])
    measured = (
        f"{count:,} threads ({stopped}) vs {sockets:,} sockets ({socket_limit}), "
        "no interval (counts at limits)"
    )
    conditions = f"one process, one server address{shown}; {profile_name(document)}"
    judged = Judged(count, why="a count", band=Band(0.0, sockets, of=" sockets"))
    if stopped_by_a_limit(ceiling):
        outcome = REPRODUCED if count < sockets else CONTRADICTED
    elif count >= sockets:
        outcome = CONTRADICTED
    else:
        outcome = NOT_MEASURABLE
        conditions = f"the harness's cap of {count:,} threads came first; " + conditions
    return verdict("C5", measured, conditions, outcome, judged)
