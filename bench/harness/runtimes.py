"""`--pythons`: each runtime's key figures side by side in runtimes.json (main: written again)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bench.analysis.ratios import Figure, point_ratio
from bench.arguments import OneLineParser
from bench.harness.both_cores import RATIO_FIGURES, Cell, both_cores, cell
from bench.results import (
    RUNTIMES_SCHEMA,
    Derived,
    Point,
    Results,
    crawl_table,
    idle_table,
    load,
    load_runtimes,
    scenario_points,
    write_atomic,
)
from c10k import catalog
from c10k.stats import Ratio, ratio_quantity

C10K = 10_000  # the sleepy point the C10K throughput is read at (else the largest there is)
FEW_ACTIVE, SLEEPY, IDLE = catalog.FEW_ACTIVE.name, catalog.SLEEPY.name, catalog.IDLE.name
# C8's scenarios: the pages/s and CPU per page of each model, free-threaded over GIL.
FREE_THREADING_SCENARIOS = (FEW_ACTIVE, catalog.MANY_LINKS_KEEP_ALIVE.name)
POINTS_KEPT = (*FREE_THREADING_SCENARIOS, catalog.BOTH_CORES.name)


def _few_active(figure: Figure) -> Callable[[Derived], dict[str, Cell | None]]:
    """A few-active figure at the scenario's largest concurrency."""

    def read(derived: Derived) -> dict[str, Cell | None]:
        table = scenario_points(derived, FEW_ACTIVE)
        top = max((p["concurrency"] for ps in table.values() for p in ps), default=0)
        found: dict[str, Cell | None] = {}
        for model, points in table.items():
            at_top = [p for p in points if p["concurrency"] == top]
            found[model] = cell(at_top[0].get(figure), top) if at_top else None
        return found

    return read


def _c10k_share(derived: Derived) -> dict[str, Cell | None]:
    """Sleepy's share of the ideal C/L at 10,000 connections (else at its largest C)."""
    found: dict[str, Cell | None] = {}
    for model, points in scenario_points(derived, SLEEPY).items():
        wide = [p for p in points if p.get("fraction_of_ideal") is not None]
        at = [p for p in wide if p["concurrency"] == C10K] or wide[-1:]
        found[model] = cell(at[0].get("fraction_of_ideal"), at[0]["concurrency"]) if at else None
    return found


NOT_FITTED = "not fitted: the profile has no sleepy points from C 1,000 up (quick)"


def _memory_per_connection(derived: Derived) -> dict[str, Cell | None]:
    """Sleepy's fitted memory per connection (RSS and kernel); a profile without a fit
    (quick) says so rather than leave the cell to read as a failed run."""
    return {
        model: cell(fit.total_bytes)
        if (fit := entry.get("memory_per_connection")) is not None
        else {"value": None, "missing": NOT_FITTED}
        for model, entry in crawl_table(derived, SLEEPY).items()
    }


def _idle_unit(derived: Derived) -> dict[str, Cell | None]:
    """Memory per idle unit (RSS and kernel), per idle kind."""
    return {
        kind: cell(entry.total_bytes_per_unit)
        for kind, entry in idle_table(derived).items()
        if entry.total_bytes_per_unit is not None or entry.problems
    }


def _thread_ceiling(derived: Derived) -> dict[str, Cell | None]:
    entry = idle_table(derived).get(catalog.THREAD.name)
    if entry is None:
        return {}
    ceiling = entry.max_threads
    if ceiling and ceiling.get("stopped_by") == "cap":  # the harness stopped first: no ceiling
        return {
            catalog.THREAD.name: {
                "value": None,
                "missing": f"not reached: the profile stops at {ceiling.get('count'):,} threads",
            }
        }
    return {catalog.THREAD.name: cell(ceiling.get("count") if ceiling else None)}


# figure -> (scenario it needs, unit, higher is better, how to read it from `derived`)
FIGURES: dict[str, tuple[str, str, bool, Callable[[Derived], dict[str, Cell | None]]]] = {
    "few_active_cpu_us_per_page": (FEW_ACTIVE, "µs", False, _few_active("cpu_us_per_page")),
    "few_active_pages_per_s": (FEW_ACTIVE, "pages/s", True, _few_active("pages_per_s")),
    "idle_bytes_per_unit": (IDLE, "bytes", False, _idle_unit),
    "memory_per_connection_bytes": (SLEEPY, "bytes", False, _memory_per_connection),
    "c10k_fraction_of_ideal": (SLEEPY, "fraction of C/L", True, _c10k_share),
    "thread_ceiling": (IDLE, "threads", True, _thread_ceiling),
}


