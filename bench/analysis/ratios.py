"""Ratios between models over the points they share, paired by round, with 95% intervals."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal

from bench.analysis.busy import server_bound
from bench.analysis.points import Points
from bench.results import (
    AsyncioVsThreads,
    EventLoopVsThreads,
    InstructionRatios,
    InstructionsTable,
    LoopClaimFigures,
    ModelRatios,
    Point,
    UvloopComparison,
    UvloopPair,
    scenario_points,
)
from c10k import catalog
from c10k.durations import Latency
from c10k.quantity import MEDIAN_OF, Quantity
from c10k.stats import (
    CONFIDENCE,
    Ratio,
    median,
    median_interval,
    paired_ratio,
    ratio_quantity,
    single_ratio,
)

# The figures a point records both as a summary and per round.
Figure = Literal["pages_per_s", "cpu_us_per_page", "plateau_pages_per_s"]

FEW_ACTIVE, SLEEPY = catalog.FEW_ACTIVE.name, catalog.SLEEPY.name
THREADS, ASYNCIO = catalog.THREADS.name, catalog.ASYNCIO.name


PointId = tuple[int, Latency]  # a point of a scenario: its concurrency and latency


def point_order(key: PointId) -> tuple[int, float]:
    """Points by concurrency, then latency."""
    return key[0], key[1].mean_s


def judged_point(table: Points) -> PointId | None:
    """The scenario's point with the most connections, at the longest latency among them."""
    keys = {(p["concurrency"], p["latency"]) for points in table.values() for p in points}
    return max(keys, key=point_order, default=None)


def by_point(table: Points, model: str) -> dict[PointId, Point]:
    """A model's points in a scenario, by concurrency and latency."""
    return {(p["concurrency"], p["latency"]): p for p in table.get(model, [])}


def by_round(point: Point, figure: Figure) -> dict[int, float]:
    """A point's per-run figure keyed by the round it ran in (finite and positive ones only:
    no ratio can be taken of the others)."""
    return {
        int(run["round"]): float(value)
        for run in point.get("rounds") or []
        if (value := run.get(figure)) is not None and value > 0 and math.isfinite(value)
    }


def point_ratio(top: Point, bottom: Point, figure: Figure) -> Ratio | None:
    """figure(top) / figure(bottom) at one point, paired by round (rep k of both ran next
    to each other); the ratio of the medians, without an interval, when no round pairs up."""
    found = paired_ratio(by_round(top, figure), by_round(bottom, figure))
    if found is not None:
        return found
    a, b = top.get(figure), bottom.get(figure)
    if a is None or b is None or a.value is None or b.value is None:
        return None
    return single_ratio(a.value, b.value)


def common_points(
    table: Points, models: Sequence[str], skip_saturated: bool = False
) -> list[PointId]:
    """The points every one of the models ran, in point_order; with skip_saturated, none where
    the server was CPU-bound for any of them (or no run could tell): there pages/s is the
    server's, not the crawler's."""
    each = [by_point(table, m) for m in models]
    keys = set(each[0]).intersection(*each[1:])
    if skip_saturated:
        keys = {k for k in keys if not any(server_bound(e[k]) for e in each)}
    return sorted(keys, key=point_order)


def point_ratios(
    table: Points, numerator: str, denominator: str, figure: Figure, skip_saturated: bool = False
) -> tuple[list[Ratio], list[int]]:
    """figure(numerator) / figure(denominator) at each of their common_points, paired by
    round, and those points' concurrencies."""
    mine, theirs = by_point(table, numerator), by_point(table, denominator)
    ratios, used = [], []
    for key in common_points(table, (numerator, denominator), skip_saturated):
        ratio = point_ratio(mine[key], theirs[key], figure)
        if ratio is not None:
            ratios.append(ratio)
            used.append(int(key[0]))
    return ratios, used


def ratio_over_points(
    table: Points, numerator: str, denominator: str, figure: Figure
) -> tuple[Quantity | None, list[int]]:
    """The geometric mean of point_ratios with its 95% interval (none when a point has one
    round), and the concurrencies used."""
    ratios, used = point_ratios(table, numerator, denominator, figure)
    return (ratio_quantity(ratios) if ratios else None), used


def event_loop_vs_threads(table: Points) -> EventLoopVsThreads:
    """Each event-loop model's pages/s and CPU per page over the threads' (server-bound
    points left out of pages/s) with their 95% intervals, and the median of the pages/s
    ratios with the interval of c10k.stats.median_interval: each model's at 1 - 5%/k."""
    models: dict[str, ModelRatios] = {}
    paired: list[list[Ratio]] = []
    for model in (m.name for m in catalog.MODELS.values() if m.event_loop):
        found, used = point_ratios(table, model, THREADS, "pages_per_s", skip_saturated=True)
        if not found:
            continue
        paired.append(found)
        cpu, _ = ratio_over_points(table, model, THREADS, "cpu_us_per_page")
        models[model] = {
            "pages_per_s": ratio_quantity(found),
            "cpu_us_per_page": cpu,
            "concurrencies": used,
        }
    each = 1 - (1 - CONFIDENCE) / max(len(models), 1)  # Bonferroni over the k models
    wide = [ratio_quantity(found, each).interval for found in paired]
    ratios = [m["pages_per_s"] for m in models.values()]
    values = [r.value for r in ratios if r.value is not None]
    return {
        "models": models,
        "median_pages_per_s": Quantity(
            median(values),
            median_interval(wide),
            MEDIAN_OF.format(len(ratios)),
            min(r.n for r in ratios),
            "ratio",
        )
        if ratios
        else None,
        "concurrencies": sorted({c for m in models.values() for c in m["concurrencies"]}),
    }


