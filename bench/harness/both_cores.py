"""runtimes.json's both_cores block: each answer to "use both cores", which leads, what C buys."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from bench.analysis.ratios import Figure, point_ratio
from bench.results import Point
from c10k import catalog
from c10k.fits import replicated_fit
from c10k.quantity import Quantity

# A runtimes.json figure: {"value", "ci95", "at"}, or {"value": None, "missing"}.
Cell = dict[str, Any]
BOTH_CORES = catalog.BOTH_CORES.name
KIB = 1024.0
# An answer's identity within a runtime: its model, its core and its processes.
AnswerKey = tuple[str, str, int]
# What names an answer in the lead: enough for the report's label of it.
IDENTITY = ("model", "runtime", "gil_disabled", "processes", "interpreters")
# The figures compared as ratios, paired by round: here and between runtimes (C8).
RATIO_FIGURES: tuple[Figure, ...] = ("pages_per_s", "cpu_us_per_page")


def cell(found: Quantity | float | None, at: int | None = None) -> Cell | None:
    """The figure (a quantity, with its interval, or a bare number) and the concurrency it
    was read at; None without a value."""
    value, interval = (
        (found.value, found.interval) if isinstance(found, Quantity) else (found, None)
    )
    if not isinstance(value, int | float):
        return None
    return {"value": float(value), "ci95": interval.as_list() if interval else None, "at": at}


def peak_rss_slope(points: Sequence[Point]) -> Cell:
    """Memory per connection: the least-squares slope of each run's peak RSS (the crawl's
    max_rss_kib; over its processes, their sum) against concurrency, with its 95% interval,
    over every run of the answer's points; missing with why when it cannot be fitted."""
    pairs = [
        (float(p["concurrency"]), r["max_rss_kib"] * KIB)
        for p in points
        for r in p["rounds"]
        if r.get("max_rss_kib") is not None
    ]
    concurrencies = sorted({int(c) for c, _ in pairs})
    if len(concurrencies) < 2:
        return {"value": None, "missing": "peak RSS at fewer than two concurrencies"}
    fit = replicated_fit([c for c, _ in pairs], [y for _, y in pairs])
    found = cell(fit.recorded().slope) or {}
    return found | {"concurrencies": concurrencies, "runs": len(pairs)}


def _answer(outcome: dict[str, Any], key: AnswerKey, points: list[Point]) -> dict[str, Any]:
    """One answer on one runtime: pages/s at its largest concurrency, memory per connection."""
    model, core, processes = key
    top = max(points, key=lambda p: p["concurrency"])
    return {
        "model": model,
        "runtime": outcome["tag"],
        "version": outcome.get("version"),
        "gil_disabled": bool(outcome.get("gil_disabled")),
        "core": core,
        "processes": processes,
        "interpreters": top.get("interpreters"),
        "pages_per_s": cell(top["pages_per_s"], top["concurrency"]),
        "cpu_us_per_page": cell(top["cpu_us_per_page"], top["concurrency"]),
        "memory_per_connection_bytes": peak_rss_slope(points),
    }


def _at_shared(lists: Sequence[list[Point]]) -> tuple[int, list[Point]] | None:
    """The largest concurrency every list of points ran, and each list's point there."""
    shared = set.intersection(*({p["concurrency"] for p in points} for points in lists))
    if not shared:
        return None
    at = max(shared)
    return at, [next(p for p in points if p["concurrency"] == at) for points in lists]


def _ratios(mine: Point, theirs: Point) -> dict[str, Any]:
    """Mine over theirs, paired by round (the runtimes ran round k back to back)."""
    return {
        figure: ratio.quantity() if (ratio := point_ratio(mine, theirs, figure)) else None
        for figure in RATIO_FIGURES
    }


def _core_ratio(
    outcome: dict[str, Any], model: str, processes: int, by_core: dict[str, list[Point]]
) -> dict[str, Any] | None:
    """The C core over the pure core for one model and process count on one runtime, at
    the largest concurrency both ran."""
    fast, pure = by_core.get(catalog.CORE_C), by_core.get(catalog.CORE_PURE)
    found = _at_shared([fast, pure]) if fast and pure else None
    if found is None:
        return None
    at, (top_c, top_pure) = found
    where = {"model": model, "runtime": outcome["tag"], "processes": processes, "concurrency": at}
    return where | _ratios(top_c, top_pure)


def _closest(tops: Sequence[Point], k: int) -> tuple[float, int]:
    """The answer whose pages/s tops[k] leads least, paired by round: that ratio and the
    answer's index (an infinite ratio where none could be taken)."""
    return min(
        ((ratio.value if (ratio := point_ratio(tops[k], top, "pages_per_s")) else math.inf), j)
        for j, top in enumerate(tops)
        if j != k
    )


def _lead(answers: Sequence[tuple[dict[str, Any], list[Point]]]) -> dict[str, Any] | None:
    """Which way of using both cores wins on the pure core, at the largest concurrency every
    answer ran: the answer whose pages/s lead its closest rival most, over that rival; None
    with fewer than two answers or no concurrency they all ran."""
    found = _at_shared([points for _, points in answers]) if len(answers) >= 2 else None
    if found is None:
        return None
    at, tops = found
    rivals = [_closest(tops, k) for k in range(len(tops))]
    leader = max(range(len(tops)), key=lambda k: rivals[k][0])
    rival = rivals[leader][1]
    return {
        "concurrency": at,
        "leader": {k: answers[leader][0][k] for k in IDENTITY},
        "runner_up": {k: answers[rival][0][k] for k in IDENTITY},
    } | _ratios(tops[leader], tops[rival])


def both_cores(outcomes: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """Per runtime that ran the both-cores scenario, each answer there (pure core first) and,
    per model that ran on both cores, C over pure; None when no runtime ran it."""
    answers: list[dict[str, Any]] = []
    ratios: list[dict[str, Any]] = []
    pure: list[tuple[dict[str, Any], list[Point]]] = []
    for outcome in outcomes:
        table: dict[str, list[Point]] = (outcome.get("points") or {}).get(BOTH_CORES) or {}
        grouped: dict[AnswerKey, list[Point]] = {}
        for model in catalog.model_order(list(table)):
            for point in table[model]:
                key = (model, point["core"], point["processes"])
                grouped.setdefault(key, []).append(point)
        pure_first = sorted(grouped, key=lambda k: k[1] != catalog.CORE_PURE)
        for key in pure_first:
            answers.append(_answer(outcome, key, grouped[key]))
            if key[1] == catalog.CORE_PURE:
                pure.append((answers[-1], grouped[key]))
        by_model: dict[tuple[str, int], dict[str, list[Point]]] = {}
        for (model, core, processes), points in grouped.items():
            by_model.setdefault((model, processes), {})[core] = points
        ratios += [
            found
            for (model, processes), by_core in by_model.items()
            if (found := _core_ratio(outcome, model, processes, by_core))
        ]
    if not answers:
        return None
    return {
        "scenario": BOTH_CORES,
        "answers": answers,
        "core_ratios": ratios,
        "lead": _lead(pure),
    }