def gil_at_end(document: Results) -> dict[str, Any]:
    """Per scenario and model, the crawls, those that ended with the GIL off, and the ids of
    those that ended with it on or did not say (the crawl JSON's python.gil_enabled)."""
    found: dict[str, Any] = {}
    for run in document.get("runs") or []:
        crawl = run.get("crawl")
        if not crawl:
            continue
        entry = found.setdefault(run["scenario"], {}).setdefault(
            run["model"], {"crawls": 0, "gil_disabled": 0, "gil_enabled": [], "unknown": []}
        )
        on = (crawl.get("python") or {}).get("gil_enabled")
        entry["crawls"] += 1
        if on is False:
            entry["gil_disabled"] += 1
        else:
            entry["gil_enabled" if on else "unknown"].append(run["id"])
    return found


def runtime_outcome(
    runtime: Mapping[str, Any], out: Path, document: Results | None, failure: str | None
) -> dict[str, Any]:
    kept = ("tag", "version", "gil_disabled", "executable", "dependencies", "unavailable_models")
    outcome = {k: runtime.get(k) for k in kept}
    if document is None:
        return outcome | {"status": "failed", "reason": failure, "results": None, "figures": {}}
    derived = document["derived"]
    scenarios = document["profile"]["scenarios"]
    figures = {
        name: read(derived)
        for name, (scenario, _, _, read) in FIGURES.items()
        if scenario in scenarios
    }
    return outcome | {
        "status": document["status"],
        "reason": None,
        # Relative to runtimes.json (DIR/<tag>/results.json), so that the folder can move.
        "results": f"{out.name}/results.json",
        "models": document["profile"]["models"],
        "gil_at_end": gil_at_end(document),
        "figures": figures,
        # What the free-threading comparison pairs by round and the both-cores block reads
        # (not written to runtimes.json).
        "points": {s: scenario_points(derived, s) for s in POINTS_KEPT},
    }


def _cell_at(outcome: dict[str, Any] | None, name: str, row: str) -> Cell:
    found = ((outcome or {}).get("figures", {}).get(name) or {}).get(row)
    return found or {"value": None, "missing": _missing(outcome, row)}


def _missing(outcome: dict[str, Any] | None, row: str) -> str:
    if outcome is None:
        return "not run"
    if outcome["status"] == "failed":
        return f"runtime failed: {outcome['reason']}"
    if why := (outcome.get("unavailable_models") or {}).get(row):
        return f"unavailable: {why}"
    if outcome["status"] != "complete":
        return f"no verified run (the run was {outcome['status']})"
    return "no verified run"


def compare_runtimes(outcomes: Sequence[dict[str, Any]], tags: Sequence[str]) -> dict[str, Any]:
    """Per figure, per model (or idle kind), per runtime tag: its cell, or why it has none."""
    by_tag = {o["tag"]: o for o in outcomes}
    figures: dict[str, Any] = {}
    for name, (scenario, unit, higher_is_better, _) in FIGURES.items():
        measured = [o for o in outcomes if name in o["figures"]]
        if not measured:
            continue
        rows = list(dict.fromkeys(r for o in measured for r in o["figures"][name]))
        if scenario != IDLE:  # every model asked for, measured or not
            asked = [m for o in measured for m in o.get("models") or []]
            rows = catalog.model_order(list(dict.fromkeys([*rows, *asked])))
        else:
            rows = catalog.idle_order(rows)
        figures[name] = {
            "scenario": scenario,
            "unit": unit,
            "higher_is_better": higher_is_better,
            "rows": {
                row: {tag: _cell_at(by_tag.get(tag), name, row) for tag in tags} for row in rows
            },
        }
    return {
        "schema": RUNTIMES_SCHEMA,
        "tags": list(tags),
        "runtimes": [
            {k: v for k, v in o.items() if k not in ("figures", "points")} for o in outcomes
        ],
        "not_run": [tag for tag in tags if tag not in by_tag],
        "figures": figures,
        "free_threading": free_threading(outcomes),
        "both_cores": both_cores(outcomes),
    }


