"""Figures across models, from the derived tables: ratios, rankings, extremes (pure)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from bench.analysis.highlights import (
    c100k_highlights,
    few_active_highlights,
    idle_highlights,
    latency_sweep_highlights,
    realistic_highlights,
    sleepy_highlights,
)
from bench.analysis.paired import fold_looks, paired_comparisons, round_counts
from bench.analysis.plateau import run_plateau
from bench.analysis.points import Points
from bench.analysis.ratios import (
    asyncio_vs_threads,
    event_loop_vs_threads,
    instruction_ratios,
    loop_claims,
    uvloop_speedups,
)
from bench.results import (
    Comparisons,
    Derived,
    Environment,
    Highlights,
    NotCounted,
    Run,
    ScenarioTable,
    SocketCeiling,
    crawl_table,
    idle_table,
    instructions_table,
    scenario_points,
)
from c10k import catalog


def not_counted(runs: list[Run]) -> list[NotCounted]:
    """Measured runs that did not count, in run order, with what they still measured."""
    found: list[NotCounted] = []
    for run in runs:
        if run.get("kind") != "measured" or run.get("status") == "ok":
            continue
        params = run.get("params") or {}
        crawl = run.get("crawl") or {}
        server = params.get("server")
        found.append(
            NotCounted(
                str(run.get("id")),
                str(run.get("scenario")),
                str(run.get("model")),
                str(run.get("status")),
                str(run.get("reason") or run.get("status")),
                params.get("concurrency"),
                server["latency"] if server else None,
                crawl.get("pages_per_s"),
                run_plateau(run).get("rss_kib"),
                crawl.get("cpu_us_per_page"),
                bool(run.get("noisy")),
            )
        )
    return found


def socket_ceiling(environment: Environment | None) -> SocketCeiling:
    """Sockets one process can open to one server: the lower of open files and ports."""
    limits = (environment.get("limits") if environment else None) or {}
    found = {
        "hard RLIMIT_NOFILE": (limits.get("RLIMIT_NOFILE") or {}).get("hard"),
        "ephemeral ports per destination": limits.get("ephemeral_ports_per_destination"),
    }
    candidates = [(count, limit) for limit, count in found.items() if isinstance(count, int)]
    if not candidates:
        return {"count": None, "limit": "unknown"}
    count, limit = min(candidates)
    return {"count": count, "limit": limit}


# Scenarios that only some profiles run: many-links-keep-alive and both-cores are the
# free-threading profile's, for C8, which is judged beside the runtimes (docs/runtimes.md);
# c100k the full profile's, an hour and more of 100,000 connections.
PROFILE_OWN_SCENARIOS = (
    catalog.MANY_LINKS_KEEP_ALIVE.name,
    catalog.BOTH_CORES.name,
    catalog.C100K.name,
)


def not_run(tables: Mapping[str, ScenarioTable], profiled: Collection[str]) -> list[str]:
    """Scenarios with no run at all (tables has one for every scenario that ran); one of
    PROFILE_OWN_SCENARIOS only when the profile gave it something to run (profiled)."""
    return [
        s
        for s in catalog.SCENARIOS
        if s not in tables and (s not in PROFILE_OWN_SCENARIOS or s in profiled)
    ]


Tables = Mapping[str, ScenarioTable]


def _of_points(highlight: Callable[[Points], Highlights]) -> Callable[[Tables, str], Highlights]:
    """A highlight of a scenario's points, read from the tables."""
    return lambda tables, scenario: highlight(scenario_points(tables, scenario))


# What each scenario's chart and verdicts quote, from its table (in the order written).
HIGHLIGHTS: dict[str, Callable[[Tables, str], Highlights]] = {
    catalog.IDLE.name: lambda tables, _: idle_highlights(idle_table(tables)),
    catalog.FEW_ACTIVE.name: _of_points(few_active_highlights),
    catalog.FEW_ACTIVE_KEEP_ALIVE.name: _of_points(few_active_highlights),
    catalog.SLEEPY.name: sleepy_highlights,
    catalog.SLEEPY_KEEP_ALIVE.name: sleepy_highlights,
    catalog.REALISTIC.name: _of_points(realistic_highlights),
    catalog.C100K.name: lambda tables, scenario: c100k_highlights(crawl_table(tables, scenario)),
    catalog.LATENCY_SWEEP.name: _of_points(latency_sweep_highlights),
}


def overview(tables: Tables, runs: list[Run], environment: Environment | None) -> Derived:
    """The figures across models and runs, beside the per-scenario tables in `derived`."""
    few_active = scenario_points(tables, catalog.FEW_ACTIVE.name)
    highlights = {s: HIGHLIGHTS[s](tables, s) for s in HIGHLIGHTS if s in tables}
    comparisons: Comparisons = {
        "event_loop_vs_threads": event_loop_vs_threads(few_active),
        "uvloop": uvloop_speedups(tables),
        "asyncio_vs_threads_sleepy": asyncio_vs_threads(
            scenario_points(tables, catalog.SLEEPY.name)
        ),
        "asyncio_vs_threads_sleepy_keep_alive": asyncio_vs_threads(
            scenario_points(tables, catalog.SLEEPY_KEEP_ALIVE.name)
        ),
        "instructions": instruction_ratios(instructions_table(tables)),
        "paired": paired_comparisons(tables, runs),
        "loop_claims": loop_claims(few_active, instructions_table(tables)),
    }
    fold_looks(comparisons, comparisons["paired"])
    return {
        "not_counted": not_counted(runs),
        "comparisons": comparisons,
        "highlights": highlights,
        "socket_ceiling": socket_ceiling(environment),
        "rounds": round_counts(runs),
    }
