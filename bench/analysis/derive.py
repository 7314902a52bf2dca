"""Every derived figure from the recorded runs alone (`python -m bench.analysis.derive FILE`)."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path
from typing import Any, cast

from bench import results
from bench.analysis.busy import harness_cost
from bench.analysis.memory import add_memory_fits
from bench.analysis.overview import not_run, overview
from bench.analysis.points import (
    Group,
    attempts,
    crawl_point,
    grouped,
    measured_ok,
    runs_by_status,
    sort_key,
    split_url_points,
)
from bench.analysis.ratios import per_page
from bench.results import (
    CrawlTable,
    Derived,
    Deviations,
    Environment,
    IdleDocument,
    IdleEntry,
    IdleTable,
    InstructionsTable,
    ModelTable,
    NoiseFloor,
    PeerEntry,
    PeerPoint,
    PeerScenario,
    Results,
    Run,
    ScenarioTable,
    ThreadCeiling,
    with_tables,
)
from c10k import catalog, probes
from c10k.fits import linear_fit
from c10k.quantity import FIT, Interval, Quantity, known
from c10k.stats import summarize
from c10k.words import KIB


def derive_crawl_scenario(
    runs: list[Run], scenario: str, fit_min_concurrency: int | None
) -> CrawlTable:
    valid = measured_ok(runs, scenario)
    models = sorted({r["model"] for r in runs if r["scenario"] == scenario})
    table: CrawlTable = {}
    for model in models:
        groups = grouped(r for r in valid if r["model"] == model)
        base, extra = list(groups), list[Group]()
        if fit_min_concurrency is not None:
            base, extra = split_url_points(groups)
        points = [crawl_point(groups[key]) for key in sorted(base, key=sort_key)]
        entry: ModelTable = {
            "runs_by_status": runs_by_status(runs, scenario, model),
            "points": points,
        }
        if extra:
            entry["url_points"] = [crawl_point(groups[k]) for k in sorted(extra, key=sort_key)]
        if fit_min_concurrency is not None:
            add_memory_fits(
                entry,
                groups,
                base,
                extra,
                fit_min_concurrency,
                attempts(runs, scenario, model),
                attempts(runs, scenario, model, noisy=True),
            )
        table[model] = entry
    return table


def _idle_slope(idle: IdleDocument) -> dict[str, Any]:
    """One idle slope run's costs per unit. The held total is one least-squares fit of RSS +
    kernel memory (machine-wide, as measured: a share that shrank is kept) against the units
    parked, its interval the fit's; the start rate and its interval are the inverse of the
    fitted seconds per unit and of theirs (docs/results.md)."""
    per_unit, steps = idle["per_unit"], idle["points"]
    units = [float(p["n"]) for p in steps]
    kernel_parts = {
        name: known(linear_fit(units, [p["meminfo_kib"].get(name, 0) * KIB for p in steps]).slope)
        for name in probes.KERNEL_GROWTH_FIELDS
    }
    held = linear_fit(units, [_held_bytes(p) for p in steps])
    start = linear_fit(units, [p["elapsed_s"] for p in steps])
    rss, last = per_unit["rss_bytes"], steps[-1]
    start_rate = 1 / start.slope if start.slope > 0 else None
    return {
        "count": idle["count"],
        "rss_bytes_per_unit": rss,
        "rss_r2": per_unit["rss_r2"],
        "kernel_bytes_per_unit": kernel_parts,
        "kernel_total_bytes_per_unit": sum(v for v in kernel_parts.values() if v is not None),
        "total_bytes_per_unit": held.recorded().slope,
        "start_us_per_unit": per_unit["start_us"],
        "seconds_to_start_all": last["elapsed_s"],
        "start_rate_per_s": Quantity(
            start_rate, _inverse(start.slope_ci95), FIT, start.n, "per-second"
        ),
        "rss_kib_at_count": last["rss_kib"],
        "parked": int(last["n"]),
    }


def _held_bytes(step: Mapping[str, Any]) -> float:
    """RSS + the kernel memory that grows with units (stacks, slab, page tables), in bytes."""
    kernel = sum(step["meminfo_kib"].get(name, 0) for name in probes.KERNEL_GROWTH_FIELDS)
    return float(step["rss_kib"] + kernel) * KIB


def _inverse(interval: Interval | None) -> Interval | None:
    """1/x over an interval of positive x: a slope's interval as a rate's."""
    if interval is None or interval.low <= 0:
        return None
    return Interval(1 / interval.high, 1 / interval.low)


def derive_noise_floor(runs: list[Run]) -> NoiseFloor:
    """The fixed CPU loop's CPU and wall seconds over its fresh processes: their CV is how
    much this machine alone moves a CPU figure (no crawl can be steadier)."""
    loops = [
        r["loop"] for r in runs if r["scenario"] == catalog.NOISE_FLOOR.name and r["status"] == "ok"
    ]
    return {
        "runs": len(loops),
        "cpu_s": summarize([loop["cpu_s"] for loop in loops], "s"),
        "wall_s": summarize([loop["wall_s"] for loop in loops], "s"),
    }


def derive_idle(runs: list[Run]) -> IdleTable:
    """Per idle kind: RSS, kernel memory, tracemalloc and start time per unit; thread ceiling."""
    found: dict[str, dict[str, Any]] = {}
    for r in runs:
        if r["scenario"] != catalog.IDLE.name:
            continue
        entry = found.setdefault(r["model"], {})
        params = r["params"]
        mode = params["mode"]
        if r["status"] != "ok":
            entry.setdefault("problems", []).append(
                {
                    "mode": mode,
                    "count": params.get("count"),
                    "processes": params["processes"],
                    "status": r["status"],
                    "reason": r["reason"],
                }
            )
            continue
        idle = r["idle"]
        if mode == "until-failure":
            processes = params["processes"]
            # One process: its own ceiling (C3); several at once: the machine's (C5).
            key = "max_threads_machine" if processes > 1 else "max_threads"
            entry[key] = thread_ceiling(idle, processes)
        elif mode == "tracemalloc":
            entry["tracemalloc_bytes_per_unit"] = idle["per_unit"].get("tracemalloc_bytes")
            entry["tracemalloc_count"] = idle["count"]
        else:
            entry |= _idle_slope(idle)
    return {kind: IdleEntry(**fields) for kind, fields in found.items()}


# The thread-ceiling program (impls/tools/thread_ceiling.py) stops at "cap" when it reached the
# harness's own ceiling; every other stopped_by names a limit (or the harness stepping back just
# before one), "per-process ..." one of each process's own, whichever words the program uses.
HARNESS_CAP = "cap"


def thread_ceiling(idle: IdleDocument, processes: int) -> ThreadCeiling:
    """Threads started until one failed, in one process or in several at once."""
    failure = idle["failure"]
    stopped = str(failure["stopped_by"])
    copied = ("count", "stopped_by", "error", "errno", "cap", "elapsed_s", "context")
    found = cast(ThreadCeiling, {key: failure[key] for key in copied})
    found |= {
        "processes": processes,
        "capped": stopped == HARNESS_CAP,
        "machine_limit": stopped != HARNESS_CAP and not stopped.startswith("per-process"),
    }
    if processes > 1:
        found["per_process"] = failure.get("processes")
    return found


def derive_instructions(runs: list[Run]) -> InstructionsTable:
    """Per model and for the core replay: callgrind instructions per page (the median of its
    counted runs), and the core's share of each model's."""
    name = catalog.INSTRUCTIONS.name
    table: InstructionsTable = {}
    for model in sorted({r["model"] for r in runs if r["scenario"] == name}):
        counted = [r for r in measured_ok(runs, name) if r["model"] == model]
        table[model] = {"runs_by_status": runs_by_status(runs, name, model)}
        if counted:
            params = counted[0]["params"]
            table[model].update(
                {
                    "instructions_per_page": summarize(
                        [r["instructions"]["per_page"] for r in counted], "instructions/page"
                    ),
                    "pages": counted[0]["instructions"]["pages"],
                    "startup_instructions": counted[0]["instructions"]["startup_ir"],
                    "concurrency": params["concurrency"],
                    "site_pages": params["server"]["pages"],
                }
            )
    core = per_page(table, catalog.CORE_REPLAY)
    for model, entry in table.items():
        mine = per_page(table, model)
        if model != catalog.CORE_REPLAY and core and mine:
            entry["core_share"] = core / mine
    return table


def fit_thresholds(document: Results) -> dict[str, int]:
    """Per scenario with a memory fit, its lowest concurrency, as the profile recorded it."""
    return {
        s["name"]: s["fit_min_concurrency"]
        for s in document["profile"]["definition"]["scenarios"]
        if s.get("fit_min_concurrency")
    }


def profiled_scenarios(document: Results) -> set[str]:
    """The scenarios the profile gave something to run: points, idle kinds or loops."""
    return {
        s["name"]
        for s in document["profile"]["definition"]["scenarios"]
        if s.get("points") or s.get("idle") or s.get("loops")
    }


# The scenarios that are not crawl points, each with the table of its own kind.
OWN_TABLES: dict[str, Callable[[list[Run]], ScenarioTable]] = {
    catalog.IDLE.name: derive_idle,
    catalog.NOISE_FLOOR.name: derive_noise_floor,
    catalog.INSTRUCTIONS.name: derive_instructions,
}


def derive(
    runs: list[Run],
    fit_min: Mapping[str, int],
    environment: Environment | None = None,
    profiled: Collection[str] = (),
) -> Derived:
    """Every derived figure; fit_min maps scenarios with a memory fit to its lowest C, profiled
    names the scenarios the profile gave something to run (profiled_scenarios). A peer's runs
    never enter the models' tables, comparisons or verdicts: they get their own section,
    `peers`. A round's sentinel only says whether its round was noisy (`rounds`)."""
    everything = runs
    runs = [r for r in everything if r["model"] not in catalog.PEERS and r["kind"] != "sentinel"]
    tables: dict[str, ScenarioTable] = {}
    for scenario in dict.fromkeys(r["scenario"] for r in runs):
        own = OWN_TABLES.get(scenario)
        tables[scenario] = (
            own(runs) if own else derive_crawl_scenario(runs, scenario, fit_min.get(scenario))
        )
    rest: Derived = {
        **overview(tables, everything, environment),
        "not_run": not_run(tables, profiled),
        "peers": derive_peers(everything, fit_min),
        "harness_cost": harness_cost(everything),
    }
    return with_tables(tables, rest)


