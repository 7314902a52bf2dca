"""The verdicts on C1-C5: idle units and the ceilings of threads and sockets."""

from __future__ import annotations

from dataclasses import replace

from bench.report.verdicts import base
from bench.report.verdicts.base import C100K, TASK, THREAD, Need, Verdict, judged, not_measured
from bench.results import NEVER_MADE, C100kHighlights, Results, highlights, idle_table
from c10k.catalog import COROUTINE_KINDS, STACKLESS_COROUTINE_KINDS
from c10k.quantity import value_of
from c10k.words import KIB, kib, number

A_COUNT = "no interval (a count)"


def _idle(kind: str, figure: str) -> tuple[str, ...]:
    return ("derived", "idle", kind, figure)


# What each rule cannot judge without (docs/report.md, "What each rule needs").
C1_NEEDS = (Need(f"the idle {THREAD}s' memory per unit", _idle(THREAD, "total_bytes_per_unit")),)
C2_NEEDS = (Need(f"the idle {TASK}s' memory per unit", _idle(TASK, "total_bytes_per_unit")),)
C3_NEEDS = (Need(f"the {THREAD}s-until-failure run's count", _idle(THREAD, "max_threads")),)
C4_NEEDS = (Need(f"the {TASK}s' start rate", _idle(TASK, "start_rate_per_s")),)
C5_NEEDS = (
    Need("the threads started on the machine", _idle(THREAD, "max_threads_machine")),
    Need(
        "the connections held at once (c100k)",
        ("derived", "highlights", C100K, "largest_peak_in_flight"),
    ),
)


def c1_thread_memory(document: Results) -> Verdict:
    """Reproduced if an idle thread's RSS plus kernel memory (stack, slab, page tables) per
    thread is within a factor of 2 of 50 KiB (25-100 KiB), the whole interval of its fit
    inside; contradicted when it lies wholly outside; inconclusive when it straddles a bound.
    Needs the idle thread slope run's figure (C1_NEEDS)."""
    if need := base.lacking(document, C1_NEEDS):
        return not_measured("C1", need.words, _idle_problem(document, THREAD))
    unit = idle_table(document["derived"])[THREAD]
    shown = (
        f"{unit.count or 0:,} threads blocked on an Event, default stack",
        f"RSS {kib(unit.rss_bytes_per_unit)} (R² {number(unit.rss_r2, 3)}) + kernel "
        f"{kib(unit.kernel_total_bytes_per_unit)}",
        f"tracemalloc {kib(unit.tracemalloc_bytes_per_unit)}",
        base.profile_of(document),
    )
    measured = f"{kib(value_of(unit.total_bytes_per_unit))} per thread (RSS + kernel)"
    fact = judged("C1", unit.total_bytes_per_unit, THREAD)
    return replace(fact, measured=measured, shown=shown)


def c2_coroutine_memory(document: Results) -> Verdict:
    """Reproduced if every stackless coroutine kind measured (asyncio, uvloop, rloop and trio
    tasks, the generators model's tasks, bare generators and coroutines) costs at most 2 x 3
    KiB of RSS plus kernel memory per unit, the whole interval of each fit at or below it
    ("barely 3k" is an upper bound: cheaper agrees with it); contradicted if one lies wholly
    above; inconclusive when one straddles it. The judged figure is the costliest kind. A
    stackful kind (a greenlet) is listed beside, not judged: the chapter's coroutines keep
    no stack of their own. Needs the asyncio task's figure, the chapter's coroutine
    (C2_NEEDS)."""
    if need := base.lacking(document, C2_NEEDS):
        return not_measured("C2", need.words, _idle_problem(document, TASK))
    units = idle_table(document["derived"])
    measured = {
        k: total
        for k in COROUTINE_KINDS
        if k in units and (total := value_of(units[k].total_bytes_per_unit))
    }
    stackless = {
        k: judged("C2", units[k].total_bytes_per_unit, k)
        for k in measured
        if k in STACKLESS_COROUTINE_KINDS
    }
    worst = max(stackless, key=lambda k: measured[k])
    each = ", ".join(
        f"{k} {kib(total, 2)}"
        + ("" if k in STACKLESS_COROUTINE_KINDS else " (stackful: not judged)")
        for k, total in measured.items()
    )
    return replace(
        stackless[worst],
        verdict=base.combined(fact.verdict for fact in stackless.values()),
        measured=f"{kib(measured[worst], 2)} per {worst}, the costliest stackless kind",
        shown=(
            f"{each} (RSS + kernel per unit, each a fit over its run)",
            base.profile_of(document),
        ),
    )


def _idle_problem(document: Results, kind: str) -> tuple[str, ...]:
    """Why an idle kind has no figures: its failed slope run, if one failed."""
    unit = idle_table(document["derived"]).get(kind)
    for p in unit.failed_slopes if unit else []:
        return (
            f"the idle {kind} run ({p['count'] or 0:,} units) was {p['status']}: {p['reason']}",
        )
    return ()


