"""The figures the report shows, read from a results document's `derived` section as they are,
through the types bench.results declares for them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from bench.results import (
    C100kHighlights,
    Comparisons,
    CrawlTable,
    Derived,
    FewActiveHighlights,
    HarnessCost,
    IdleEntry,
    IdleHighlights,
    InstructionsTable,
    LatencySweepHighlights,
    MemoryFit,
    NoiseFloor,
    PeerEntry,
    Point,
    Results,
    SleepyHighlights,
    ThreadCeiling,
    crawl_table,
    idle_table,
    instructions_table,
    noise_floor,
)
from c10k import catalog
from c10k.durations import Latency

KIB = 1024.0


# The thread-ceiling program (impls/tools/thread_ceiling.py) stops at "cap" when it reached the
# harness's own ceiling; every other stopped_by names a machine limit (or the harness
# stepping back just before one), whichever words the program uses for it.
HARNESS_CAP = "cap"


def stopped_by_a_limit(ceiling: ThreadCeiling) -> bool:
    """Whether threads-until-failure ended at a limit of the machine, not at the cap."""
    return str(ceiling["stopped_by"]) != HARNESS_CAP


def stopped_by_a_machine_limit(ceiling: ThreadCeiling) -> bool:
    """Whether threads started in several processes ended at a limit of the whole machine
    (kernel.pid_max or its reserve, threads-max, memory), not at each process's own or the cap."""
    stopped = str(ceiling["stopped_by"])
    return stopped != HARNESS_CAP and not stopped.startswith("per-process")


def derived(document: Results) -> Derived:
    """The document's derived section ({} before the first run)."""
    return document.get("derived") or cast(Derived, {})


def crawl(document: Results, scenario: str) -> CrawlTable:
    """derived.<crawl scenario>: model -> its table; {} when the scenario did not run."""
    return crawl_table(derived(document), scenario)


def instructions(document: Results) -> InstructionsTable:
    """derived.instructions: model (or the core replay) -> its count; {} when not counted."""
    return instructions_table(derived(document))


def noise(document: Results) -> NoiseFloor | None:
    return noise_floor(derived(document))


def harness_cost(document: Results) -> HarnessCost | None:
    return derived(document).get("harness_cost")


def points(document: Results, scenario: str) -> dict[str, list[Point]]:
    """Model -> its verified points in a crawl scenario (sorted by concurrency, latency)."""
    return {model: entry.get("points") or [] for model, entry in crawl(document, scenario).items()}


def peers(document: Results) -> dict[str, PeerEntry]:
    """derived.peers: per peer, its scenarios' tables (and why it did not run, if so)."""
    return derived(document).get("peers") or {}


def peer_points(document: Results, scenario: str) -> dict[str, list[Point]]:
    """Peer -> its verified points in a crawl scenario, as points() gives a model's."""
    return {
        name: entry["scenarios"][scenario].get("points") or []
        for name, entry in peers(document).items()
        if scenario in (entry.get("scenarios") or {})
    }


def _highlights(document: Results, scenario: str) -> Any:
    """derived.highlights.<scenario>: the figures its chart and verdicts quote; None when the
    scenario did not run. Each scenario's reader below gives it its type."""
    return (derived(document).get("highlights") or {}).get(scenario)


def idle_highlights(document: Results) -> IdleHighlights | None:
    return cast(IdleHighlights | None, _highlights(document, catalog.IDLE.name))


def few_active_highlights(document: Results, scenario: str) -> FewActiveHighlights | None:
    """A few-active scenario's highlights (either connection mode)."""
    return cast(FewActiveHighlights | None, _highlights(document, scenario))


def sleepy_highlights(document: Results, scenario: str) -> SleepyHighlights | None:
    """A sleepy scenario's highlights (either connection mode)."""
    return cast(SleepyHighlights | None, _highlights(document, scenario))


def c100k_highlights(document: Results) -> C100kHighlights | None:
    return cast(C100kHighlights | None, _highlights(document, catalog.C100K.name))


def sweep_highlights(document: Results) -> LatencySweepHighlights | None:
    return cast(LatencySweepHighlights | None, _highlights(document, catalog.LATENCY_SWEEP.name))


def largest_peak_in_flight(document: Results, scenario: str) -> int:
    """The most connections the server saw at once in a sleepy or c100k scenario (0: none)."""
    found = (
        c100k_highlights(document)
        if scenario == catalog.C100K.name
        else sleepy_highlights(document, scenario)
    )
    return found["largest_peak_in_flight"] if found else 0


