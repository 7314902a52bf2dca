"""Figures across models, from the derived tables: ratios, rankings, extremes (pure)."""

from __future__ import annotations

from collections.abc import Collection, Mapping

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
    candidates = []
    nofile = (limits.get("RLIMIT_NOFILE") or {}).get("hard")
    if isinstance(nofile, int):
        candidates.append((nofile, "hard RLIMIT_NOFILE"))
    ports = limits.get("ephemeral_ports_per_destination")
    if isinstance(ports, int):
        candidates.append((ports, "ephemeral ports per destination"))
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


def overview(
    tables: Mapping[str, ScenarioTable], runs: list[Run], environment: Environment | None
) -> Derived:
    """The figures across models and runs, beside the per-scenario tables in `derived`."""
    few_active = scenario_points(tables, catalog.FEW_ACTIVE.name)
    highlights: dict[str, Highlights] = {}
    if catalog.IDLE.name in tables:
        highlights[catalog.IDLE.name] = idle_highlights(idle_table(tables))
    for name in (catalog.FEW_ACTIVE.name, catalog.FEW_ACTIVE_KEEP_ALIVE.name):
        if name in tables:
            highlights[name] = few_active_highlights(scenario_points(tables, name))
    for name in (catalog.SLEEPY.name, catalog.SLEEPY_KEEP_ALIVE.name):
        if name in tables:
            highlights[name] = sleepy_highlights(tables, name)
    if (realistic := catalog.REALISTIC.name) in tables:
        highlights[realistic] = realistic_highlights(scenario_points(tables, realistic))
    if catalog.C100K.name in tables:
        highlights[catalog.C100K.name] = c100k_highlights(crawl_table(tables, catalog.C100K.name))
    if catalog.LATENCY_SWEEP.name in tables:
        highlights[catalog.LATENCY_SWEEP.name] = latency_sweep_highlights(
            scenario_points(tables, catalog.LATENCY_SWEEP.name)
        )
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