def c3_thread_failures(document: Results) -> Verdict:
    """Reproduced if starting threads until failure stopped at a machine limit (or the harness
    stepped back just before one: memory guard, PID reserve) below 100,000 threads;
    contradicted if the harness's cap of 100,000 or more was reached without a failure; not
    measured when a smaller cap was reached first, or without the run (C3_NEEDS). A count
    needs no interval."""
    if need := base.lacking(document, C3_NEEDS):
        return not_measured("C3", need.words)
    ceiling = idle_table(document["derived"])[THREAD].max_threads
    assert ceiling is not None
    count, stopped = int(ceiling["count"]), str(ceiling["stopped_by"])
    context = ceiling.get("context") or {}
    shown = (
        "threads blocked on an Event, started until failure",
        f"stopped by {stopped}" + (f" ({ceiling['error']})" if ceiling.get("error") else ""),
        f"vm.max_map_count {number(context.get('vm.max_map_count'))}, kernel.pid_max "
        f"{number(context.get('kernel.pid_max'))}",
        base.profile_of(document),
    )
    if not ceiling["capped"]:
        outcome, measured = base.REPRODUCED if count < base.MANY_THREADS else base.CONTRADICTED, ""
    elif int(ceiling.get("cap") or count) >= base.MANY_THREADS:
        outcome, measured = base.CONTRADICTED, " no failure,"
    else:
        return not_measured("C3", f"a failure below the harness's cap ({count:,} threads)", shown)
    measured = f"{count:,} threads,{measured} {A_COUNT}"
    return Verdict("C3", outcome, measured, shown, value=count, why="a count")


def c4_many_coroutines(document: Results) -> Verdict:
    """Reproduced if every coroutine kind run with 100,000 units or more started them at
    10,000 or more per second (100,000 within 10 s, however many ran), the whole interval of
    each start rate (the inverse of a fit of time against units started) at or above it;
    contradicted if such a run failed (crash, limit, timeout) or its rate lies wholly below;
    inconclusive when one straddles it. Needs the asyncio tasks' start rate from a run of
    100,000 or more (C4_NEEDS)."""
    units = idle_table(document["derived"])
    failures = [
        (kind, p["count"] or 0, p["status"], p["reason"])
        for kind, unit in units.items()
        if kind in COROUTINE_KINDS
        for p in unit.failed_slopes
        if (p["count"] or 0) >= base.MANY_COROUTINES and p["status"] not in NEVER_MADE
    ]
    if failures:
        kind, count, status, reason = failures[0]
        measured = f"{kind}: {status} at {count:,}, no interval (a run that failed)"
        why = f"{kind} {status} at {count:,} units"
        shown = (reason or status, base.profile_of(document))
        return Verdict("C4", base.CONTRADICTED, measured, shown, why=why)
    if need := base.lacking(document, C4_NEEDS):
        return not_measured("C4", need.words, _idle_problem(document, TASK))
    if (units[TASK].count or 0) < base.MANY_COROUTINES:
        return not_measured("C4", f"a {TASK} run of {base.MANY_COROUTINES:,} units or more")
    big = {
        k: (u, rate)
        for k in COROUTINE_KINDS
        if (u := units.get(k)) and (u.count or 0) >= base.MANY_COROUTINES
        if (rate := u.start_rate_per_s) and rate.value
    }
    slowest = min(big, key=lambda k: big[k][1].value or 0.0)
    each = ", ".join(
        f"{k} {u.count or 0:,} in {number(u.seconds_to_start_all, 2)} s "
        f"({number((u.rss_kib_at_count or 0) / KIB, 0)} MiB)"
        for k, (u, _) in big.items()
    )
    unit, rate = big[slowest]
    return replace(
        judged("C4", rate, slowest),
        verdict=base.combined(judged("C4", r).verdict for _, r in big.values()),
        measured=f"{unit.count or 0:,} {slowest}s started at "
        f"{number(rate.value)} per second, the slowest kind",
        shown=(
            f"units started, time to start all and RSS at the end: {each}",
            base.profile_of(document),
        ),
    )


def c5_threads_before_sockets(document: Results) -> Verdict:
    """On the machine (the chapter's claim), from the c100k run: reproduced if threads started
    by several processes at once stopped at a limit of the machine below the connections
    verified open at once (the c100k scenario, across its processes and addresses); not
    measured when they did not stop at a machine limit, when no crawl held more connections
    than that ceiling, or without either figure (C5_NEEDS). One process cannot judge it: its
    own open files end its sockets first. The per-process figures stand beside. A count needs
    no interval."""
    if need := base.lacking(document, C5_NEEDS):
        return not_measured("C5", need.words)
    thread = idle_table(document["derived"])[THREAD]
    machine, one = thread.max_threads_machine, thread.max_threads
    assert machine is not None
    c100k = highlights(document["derived"], C100K, C100kHighlights)
    held = c100k["largest_peak_in_flight"] if c100k else 0
    count, stopped = int(machine["count"]), str(machine["stopped_by"])
    measured = (
        f"{count:,} threads on the machine ({stopped}) vs {held:,} connections held at once"
        f" ({C100K}, server-verified), {A_COUNT}"
    )
    ceiling = document["derived"]["socket_ceiling"]
    beside = (
        [
            f"one process: {int(one['count']):,} threads ({one['stopped_by']}) vs "
            f"{ceiling['count']:,} sockets ({ceiling['limit']})"
        ]
        if one is not None and ceiling["count"] is not None
        else []
    )
    shown = (
        f"threads blocked on an Event in {machine.get('processes')} processes at once",
        *beside,
        base.profile_of(document),
    )
    if not machine["machine_limit"]:
        return not_measured("C5", f"threads stopped by a limit of the machine ({stopped})", shown)
    if held <= count:
        return not_measured(
            "C5", f"a crawl holding more connections than the {count:,} threads", shown
        )
    band = base.Band(0.0, held, of=" connections held")
    return Verdict(
        "C5", base.REPRODUCED, measured, shown, value=count, why="a count", data_band=band
    )