def ratio_over_runtimes(mine: list[Point], theirs: list[Point]) -> dict[str, Any] | None:
    """Per shared concurrency, mine over theirs for pages/s and CPU per page, paired by round;
    over the points, the geometric mean of each with its 95% interval. None when no point is
    shared."""
    by_c = {int(p["concurrency"]): p for p in theirs}
    points: list[dict[str, Any]] = []
    kept: dict[Figure, list[Ratio]] = {figure: [] for figure in RATIO_FIGURES}
    for point in sorted(mine, key=lambda p: p["concurrency"]):
        other = by_c.get(int(point["concurrency"]))
        if other is None:
            continue
        row: dict[str, Any] = {"concurrency": int(point["concurrency"])}
        for figure in RATIO_FIGURES:
            ratio = point_ratio(point, other, figure)
            row[figure] = ratio.quantity() if ratio else None
            if ratio is not None:
                kept[figure].append(ratio)
        points.append(row)
    if not points:
        return None
    found: dict[str, Any] = {"points": points, "concurrencies": [p["concurrency"] for p in points]}
    for figure, ratios in kept.items():
        found[figure] = ratio_quantity(ratios) if ratios else None
    return found


def _idle_thread(outcome: dict[str, Any]) -> Cell | None:
    return (outcome["figures"].get("idle_bytes_per_unit") or {}).get(catalog.THREAD.name)


def free_threading_pair(gil: dict[str, Any], free: dict[str, Any]) -> dict[str, Any]:
    """The free-threaded runtime over the GIL one: per model and scenario, the ratios; the
    idle thread's bytes on each; whether the GIL stayed off in the free-threaded crawls."""
    models: dict[str, Any] = {}
    for scenario in FREE_THREADING_SCENARIOS:
        theirs = gil["points"].get(scenario) or {}
        for model, points in (free["points"].get(scenario) or {}).items():
            if found := ratio_over_runtimes(points, theirs.get(model) or []):
                models.setdefault(model, {})[scenario] = found
    return {
        "version": free["version"],
        "gil": gil["tag"],
        "free_threaded": free["tag"],
        "models": {m: models[m] for m in catalog.model_order(list(models))},
        "idle_thread_bytes": {"gil": _idle_thread(gil), "free_threaded": _idle_thread(free)},
        "gil_at_end": free.get("gil_at_end"),
    }


def free_threading(outcomes: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """free_threading_pair for each pair of runtimes that ran, of one version, that differ
    only in the GIL (3.14 and 3.14t)."""
    ran = [o for o in outcomes if o.get("status") != "failed" and "points" in o]
    return [
        free_threading_pair(gil, free)
        for gil in ran
        if not gil.get("gil_disabled")
        for free in ran
        if free.get("gil_disabled") and free.get("version") == gil.get("version")
    ]


def _outcome_again(entry: Any, path: Path) -> dict[str, Any]:
    """One runtime's outcome from its results.json, or as recorded when its run failed;
    ValueError naming the file that cannot be read."""
    folder = path.parent
    if not isinstance(entry, dict) or not isinstance(entry.get("tag"), str):
        raise ValueError(f"{path}: a runtime that is not one: {entry!r:.60}")
    if not entry.get("results"):
        return entry | {"figures": {}}
    results = folder / str(entry["results"])
    document = load(results)
    try:
        return runtime_outcome(document["runtime"], folder / entry["tag"], document, None)
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"{results} lacks a field runtimes.json is made of ({exc})") from None


def side_by_side_again(path: Path) -> dict[str, Any]:
    """runtimes.json at path written again by this checkout from each runtime's results.json
    beside it (derived first: `python -m bench.analysis.derive`); a runtime that failed to
    run stays as recorded. ValueError with a one-line reason when a file is unreadable."""
    before = load_runtimes(path)
    entries, tags = before.get("runtimes"), before.get("tags")
    if not isinstance(entries, list) or not isinstance(tags, list):
        raise ValueError(f"{path} has no runtimes and tags lists")
    return compare_runtimes([_outcome_again(e, path) for e in entries], tags)


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(
        prog="python -m bench.harness.runtimes",
        description="Write runtimes.json again from each runtime's DIR/<tag>/results.json.",
    )
    parser.add_argument("runtimes", type=Path, help="the DIR/runtimes.json to rewrite in place")
    path: Path = parser.parse_args(argv).runtimes
    try:
        write_atomic(path, side_by_side_again(path))
    except ValueError as exc:
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
    print(f"side by side again: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
