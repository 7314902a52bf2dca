"""Ratios between models over the points they share, paired by round, with 95% intervals."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from bench.analysis.busy import server_bound
from bench.analysis.points import Points, mean_latency, scenario_points
from bench.analysis.summaries import listed
from bench.results import (
    AsyncioVsThreads,
    EventLoopVsThreads,
    InstructionRatios,
    InstructionsTable,
    ModelRatios,
    Point,
    UvloopComparison,
    UvloopPair,
    summary_median,
)
from c10k import catalog
from c10k.stats import (
    CONFIDENCE,
    Interval,
    Ratio,
    combined_ratio,
    median,
    median_interval,
    paired_ratio,
    single_ratio,
)

# The figures a point records both as a summary and per round.
Figure = Literal["pages_per_s", "cpu_us_per_page", "plateau_pages_per_s"]

FEW_ACTIVE, SLEEPY = catalog.FEW_ACTIVE.name, catalog.SLEEPY.name
THREADS, ASYNCIO = catalog.THREADS.name, catalog.ASYNCIO.name


def _by_round(point: Point, figure: Figure) -> dict[int, float]:
    """A point's per-run figure keyed by the round it ran in."""
    return {
        int(run["round"]): float(value)
        for run in point.get("rounds") or []
        if (value := run.get(figure)) is not None
    }


def point_ratio(top: Point, bottom: Point, figure: Figure) -> Ratio | None:
    """figure(top) / figure(bottom) at one point, paired by round (rep k of both ran next
    to each other); the ratio of the medians, without an interval, when no round pairs up."""
    found = paired_ratio(_by_round(top, figure), _by_round(bottom, figure))
    if found is not None:
        return found
    a, b = summary_median(top.get(figure)), summary_median(bottom.get(figure))
    return None if a is None or b is None else single_ratio(a, b)


def ratio_over_points(
    table: Points,
    numerator: str,
    denominator: str,
    figure: Figure,
    skip_saturated: bool = False,
    confidence: float = CONFIDENCE,
) -> tuple[float | None, Interval | None, list[int]]:
    """Geometric mean over shared points of figure(numerator) / figure(denominator), its
    interval at the confidence (None when a point has one round) and the concurrencies used.

    Points where the test server was CPU-bound for either model (or no run could tell) are
    left out when skip_saturated: their pages/s is the server's, not the crawler's.
    """
    by_key = {
        name: {(p["concurrency"], p["latency"]): p for p in table.get(name, [])}
        for name in (numerator, denominator)
    }
    ratios, used = [], []
    for key in sorted(set(by_key[numerator]) & set(by_key[denominator])):
        a, b = by_key[numerator][key], by_key[denominator][key]
        if skip_saturated and (server_bound(a) or server_bound(b)):
            continue
        ratio = point_ratio(a, b, figure)
        if ratio is None:
            continue
        ratios.append(ratio)
        used.append(int(key[0]))
    if not ratios:
        return None, None, used
    value, interval = combined_ratio(ratios, confidence)
    return value, interval, used


def event_loop_vs_threads(table: Points) -> EventLoopVsThreads:
    """Each event-loop model's pages/s and CPU per page over the threads' (server-bound
    points left out of pages/s) with their 95% intervals, and the median of the pages/s
    ratios with the interval of c10k.stats.median_interval: each model's at 1 - 5%/k."""
    models: dict[str, ModelRatios] = {}
    used_all: list[int] = []
    for model in (m.name for m in catalog.MODELS.values() if m.event_loop):
        ratio, interval, used = ratio_over_points(
            table, model, THREADS, "pages_per_s", skip_saturated=True
        )
        if ratio is None:
            continue
        used_all += used
        cpu, cpu_interval, _ = ratio_over_points(table, model, THREADS, "cpu_us_per_page")
        models[model] = {
            "pages_per_s": ratio,
            "pages_per_s_ci95": listed(interval),
            "cpu_us_per_page": cpu,
            "cpu_us_per_page_ci95": listed(cpu_interval),
            "concurrencies": used,
        }
    each = 1 - (1 - CONFIDENCE) / max(len(models), 1)  # Bonferroni over the k models
    wide = [
        ratio_over_points(table, m, THREADS, "pages_per_s", skip_saturated=True, confidence=each)[1]
        for m in models
    ]
    ratios = [m["pages_per_s"] for m in models.values()]
    return {
        "models": models,
        "median_pages_per_s": median(ratios) if ratios else None,
        "median_pages_per_s_ci95": listed(median_interval(wide)),
        "concurrencies": sorted(set(used_all)),
    }


