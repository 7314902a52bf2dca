"""What each scenario's chart and verdicts quote: rankings of the models and extremes."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Literal

from bench.analysis.points import Points, mean_latency, scenario_points
from bench.results import (
    C100kHighlights,
    C100kModel,
    CrawlTable,
    FewActiveHighlights,
    IdleEntry,
    IdleHighlights,
    IdleTable,
    Interval,
    LatencyEnd,
    LatencySweepHighlights,
    MemoryFit,
    MemoryHighlights,
    ModelTable,
    Point,
    Ranking,
    SleepyHighlights,
    crawl_table,
    summary_median,
)
from c10k import catalog
from c10k.stats import recorded_interval, single_ratio

# The figures a point records as a summary over its runs, by which models are ranked.
Ranked = Literal["pages_per_s", "cpu_us_per_page", "latency_p50_s", "latency_p99_s"]

KIB = 1024.0
THREADS, SLEEPY = catalog.THREADS.name, catalog.SLEEPY.name


def largest_concurrency(table: Points) -> int:
    return max((p["concurrency"] for entries in table.values() for p in entries), default=0)


def ranking(
    values: dict[str, float],
    higher_is_better: bool,
    intervals: dict[str, Interval | None] | None = None,
) -> Ranking | None:
    """The best and worst model of a figure, and by what factor they differ (None: no values);
    with each model's 95% interval beside its value when the figure has one."""
    if not values:
        return None
    ordered = sorted(values, key=lambda m: values[m], reverse=higher_is_better)
    best, worst = ordered[0], ordered[-1]
    factor = None
    if worst != best and values[best] > 0 and values[worst] > 0:
        factor = max(values[best], values[worst]) / min(values[best], values[worst])
    found: Ranking = {
        "higher_is_better": higher_is_better,
        "values": values,
        "best": best,
        "worst": worst,
        "factor": factor,
    }
    if intervals is not None:
        found["intervals"] = intervals
    return found


def _where(field: Literal["concurrency", "latency"], value: int | str) -> Callable[[Point], bool]:
    """The points whose field has this value."""
    return lambda point: bool(point[field] == value)


def _ranked(
    table: Points,
    chosen: Callable[[Point], bool],
    key: Ranked,
    higher_is_better: bool,
    scale: float = 1.0,
) -> Ranking | None:
    """A ranking of each model's median of summary `key` (times scale) at the chosen point
    (the last when there are more), with its 95% interval."""
    values: dict[str, float] = {}
    intervals: dict[str, Interval | None] = {}
    for model, entries in table.items():
        for p in entries:
            if chosen(p):
                values[model] = (summary_median(p[key]) or 0.0) * scale
                found = recorded_interval(p[key])
                intervals[model] = None if found is None else found.scaled(scale).as_list()
    return ranking(values, higher_is_better, intervals)


def few_active_highlights(table: Points) -> FewActiveHighlights:
    """At the largest concurrency: the best and worst pages/s, CPU per page and p99 latency."""
    top = largest_concurrency(table)
    threads = table.get(THREADS) or []
    at_top = _where("concurrency", top)
    return {
        "largest_concurrency": top,
        "pages_per_s": _ranked(table, at_top, "pages_per_s", True),
        "cpu_us_per_page": _ranked(table, at_top, "cpu_us_per_page", False),
        "latency_p99_ms": _ranked(table, at_top, "latency_p99_s", False, 1000.0),
        "threads_pages": threads[0]["pages"] if threads else None,
        "threads_most_runs_per_point": max((p["runs"] for p in threads), default=0),
    }