def comparisons(document: Results) -> Comparisons:
    """derived.comparisons: ratios between models; each is None (or absent, in files written
    before it) when it was not measured."""
    return derived(document).get("comparisons") or cast(Comparisons, {})


def socket_ceiling(document: Results) -> tuple[int | None, str]:
    """Sockets one process can open to one server, and the limit that sets it."""
    ceiling = derived(document).get("socket_ceiling")
    return (ceiling["count"], ceiling["limit"]) if ceiling else (None, "unknown")


# Scenarios that only some profiles run: many-links-keep-alive and both-cores are the
# free-threading profile's, for C8, which is judged beside the runtimes (docs/runtimes.md);
# c100k the full profile's, an hour and more of 100,000 connections.
PROFILE_OWN_SCENARIOS = (
    catalog.MANY_LINKS_KEEP_ALIVE.name,
    catalog.BOTH_CORES.name,
    catalog.C100K.name,
)


def scenarios_not_run(document: Results) -> list[str]:
    """Scenarios with no run at all (derived has a table for every scenario that ran); one of
    PROFILE_OWN_SCENARIOS only when the profile gave it something to run."""
    profile = document.get("profile")
    definition = profile.get("definition") if profile else None
    profiled = {
        s["name"]
        for s in (definition or {}).get("scenarios") or []
        if s.get("points") or s.get("idle") or s.get("loops")
    }
    ran = derived(document)
    return [
        s
        for s in catalog.SCENARIOS
        if s not in ran and (s not in PROFILE_OWN_SCENARIOS or s in profiled)
    ]


# -- runs that did not count -----------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """A measured run that did not count, with what it still tells (for crossed markers)."""

    run_id: str
    scenario: str
    model: str
    status: str
    reason: str
    concurrency: int | None
    latency: Latency | None
    pages_per_s: float | None  # from its crawl document, when it produced one
    plateau_rss_kib: float | None
    cpu_us_per_page: float | None
    noisy: bool = False  # it ran in a noisy round


def problems(document: Results, scenario: str | None = None) -> list[Problem]:
    """Measured runs whose status is not ok (all scenarios, or one)."""
    found = derived(document).get("not_counted") or []
    return [Problem(**p) for p in found if scenario is None or p["scenario"] == scenario]


# Runs never made (the model is missing on this interpreter, or not installed): the report
# lists them once, under "Runs that did not count"; the charts do not cross them out.
NEVER_MADE = frozenset({"skipped", "unavailable"})
# Runs that never ran: never made, or not run again after their point failed twice.
NEVER_RAN = NEVER_MADE | {"not-run"}


def crossed_runs(document: Results, scenario: str) -> list[Problem]:
    """The runs of a scenario that were made and did not count: each chart crosses them out."""
    return [p for p in problems(document, scenario) if p.status not in NEVER_MADE]


# -- memory per connection (sleepy), idle units ----------------------------------------------


def memory_fits(document: Results) -> dict[str, MemoryFit | None]:
    """Per model in sleepy: its memory fit (None: fewer than two points held)."""
    table = crawl(document, catalog.SLEEPY.name)
    return {model: entry.get("memory_per_connection") for model, entry in table.items()}


def idle_entries(document: Results) -> dict[str, IdleEntry]:
    """derived.idle: idle kind -> its entry; {} when the scenario did not run."""
    return idle_table(derived(document))


def units_parked(document: Results) -> dict[str, int]:
    """Per idle kind: the units its counted slope run had parked at its last sample (what it
    reached, as measured; not the count it was asked for)."""
    reached: dict[str, int] = {}
    for run in document.get("runs") or []:
        idle = run.get("idle")
        if run["scenario"] != catalog.IDLE.name or run["status"] != "ok" or not idle:
            continue
        if idle.get("mode") == "slope" and idle.get("points"):
            kind = run["model"]
            reached[kind] = max(reached.get(kind, 0), int(idle["points"][-1]["n"]))
    return reached


def failed_slope_runs(document: Results) -> dict[str, list[tuple[int, str, str | None]]]:
    """Per idle kind: (count asked, status, reason) of every slope run that did not count."""
    return {
        kind: [
            (int(p["count"] or 0), p["status"], p.get("reason"))
            for p in entry.problems
            if p.get("mode") == "slope"
        ]
        for kind, entry in idle_entries(document).items()
    }
