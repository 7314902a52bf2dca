"""Every derived figure from the recorded runs alone (`python -m bench.analysis.derive FILE`)."""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any, cast

from bench import results
from bench.analysis.busy import harness_cost
from bench.analysis.memory import memory_fits
from bench.analysis.overview import overview
from bench.analysis.points import (
    PointKey,
    attempts,
    crawl_point,
    measured_ok,
    point_key,
    runs_by_status,
    sort_key,
    split_url_points,
)
from c10k import catalog, probes
from c10k.stats import recorded_median, summarize


def derive_crawl_scenario(
    runs: list[dict[str, Any]], scenario: str, fit_min_concurrency: int | None
) -> dict[str, Any]:
    valid = measured_ok(runs, scenario)
    models = sorted({r["model"] for r in runs if r["scenario"] == scenario})
    table: dict[str, Any] = {}
    for model in models:
        groups: dict[PointKey, list[dict[str, Any]]] = defaultdict(list)
        for r in valid:
            if r["model"] == model:
                groups[point_key(r)].append(r)
        base, extra = list(groups), list[PointKey]()
        if fit_min_concurrency is not None:
            base, extra = split_url_points(groups)
        points = [crawl_point(groups[key]) for key in sorted(base, key=sort_key)]
        entry: dict[str, Any] = {
            "runs_by_status": runs_by_status(runs, scenario, model),
            "points": points,
        }
        if extra:
            entry["url_points"] = [crawl_point(groups[k]) for k in sorted(extra, key=sort_key)]
        if fit_min_concurrency is not None:
            entry |= memory_fits(
                groups, base, extra, fit_min_concurrency, attempts(runs, scenario, model)
            )
        table[model] = entry
    return table


def _idle_slope(idle: dict[str, Any]) -> dict[str, Any]:
    """The figures of one idle slope run: per-unit costs, their totals, how fast units started."""
    per_unit = idle["per_unit"]
    kernel_parts = {name: per_unit[f"{name}_bytes"] for name in probes.KERNEL_GROWTH_FIELDS}
    # Machine-wide deltas: a negative share is noise from other processes, not a saving.
    kernel = sum(max(0.0, v) for v in kernel_parts.values() if _finite(v))
    rss = per_unit["rss_bytes"]
    last = idle["points"][-1]
    seconds = last["elapsed_s"]
    return {
        "count": idle["count"],
        "rss_bytes_per_unit": rss,
        "rss_r2": per_unit["rss_r2"],
        "kernel_bytes_per_unit": kernel_parts,
        "kernel_total_bytes_per_unit": kernel,
        "total_bytes_per_unit": None if rss is None else rss + kernel,
        "start_us_per_unit": per_unit["start_us"],
        "seconds_to_start_all": seconds,
        "start_rate_per_s": idle["count"] / seconds if seconds and seconds > 0 else None,
        "rss_kib_at_count": last["rss_kib"],
    }


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


