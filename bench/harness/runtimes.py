"""`--pythons`: the key figures of each runtime's results.json side by side (pure; the
report's runtimes.py renders them)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from c10k import catalog
from c10k.stats import recorded_interval, recorded_median

SCHEMA = "c10k-bench-runtimes/1"
RUNTIMES_JSON, RUNTIMES_MD = "runtimes.json", "runtimes.md"
C10K = 10_000  # the sleepy point the C10K throughput is read at (else the largest there is)
FEW_ACTIVE, SLEEPY, IDLE = catalog.FEW_ACTIVE.name, catalog.SLEEPY.name, catalog.IDLE.name
Cell = dict[str, Any]  # {"value", "ci95", "at"} or {"value": None, "missing": why}


def _cell(value: Any, ci95: Any = None, at: int | None = None) -> Cell | None:
    if not isinstance(value, int | float):
        return None
    interval = recorded_interval(ci95)
    return {"value": float(value), "ci95": interval.as_list() if interval else None, "at": at}


def _crawl_points(derived: dict[str, Any], scenario: str) -> dict[str, list[dict[str, Any]]]:
    return {m: e.get("points") or [] for m, e in (derived.get(scenario) or {}).items()}


def _few_active(figure: str) -> Callable[[dict[str, Any]], dict[str, Cell | None]]:
    """A few-active figure (median and interval) at the scenario's largest concurrency."""

    def read(derived: dict[str, Any]) -> dict[str, Cell | None]:
        table = _crawl_points(derived, FEW_ACTIVE)
        top = max((p["concurrency"] for ps in table.values() for p in ps), default=0)
        found: dict[str, Cell | None] = {}
        for model, points in table.items():
            at_top = [p for p in points if p["concurrency"] == top]
            summary = at_top[0].get(figure) if at_top else None
            found[model] = _cell(recorded_median(summary), summary, top) if summary else None
        return found

    return read


def _c10k_share(derived: dict[str, Any]) -> dict[str, Cell | None]:
    """Sleepy's share of the ideal C/L at 10,000 connections (else at its largest C)."""
    found: dict[str, Cell | None] = {}
    for model, points in _crawl_points(derived, SLEEPY).items():
        wide = [p for p in points if p.get("fraction_of_ideal") is not None]
        at = [p for p in wide if p["concurrency"] == C10K] or wide[-1:]
        found[model] = (
            _cell(
                at[0]["fraction_of_ideal"],
                at[0].get("fraction_of_ideal_ci95"),
                at[0]["concurrency"],
            )
            if at
            else None
        )
    return found


def _memory_per_connection(derived: dict[str, Any]) -> dict[str, Cell | None]:
    """Sleepy's fitted memory per connection (RSS and kernel), with its interval."""
    return {
        model: _cell(fit.get("total_bytes"), fit.get("total_bytes_ci95"))
        for model, entry in (derived.get(SLEEPY) or {}).items()
        for fit in [entry.get("memory_per_connection") or {}]
    }


def _idle_unit(derived: dict[str, Any]) -> dict[str, Cell | None]:
    """Memory per idle unit (RSS and kernel), per idle kind."""
    return {
        kind: _cell(entry.get("total_bytes_per_unit"))
        for kind, entry in (derived.get(IDLE) or {}).items()
        if "total_bytes_per_unit" in entry or "problems" in entry
    }


def _thread_ceiling(derived: dict[str, Any]) -> dict[str, Cell | None]:
    """Threads started before the first failure (idle, until-failure)."""
    entry = (derived.get(IDLE) or {}).get(catalog.THREAD.name)
    if entry is None:
        return {}
    return {catalog.THREAD.name: _cell((entry.get("max_threads") or {}).get("count"))}


# figure -> (scenario it needs, unit, higher is better, how to read it from `derived`)
FIGURES: dict[str, tuple[str, str, bool, Callable[[dict[str, Any]], dict[str, Cell | None]]]] = {
    "few_active_cpu_us_per_page": (FEW_ACTIVE, "µs", False, _few_active("cpu_us_per_page")),
    "few_active_pages_per_s": (FEW_ACTIVE, "pages/s", True, _few_active("pages_per_s")),
    "idle_bytes_per_unit": (IDLE, "bytes", False, _idle_unit),
    "memory_per_connection_bytes": (SLEEPY, "bytes", False, _memory_per_connection),
    "c10k_fraction_of_ideal": (SLEEPY, "fraction of C/L", True, _c10k_share),
    "thread_ceiling": (IDLE, "threads", True, _thread_ceiling),
}


def runtime_outcome(
    runtime: dict[str, Any], out: Path, document: dict[str, Any] | None, failure: str | None
) -> dict[str, Any]:
    """One runtime's line in runtimes.json: what it is, how its run ended, its figures."""
    kept = ("tag", "version", "gil_disabled", "executable", "dependencies", "unavailable_models")
    outcome = {k: runtime.get(k) for k in kept}
    if document is None:
        return outcome | {"status": "failed", "reason": failure, "results": None, "figures": {}}
    derived = document.get("derived") or {}
    scenarios = (document.get("profile") or {}).get("scenarios") or []
    figures = {
        name: read(derived)
        for name, (scenario, _, _, read) in FIGURES.items()
        if scenario in scenarios
    }
    return outcome | {
        "status": document.get("status"),
        "reason": None,
        "results": str(out / "results.json"),
        "models": (document.get("profile") or {}).get("models") or [],
        "figures": figures,
    }


def _missing(outcome: dict[str, Any] | None, row: str) -> str:
    """Why a runtime has no figure for a row."""
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
    """Per figure, per model (or idle kind), per runtime tag: the figure with its interval
    and the concurrency it was read at, or why it is missing."""
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
                row: {
                    tag: (by_tag[tag]["figures"].get(name) or {}).get(row)
                    if tag in by_tag and (by_tag[tag]["figures"].get(name) or {}).get(row)
                    else {"value": None, "missing": _missing(by_tag.get(tag), row)}
                    for tag in tags
                }
                for row in rows
            },
        }
    return {
        "schema": SCHEMA,
        "tags": list(tags),
        "runtimes": [{k: v for k, v in o.items() if k != "figures"} for o in outcomes],
        "not_run": [tag for tag in tags if tag not in by_tag],
        "figures": figures,
    }