def _memory_highlights(tables: Mapping[str, object], scenario: str) -> MemoryHighlights:
    """The memory fits side by side: total per connection, fitted range, largest plateau RSS."""
    entries = crawl_table(tables, scenario)
    fits = {m: entries[m].get("memory_per_connection") for m in catalog.model_order(list(entries))}
    fitted = {m: f for m, f in fits.items() if f and _rss_slope(f)[0] is not None}
    # A negative RSS slope is noise (tiny scale, or a point that did not count): no ranking.
    totals = {
        m: (f.get("total_bytes") or 0.0) / KIB
        for m, f in fitted.items()
        if (slope := _rss_slope(f)[0]) is not None and slope > 0
    }
    intervals = {
        m: None if found is None else found.scaled(1 / KIB).as_list()
        for m in totals
        for found in [recorded_interval(fitted[m].get("total_bytes_ci95"))]
    }
    largest = {}
    for model, entry in entries.items():
        rss = [
            median
            for p in entry.get("points") or []
            if (summary := p.get("plateau_rss_kib")) and (median := summary["median"]) is not None
        ]
        if rss:
            largest[model] = float(rss[-1]) / KIB
    most = max(largest, key=lambda m: largest[m]) if largest else None
    least = min(largest, key=lambda m: largest[m]) if largest else None
    return {
        "memory_total_kib": ranking(totals, False, intervals),
        "fit_concurrencies": sorted(
            {int(c) for f in fitted.values() for c in f.get("concurrencies") or []}
        ),
        "largest_plateau_rss_mib": {
            "most": most,
            "most_mib": largest.get(most or ""),
            "least": least,
            "least_mib": largest.get(least or ""),
        }
        if largest
        else None,
    }


def sleepy_highlights(tables: Mapping[str, object], scenario: str = SLEEPY) -> SleepyHighlights:
    """At the largest concurrency and, where it ran at several, its longest latency (the C10K
    point C7 is judged at): share of the ideal C/L, the median latency the crawlers saw
    (beside the server's nominal L) and p99; the largest peak in flight; the memory fits
    compared."""
    table = scenario_points(tables, scenario)
    top = largest_concurrency(table)
    at_top = [p for entries in table.values() for p in entries if p["concurrency"] == top]
    longest = max(at_top, key=lambda p: p.get("mean_latency_s") or 0.0, default=None)
    latency = None if longest is None else str(longest.get("latency"))

    def judged(point: Point) -> bool:
        return bool(point["concurrency"] == top and str(point.get("latency")) == latency)

    shares = [
        (m, p)
        for m, entries in table.items()
        for p in entries
        if judged(p) and p.get("fraction_of_ideal") is not None
    ]
    percent = {m: 100.0 * (p.get("fraction_of_ideal") or 0.0) for m, p in shares}
    intervals = {
        m: None if found is None else found.scaled(100.0).as_list()
        for m, p in shares
        for found in [recorded_interval(p.get("fraction_of_ideal_ci95"))]
    }
    peaks = (int(p["server_peak_in_flight"] or 0) for e in table.values() for p in e)
    return {
        "largest_concurrency": top,
        "judged_latency": latency,
        "percent_of_ideal": ranking(percent, True, intervals),
        "no_verified_run_at_largest": sorted(
            m for m, entries in table.items() if any(map(judged, entries)) and m not in percent
        ),
        "latencies": sorted({str(p["latency"]) for e in table.values() for p in e}),
        "latency_p50_ms": _ranked(table, judged, "latency_p50_s", False, 1000.0),
        "latency_p99_ms": _ranked(table, judged, "latency_p99_s", False, 1000.0),
        "largest_peak_in_flight": max(peaks, default=0),
        **_memory_highlights(tables, scenario),
    }


def _slope_ratio(numerator: float | None, denominator: float | None) -> float | None:
    """numerator / denominator for two positive, finite slopes, else None."""
    found = (
        None if numerator is None or denominator is None else single_ratio(numerator, denominator)
    )
    return None if found is None else found.value


def c100k_highlights(entries: CrawlTable) -> C100kHighlights:
    """Past one process: per model, the most connections it held (the server's verified peak)
    and how long it took to open them; its memory per connection in one process and across
    several, and their ratio (whether the slope holds at a hundred thousand)."""
    models = {model: _c100k_model(entries[model]) for model in catalog.model_order(list(entries))}
    return {
        "largest_peak_in_flight": max((m["held"] or 0 for m in models.values()), default=0),
        "models": models,
    }