def derive_peers(runs: list[Run], fit_min: Mapping[str, int]) -> dict[str, PeerEntry]:
    """Per peer and scenario, the same table as a model's, plus `by_point`: each point's
    runs by status and the deviations they counted (summed), verified or not; per peer, why
    it did not run."""
    peers: dict[str, PeerEntry] = {}
    for name in catalog.PEERS:
        mine = [r for r in runs if r["model"] == name and r["kind"] == "measured"]
        if not mine:
            continue
        entry: PeerEntry = {"scenarios": {}}
        if all(r["status"] == "skipped" for r in mine):
            entry["not_run"] = mine[0].get("reason")
        for scenario in dict.fromkeys(r["scenario"] for r in mine):
            table = derive_crawl_scenario(mine, scenario, fit_min.get(scenario))[name]
            groups = grouped(r for r in mine if r["scenario"] == scenario and r.get("params"))
            by_point = [_peer_point(key, groups[key]) for key in sorted(groups, key=sort_key)]
            entry["scenarios"][scenario] = PeerScenario(**table, by_point=by_point)
        peers[name] = entry
    return peers


def _peer_point(key: Group, group: list[Run]) -> PeerPoint:
    """A peer's point: its runs by status, verified or not, and their deviations summed."""
    server = group[0]["params"]["server"]
    return {
        "site": server.get("preset") or server["shape"],
        "concurrency": key[0],
        "latency": key[1],
        "runs_by_status": dict(Counter(r["status"] for r in group)),
        "deviations": _summed(
            verification.get("deviations") if (verification := r.get("verification")) else None
            for r in group
        ),
    }


