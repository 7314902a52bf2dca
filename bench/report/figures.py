"""What the report still reads beside derived's figures: thread ceilings, scenarios, idle runs."""

from __future__ import annotations

from bench.results import Results, ThreadCeiling, idle_table
from c10k import catalog

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
    ran = document["derived"]
    return [
        s
        for s in catalog.SCENARIOS
        if s not in ran and (s not in PROFILE_OWN_SCENARIOS or s in profiled)
    ]


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
        for kind, entry in idle_table(document["derived"]).items()
    }