def _c100k_model(entry: ModelTable) -> C100kModel:
    held = max(
        entry.get("points") or [], key=lambda p: p["server_peak_in_flight"] or 0, default=None
    )
    alone = entry.get("memory_per_connection")
    several = entry.get("memory_across_processes")
    across = several[-1] if several else None  # the most processes
    one, one_ci95 = _rss_slope(alone)
    many, many_ci95 = _rss_slope(across)
    one_net, one_net_ci95, one_url = _net_slopes(alone)
    many_net, many_net_ci95, many_url = _net_slopes(across)
    return {
        "held": None if held is None else int(held["server_peak_in_flight"] or 0),
        "held_concurrency": None if held is None else held["concurrency"],
        "held_processes": None if held is None else held["processes"],
        "ramp_s": None if held is None else summary_median(held.get("ramp_s")),
        "one_process_bytes": one,
        "one_process_ci95": one_ci95,
        "one_process_concurrencies": alone.get("concurrencies") if alone else None,
        "processes": across.get("processes") if across else None,
        "across_processes_bytes": many,
        "across_processes_ci95": many_ci95,
        "across_processes_concurrencies": across.get("concurrencies") if across else None,
        "ratio": _slope_ratio(many, one),
        # Net of the URLs each connection brings (a point with more pages per
        # connection at each process count): what the connection alone costs.
        "one_process_net_bytes": one_net,
        "one_process_net_ci95": one_net_ci95,
        "across_processes_net_bytes": many_net,
        "across_processes_net_ci95": many_net_ci95,
        "one_process_url_bytes": one_url,
        "across_processes_url_bytes": many_url,
        "net_ratio": _slope_ratio(many_net, one_net),
    }


def _rss_slope(fit: MemoryFit | None) -> tuple[float | None, Interval | None]:
    """A memory fit's RSS slope and its interval (None, None without the fit)."""
    rss = fit.get("rss_bytes") if fit else None
    return (rss.get("slope"), rss.get("slope_ci95")) if rss else (None, None)


def _net_slopes(fit: MemoryFit | None) -> tuple[float | None, Interval | None, float | None]:
    """A memory fit's bytes per connection net of its URLs, their interval, bytes per URL."""
    per_url = fit.get("per_url") if fit else None
    if not per_url:
        return None, None, None
    found = per_url.get("net_rss_bytes"), per_url.get("net_rss_bytes_ci95")
    return *found, per_url.get("bytes_per_url")


def latency_sweep_highlights(table: Points) -> LatencySweepHighlights:
    """At the lowest and the highest latency: best and worst pages/s, best share of C/L."""
    latencies = sorted({p["latency"] for e in table.values() for p in e}, key=mean_latency)
    ends = [latencies[0], latencies[-1]] if len(latencies) > 1 else latencies
    by_latency: list[LatencyEnd] = []
    for latency in ends:
        rate = _ranked(table, _where("latency", latency), "pages_per_s", True)
        fractions = [
            float(fraction)
            for e in table.values()
            for p in e
            if p["latency"] == latency and (fraction := p.get("fraction_of_ideal"))
        ]
        by_latency.append(
            {
                "latency": latency,
                "pages_per_s": rate,
                "best_fraction_of_ideal": max(fractions) if fractions else None,
            }
        )
    concurrencies = sorted({p["concurrency"] for e in table.values() for p in e})
    return {"concurrencies": concurrencies, "by_latency": by_latency}


def idle_highlights(units: IdleTable) -> IdleHighlights:
    """The idle kinds compared: thread against task, cheapest and costliest coroutine, the
    most started, and the coroutine kinds from the slowest start rate to the fastest."""
    coroutines = [(k, units[k]) for k in catalog.COROUTINE_KINDS if k in units]
    measured = [(k, u) for k, u in coroutines if u.get("rss_bytes_per_unit") is not None]
    shown = [(k, u) for k, u in coroutines if u.get("rss_bytes_per_unit")]
    started = [(k, u) for k, u in coroutines if u.get("count")]

    def total(unit: tuple[str, IdleEntry]) -> float:
        return float(unit[1].get("total_bytes_per_unit") or 0.0)

    def rate(unit: tuple[str, IdleEntry]) -> float:
        value = unit[1].get("start_rate_per_s")
        return math.inf if value is None else float(value)

    def units_of(unit: tuple[str, IdleEntry]) -> int:
        return unit[1].get("count") or 0

    thread_total = (units.get(catalog.THREAD.name) or {}).get("total_bytes_per_unit")
    task_total = (units.get(catalog.ASYNCIO_TASK.name) or {}).get("total_bytes_per_unit")
    return {
        "thread_over_task": thread_total / task_total if thread_total and task_total else None,
        "cheapest_coroutine": min(shown, key=total)[0] if shown else None,
        "most_started_coroutine": max(shown, key=units_of)[0] if shown else None,
        "costliest_coroutine": max(measured, key=total)[0] if measured else None,
        "most_coroutine_units": max((units_of(u) for u in coroutines), default=0),
        "coroutines_by_start_rate": [k for k, _ in sorted(started, key=rate)],
    }