def _summed(found: Iterable[Deviations | None]) -> Deviations:
    """Deviations of several runs added up: counted (by the peer) and differences."""
    counted: Counter[str] = Counter()
    differences: Counter[str] = Counter()
    for deviations in filter(None, found):
        counted.update(deviations["counted"])
        differences.update(deviations["differences"])
    return {"counted": dict(counted), "differences": dict(differences)}


def derive_document(document: Results) -> Derived:
    """The derived section of a results document, from its runs, profile and environment."""
    runs, environment = document["runs"], document["environment"]
    return derive(runs, fit_thresholds(document), environment, profiled_scenarios(document))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m bench.analysis.derive",
        description="Recompute the derived section of a results file from its recorded runs.",
    )
    p.add_argument("results", type=Path, help="the results.json to rewrite in place")
    args = p.parse_args(argv)
    try:
        document = results.load(args.results)
    except ValueError as exc:
        sys.stderr.write(f"bench.analysis.derive: error: {exc}\n")
        return 2
    try:
        document["derived"] = derive_document(document)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        # A hand-edited or truncated run record: say which file, not a traceback.
        reason = f"{type(exc).__name__}: {exc}".replace("\n", " ")
        sys.stderr.write(
            f"bench.analysis.derive: error: {args.results} holds a run it cannot read ({reason})\n"
        )
        return 2
    results.write_atomic(args.results, document)
    print(f"derived: {args.results} ({len(document['runs'])} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