def instruction_ratios(table: InstructionsTable) -> InstructionRatios | None:
    """Callgrind's instructions per page of each event-loop model over the threads', and of
    each model on asyncio's loop over its twin on another (keyed by the twin): C6's and
    C9's CPU ratios on the figure that holds still."""

    def per_page(model: str) -> float | None:
        entry = table.get(model)
        return summary_median(entry.get("instructions_per_page")) if entry else None

    threads = per_page(THREADS)
    event_loop = {
        m.name: mine / threads
        for m in catalog.MODELS.values()
        if m.event_loop and threads and (mine := per_page(m.name))
    }
    uvloop = {
        twin.name: slow / fast
        for plain, twin in catalog.LOOP_PAIRS
        if (slow := per_page(plain.name)) and (fast := per_page(twin.name))
    }
    if not (event_loop or uvloop):
        return None
    return {"event_loop_vs_threads": event_loop, "uvloop_speedup": uvloop}


def uvloop_speedups(tables: Mapping[str, object]) -> UvloopComparison | None:
    """CPU per page of each model on asyncio's loop over its twin's on another (and the
    pages/s ratio), with their intervals, in few-active, or in sleepy when few-active has no
    pair; the uvloop pairs first (catalog.LOOP_PAIRS)."""
    for scenario in (FEW_ACTIVE, SLEEPY):
        table = scenario_points(tables, scenario)
        pairs: list[UvloopPair] = []
        for plain, fast in ((a.name, b.name) for a, b in catalog.LOOP_PAIRS):
            speedup, interval, used = ratio_over_points(table, plain, fast, "cpu_us_per_page")
            if speedup is not None:
                rate, rate_interval, _ = ratio_over_points(table, fast, plain, "pages_per_s")
                pairs.append(
                    {
                        "plain": plain,
                        "fast": fast,
                        "cpu_per_page_speedup": speedup,
                        "cpu_per_page_speedup_ci95": listed(interval),
                        "pages_per_s_ratio": rate,
                        "pages_per_s_ratio_ci95": listed(rate_interval),
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
    mine = [p for p in table.get(ASYNCIO, []) if p.get("fraction_of_ideal") is not None]
    if not mine:
        return None
    top = max(mine, key=lambda p: (p["concurrency"], mean_latency(p["latency"])))
    theirs = [
        p
        for p in table.get(THREADS, [])
        if (p["concurrency"], p["latency"]) == (top["concurrency"], top["latency"])
        and p.get("fraction_of_ideal") is not None
    ]
    other = theirs[0] if theirs else None
    ratio = point_ratio(top, other, "plateau_pages_per_s") if other else None
    return {
        "concurrency": int(top["concurrency"]),
        "latency": top["latency"],
        "pages": top["pages"],
        "asyncio_fraction_of_ideal": _fraction(top),
        "asyncio_fraction_of_ideal_ci95": top.get("fraction_of_ideal_ci95"),
        "threads_fraction_of_ideal": _fraction(other) if other else None,
        "threads_fraction_of_ideal_ci95": other.get("fraction_of_ideal_ci95") if other else None,
        "asyncio_over_threads": ratio.value if ratio else None,
        "asyncio_over_threads_ci95": listed(ratio.interval()) if ratio else None,
        "server_ideal_load": top.get("server_ideal_load"),
    }


def _fraction(point: Point) -> float:
    """The fraction of C/L of a point that has one."""
    return float(point.get("fraction_of_ideal") or 0.0)