def per_page(table: InstructionsTable, model: str) -> float | None:
    """A model's median instructions per page; None without a counted run."""
    entry = table.get(model)
    found = entry.get("instructions_per_page") if entry else None
    return found.value if found else None


def own_ratio(table: InstructionsTable, slow: str, fast: str) -> float | None:
    """slow's instructions per page over fast's, each less the core replay's: the loop's own
    work, where both models run on the shared core."""
    core = per_page(table, catalog.CORE_REPLAY)
    mine, theirs = per_page(table, fast), per_page(table, slow)
    if not (core and mine and theirs and mine > core):
        return None
    return (theirs - core) / (mine - core)


def instruction_ratios(table: InstructionsTable) -> InstructionRatios | None:
    """Callgrind's instructions per page of each event-loop model over the threads', and of
    each model on asyncio's loop over its twin on another (keyed by the twin), whole and on
    the loop's own work: C6's and C9's CPU ratios on the figure that holds still."""
    threads = per_page(table, THREADS)
    event_loop = {
        m.name: mine / threads
        for m in catalog.MODELS.values()
        if m.event_loop and threads and (mine := per_page(table, m.name))
    }
    uvloop = {
        twin.name: slow / fast
        for plain, twin in catalog.LOOP_PAIRS
        if (slow := per_page(table, plain.name)) and (fast := per_page(table, twin.name))
    }
    # A library's transports parse with its own code, not the core's: no own share there.
    own = {
        twin.name: ratio
        for plain, twin in catalog.LOOP_PAIRS
        if plain.loop_api != "transports" and (ratio := own_ratio(table, plain.name, twin.name))
    }
    if not (event_loop or uvloop):
        return None
    return {"event_loop_vs_threads": event_loop, "uvloop_speedup": uvloop, "loop_own_speedup": own}


def loop_claims(table: Points, counts: InstructionsTable) -> list[LoopClaimFigures]:
    """Each loop's claim that names a figure, on both views: the crawler's CPU per page in
    few-active (table) and callgrind's counts (counts); a loop that did not run, none."""
    found: list[LoopClaimFigures] = []
    for model in catalog.MODELS.values():
        if not (model.claim and model.name in table and model.claim.against in table):
            continue
        against = model.claim.against
        speedup, used = ratio_over_points(table, against, model.name, "cpu_us_per_page")
        mine, theirs = per_page(counts, model.name), per_page(counts, against)
        found.append(
            {
                "model": model.name,
                "against": against,
                "cpu_per_page_speedup": speedup,
                "concurrencies": used,
                "instructions_speedup": theirs / mine if mine and theirs else None,
                "loop_own_speedup": own_ratio(counts, against, model.name),
            }
        )
    return found


def uvloop_speedups(tables: Mapping[str, object]) -> UvloopComparison | None:
    """CPU per page of each model on asyncio's loop over its twin's on another (and the
    pages/s ratio), with their intervals, in few-active, or in sleepy when few-active has no
    pair; the uvloop pairs first (catalog.LOOP_PAIRS)."""
    for scenario in (FEW_ACTIVE, SLEEPY):
        table = scenario_points(tables, scenario)
        pairs: list[UvloopPair] = []
        for plain, fast in ((a.name, b.name) for a, b in catalog.LOOP_PAIRS):
            speedup, used = ratio_over_points(table, plain, fast, "cpu_us_per_page")
            if speedup is not None:
                rate, _ = ratio_over_points(table, fast, plain, "pages_per_s")
                pairs.append(
                    {
                        "plain": plain,
                        "fast": fast,
                        "cpu_per_page_speedup": speedup,
                        "pages_per_s_ratio": rate,
                        "concurrencies": used,
                    }
                )
        if pairs:
            return {"scenario": scenario, "pairs": pairs}
    return None


def asyncio_vs_threads(table: Points) -> AsyncioVsThreads | None:
    """asyncio's verified sleepy point with the most connections, at the longest latency
    among them, the threads' fraction of C/L there, with their intervals, and asyncio's
    plateau pages/s over the threads' paired by round."""
    mine, theirs = (
        [p for p in table.get(m, []) if p.get("fraction_of_ideal") is not None]
        for m in (ASYNCIO, THREADS)
    )
    if not mine:
        return None
    # The first of each at the judged (C, L), in the table's order (one process and the fewest
    # pages first): by_point would take the threads' last.
    top = max(mine, key=lambda p: point_order((p["concurrency"], p["latency"])))
    at = (top["concurrency"], top["latency"])
    other = next((p for p in theirs if (p["concurrency"], p["latency"]) == at), None)
    ratio = point_ratio(top, other, "plateau_pages_per_s") if other else None
    fraction = top.get("fraction_of_ideal")
    assert fraction is not None
    return {
        "concurrency": int(top["concurrency"]),
        "latency": top["latency"],
        "pages": top["pages"],
        "asyncio_fraction_of_ideal": fraction,
        "threads_fraction_of_ideal": other.get("fraction_of_ideal") if other else None,
        "asyncio_over_threads": ratio.quantity() if ratio else None,
        "server_ideal_load": top.get("server_ideal_load"),
    }