def derive_noise_floor(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The fixed CPU loop's CPU and wall seconds over its fresh processes: their CV is how
    much this machine alone moves a CPU figure (no crawl can be steadier)."""
    loops = [
        r["loop"] for r in runs if r["scenario"] == catalog.NOISE_FLOOR.name and r["status"] == "ok"
    ]
    return {
        "runs": len(loops),
        "cpu_s": summarize([loop["cpu_s"] for loop in loops]).as_dict(),
        "wall_s": summarize([loop["wall_s"] for loop in loops]).as_dict(),
    }


def derive_idle(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per idle kind: RSS, kernel memory, tracemalloc and start time per unit; thread ceiling."""
    table: dict[str, Any] = {}
    for r in runs:
        if r["scenario"] != catalog.IDLE.name:
            continue
        entry = table.setdefault(r["model"], {})
        mode = r["params"]["mode"]
        if r["status"] != "ok":
            entry.setdefault("problems", []).append(
                {
                    "mode": mode,
                    "count": r["params"].get("count"),
                    "processes": r["params"].get("processes", 1),
                    "status": r["status"],
                    "reason": r["reason"],
                }
            )
            continue
        idle = r["idle"]
        if mode == "until-failure":
            failure = idle["failure"]
            processes = r["params"].get("processes", 1)
            # One process: its own ceiling (C3); several at once: the machine's (C5).
            name = "max_threads_machine" if processes > 1 else "max_threads"
            entry[name] = {
                key: failure[key]
                for key in ("count", "stopped_by", "error", "errno", "cap", "elapsed_s")
            } | {"context": failure["context"], "processes": processes}
            if processes > 1:
                entry[name]["per_process"] = failure.get("processes")
        elif mode == "tracemalloc":
            entry["tracemalloc_bytes_per_unit"] = idle["per_unit"].get("tracemalloc_bytes")
            entry["tracemalloc_count"] = idle["count"]
        else:
            entry |= _idle_slope(idle)
    return table


def derive_instructions(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per model and for the core replay: callgrind instructions per page (the median of its
    counted runs), and the core's share of each model's."""
    name = catalog.INSTRUCTIONS.name
    table: dict[str, Any] = {}
    for model in sorted({r["model"] for r in runs if r["scenario"] == name}):
        counted = [r for r in measured_ok(runs, name) if r["model"] == model]
        entry: dict[str, Any] = {"runs_by_status": runs_by_status(runs, name, model)}
        if counted:
            params = counted[0]["params"]
            entry |= {
                "instructions_per_page": summarize(
                    [r["instructions"]["per_page"] for r in counted]
                ).as_dict(),
                "pages": counted[0]["instructions"]["pages"],
                "startup_instructions": counted[0]["instructions"]["startup_ir"],
                "concurrency": params["concurrency"],
                "site_pages": params["server"]["pages"],
            }
        table[model] = entry
    core = recorded_median(table.get(catalog.CORE_REPLAY, {}).get("instructions_per_page"))
    for model, entry in table.items():
        mine = recorded_median(entry.get("instructions_per_page"))
        if model != catalog.CORE_REPLAY and core and mine:
            entry["core_share"] = core / mine
    return table


def fit_thresholds(document: dict[str, Any]) -> dict[str, int]:
    """Per scenario with a memory fit, its lowest concurrency, as the profile recorded it."""
    definition = (document.get("profile") or {}).get("definition") or {}
    return {
        s["name"]: s["fit_min_concurrency"]
        for s in definition.get("scenarios") or []
        if s.get("fit_min_concurrency")
    }


def derive(
    runs: list[dict[str, Any]],
    fit_min: dict[str, int],
    environment: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Every derived figure; fit_min maps scenarios with a memory fit to its lowest C.

    A peer's runs never enter the models' tables (nor any comparison or verdict read from
    them): they get their own section, `peers`, the report's reference rows."""
    everything = runs
    runs = [r for r in everything if r["model"] not in catalog.PEERS]
    tables: dict[str, Any] = {}
    scenarios = []
    for r in runs:
        if r["scenario"] not in scenarios:
            scenarios.append(r["scenario"])
    for scenario in scenarios:
        if scenario == catalog.IDLE.name:
            tables[scenario] = derive_idle(runs)
        elif scenario == catalog.NOISE_FLOOR.name:
            tables[scenario] = derive_noise_floor(runs)
        elif scenario == catalog.INSTRUCTIONS.name:
            tables[scenario] = derive_instructions(runs)
        else:
            tables[scenario] = derive_crawl_scenario(runs, scenario, fit_min.get(scenario))
    return (
        tables
        | overview(tables, everything, environment or {})
        | {"peers": derive_peers(everything, fit_min), "harness_cost": harness_cost(everything)}
    )


def derive_peers(runs: list[dict[str, Any]], fit_min: dict[str, int]) -> dict[str, Any]:
    """Per peer and scenario, the same table as a model's, plus `by_point`: each point's
    runs by status and the deviations they counted (summed), verified or not; per peer, why
    it did not run."""
    peers: dict[str, Any] = {}
    for name in catalog.PEERS:
        mine = [r for r in runs if r["model"] == name and r["kind"] == "measured"]
        if not mine:
            continue
        entry: dict[str, Any] = {"scenarios": {}}
        if all(r["status"] == "skipped" for r in mine):
            entry["not_run"] = mine[0].get("reason")
        for scenario in dict.fromkeys(r["scenario"] for r in mine):
            table = derive_crawl_scenario(mine, scenario, fit_min.get(scenario)).get(name, {})
            groups: dict[PointKey, list[dict[str, Any]]] = defaultdict(list)
            for r in mine:
                if r["scenario"] == scenario and r.get("params"):
                    groups[point_key(r)].append(r)
            table["by_point"] = [
                {
                    "site": group[0]["params"]["server"].get("preset")
                    or group[0]["params"]["server"]["shape"],
                    "concurrency": key[0],
                    "latency": key[1],
                    "runs_by_status": dict(Counter(r["status"] for r in group)),
                    "deviations": _summed(
                        (r.get("verification") or {}).get("deviations") or {} for r in group
                    ),
                }
                for key, group in sorted(groups.items(), key=lambda kv: sort_key(kv[0]))
            ]
            entry["scenarios"][scenario] = table
        peers[name] = entry
    return peers


def _summed(found: Iterable[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Deviations of several runs added up: counted (by the peer) and differences."""
    total: dict[str, dict[str, int]] = {"counted": {}, "differences": {}}
    for deviations in found:
        for part in total:
            for kind, n in (deviations.get(part) or {}).items():
                total[part][kind] = total[part].get(kind, 0) + n
    return total


def derive_document(document: results.Results) -> results.Derived:
    """The derived section of a results document, from its runs, profile and environment."""
    runs = cast(list[dict[str, Any]], document["runs"])
    environment = cast(dict[str, Any], document["environment"])
    return cast(results.Derived, derive(runs, fit_thresholds(dict(document)), environment))


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
