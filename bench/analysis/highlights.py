"""What each scenario's chart and verdicts quote: rankings of the models and extremes."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Literal

from bench.analysis.points import Points
from bench.analysis.ratios import judged_point
from bench.results import (
    C100kHighlights,
    C100kModel,
    CrawlTable,
    FewActiveHighlights,
    IdleEntry,
    IdleHighlights,
    IdleTable,
    LatencyEnd,
    LatencySweepHighlights,
    MemoryHighlights,
    ModelTable,
    Point,
    Ranking,
    RealisticHighlights,
    SleepyHighlights,
    crawl_table,
    scenario_points,
)
from c10k import catalog
from c10k.durations import Latency
from c10k.quantity import Quantity, Unit, value_of
from c10k.stats import single_ratio
from c10k.words import KIB

# The figures a point records as a summary over its runs, by which models are ranked.
Ranked = Literal[
    "pages_per_s", "cpu_us_per_page", "latency_p50_s", "latency_p99_s", "fraction_of_ideal"
]

THREADS, SLEEPY = catalog.THREADS.name, catalog.SLEEPY.name


def largest_concurrency(table: Points) -> int:
    return max((p["concurrency"] for entries in table.values() for p in entries), default=0)


def ranking(quantities: dict[str, Quantity], higher_is_better: bool) -> Ranking | None:
    """The best and worst model of a figure, and by what factor they differ (None: no values)."""
    values = {m: q.value or 0.0 for m, q in quantities.items()}
    if not values:
        return None
    ordered = sorted(values, key=lambda m: values[m], reverse=higher_is_better)
    best, worst = ordered[0], ordered[-1]
    factor = None
    if worst != best and values[best] > 0 and values[worst] > 0:
        factor = max(values[best], values[worst]) / min(values[best], values[worst])
    return {
        "higher_is_better": higher_is_better,
        "values": quantities,
        "best": best,
        "worst": worst,
        "factor": factor,
    }


def _where(
    field: Literal["concurrency", "latency"], value: int | Latency
) -> Callable[[Point], bool]:
    """The points whose field has this value."""
    return lambda point: bool(point[field] == value)


def _ranked(
    table: Points,
    chosen: Callable[[Point], bool],
    key: Ranked,
    higher_is_better: bool,
    scale: float = 1.0,
    unit: Unit | None = None,
) -> Ranking | None:
    """A ranking of each model's summary `key` (times scale, in unit) at the chosen point
    (the last when there are more), with its 95% interval; a model without one is not in it."""
    values: dict[str, Quantity] = {}
    for model, entries in table.items():
        for p in entries:
            if chosen(p) and (found := p.get(key)) is not None:
                values[model] = found.scaled(scale, unit or found.unit)
    return ranking(values, higher_is_better)


def few_active_highlights(table: Points) -> FewActiveHighlights:
    """At the largest concurrency: the best and worst pages/s, CPU per page and p99 latency."""
    top = largest_concurrency(table)
    threads = table.get(THREADS) or []
    at_top = _where("concurrency", top)
    return {
        "largest_concurrency": top,
        "pages_per_s": _ranked(table, at_top, "pages_per_s", True),
        "cpu_us_per_page": _ranked(table, at_top, "cpu_us_per_page", False),
        "latency_p99_ms": _ranked(table, at_top, "latency_p99_s", False, 1000.0, "ms"),
        "threads_pages": threads[0]["pages"] if threads else None,
        "threads_most_runs_per_point": max((p["runs"] for p in threads), default=0),
    }


def realistic_highlights(table: Points) -> RealisticHighlights:
    """few_active_highlights on one site: the deep one (lognormal latency, bandwidth, faults)
    where it ran, else the first other (the default profile runs only the docs site)."""
    sites = {p["site"] for entries in table.values() for p in entries}
    site = "deep" if "deep" in sites or not sites else min(sites)
    on_site = {m: [p for p in entries if p["site"] == site] for m, entries in table.items()}
    return {**few_active_highlights(on_site), "site": site}


def _memory_highlights(tables: Mapping[str, object], scenario: str) -> MemoryHighlights:
    """The memory fits side by side: total per connection, fitted range, largest plateau RSS."""
    entries = crawl_table(tables, scenario)
    fits = {m: entries[m].get("memory_per_connection") for m in catalog.model_order(list(entries))}
    fitted = {m: f for m, f in fits.items() if f and f.rss_bytes.slope.value is not None}
    # A negative RSS slope is noise (tiny scale, or a point that did not count): no ranking.
    totals = {
        m: _per_kib(f.total_bytes)
        for m, f in fitted.items()
        if (slope := f.rss_bytes.slope.value) is not None and slope > 0
    }
    largest = {}
    for model, entry in entries.items():
        rss = [
            median
            for p in entry.get("points") or []
            if (summary := p.get("plateau_rss_kib")) and (median := summary.value) is not None
        ]
        if rss:
            largest[model] = float(rss[-1]) / KIB
    most = max(largest, key=lambda m: largest[m]) if largest else None
    least = min(largest, key=lambda m: largest[m]) if largest else None
    return {
        "memory_total_kib": ranking(totals, False),
        "fit_concurrencies": sorted({int(c) for f in fitted.values() for c in f.concurrencies}),
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
    top, latency = judged_point(table) or (0, None)

    def judged(point: Point) -> bool:
        return bool(point["concurrency"] == top and point["latency"] == latency)

    percent = _ranked(table, judged, "fraction_of_ideal", True, 100.0, "percent")
    measured = percent["values"] if percent else {}
    peaks = (int(p["server_peak_in_flight"] or 0) for e in table.values() for p in e)
    return {
        "largest_concurrency": top,
        "judged_latency": latency,
        "percent_of_ideal": percent,
        "no_verified_run_at_largest": sorted(
            m for m, entries in table.items() if any(map(judged, entries)) and m not in measured
        ),
        "latencies": sorted(
            {p["latency"] for e in table.values() for p in e}, key=lambda k: k.text
        ),
        "latency_p50_ms": _ranked(table, judged, "latency_p50_s", False, 1000.0, "ms"),
        "latency_p99_ms": _ranked(table, judged, "latency_p99_s", False, 1000.0, "ms"),
        "largest_peak_in_flight": max(peaks, default=0),
        **_memory_highlights(tables, scenario),
    }


def _per_kib(bytes_: Quantity) -> Quantity:
    """A figure in bytes as KiB (its value divided, as every KiB figure is)."""
    return replace(bytes_.scaled(1 / KIB, "KiB"), value=(bytes_.value or 0.0) / KIB)


def _slope_ratio(numerator: float | None, denominator: float | None) -> float | None:
    """numerator / denominator for two positive, finite slopes, else None."""
    if numerator is None or denominator is None:
        return None
    found = single_ratio(numerator, denominator)
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
    one = alone.rss_bytes.slope if alone else None
    many = across.rss_bytes.slope if across else None
    # Net of the URLs each connection brings (a point with more pages per connection at each
    # process count): what the connection alone costs.
    one_url = alone.per_url if alone else None
    many_url = across.per_url if across else None
    one_net = one_url.net_rss_bytes if one_url else None
    many_net = many_url.net_rss_bytes if many_url else None
    ramp = held.get("ramp_s") if held else None
    return {
        "held": None if held is None else int(held["server_peak_in_flight"] or 0),
        "held_concurrency": None if held is None else held["concurrency"],
        "held_processes": None if held is None else held["processes"],
        "ramp_s": ramp.value if ramp else None,
        "one_process": one,
        "one_process_concurrencies": alone.concurrencies if alone else None,
        "processes": across.processes if across else None,
        "across_processes": many,
        "across_processes_concurrencies": across.concurrencies if across else None,
        "ratio": _slope_ratio(value_of(many), value_of(one)),
        "one_process_net": one_net,
        "across_processes_net": many_net,
        "one_process_url_bytes": one_url.bytes_per_url.value if one_url else None,
        "across_processes_url_bytes": many_url.bytes_per_url.value if many_url else None,
        "net_ratio": _slope_ratio(value_of(many_net), value_of(one_net)),
    }


def latency_sweep_highlights(table: Points) -> LatencySweepHighlights:
    """At the lowest and the highest latency: best and worst pages/s, best share of C/L."""
    latencies = sorted({p["latency"] for e in table.values() for p in e}, key=lambda k: k.mean_s)
    ends = [latencies[0], latencies[-1]] if len(latencies) > 1 else latencies
    by_latency: list[LatencyEnd] = []
    for latency in ends:
        rate = _ranked(table, _where("latency", latency), "pages_per_s", True)
        fractions = [
            fraction.value
            for e in table.values()
            for p in e
            if p["latency"] == latency
            and (fraction := p.get("fraction_of_ideal"))
            and fraction.value
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
    measured = [(k, u) for k, u in coroutines if u.rss_bytes_per_unit is not None]
    shown = [(k, u) for k, u in coroutines if u.rss_bytes_per_unit]
    started = [(k, u) for k, u in coroutines if u.count]

    def total(unit: tuple[str, IdleEntry]) -> float:
        return value_of(unit[1].total_bytes_per_unit) or 0.0

    def rate(unit: tuple[str, IdleEntry]) -> float:
        value = value_of(unit[1].start_rate_per_s)
        return math.inf if value is None else float(value)

    def units_of(unit: tuple[str, IdleEntry]) -> int:
        return unit[1].count or 0

    thread_total = value_of(units.get(catalog.THREAD.name, IdleEntry()).total_bytes_per_unit)
    task_total = value_of(units.get(catalog.ASYNCIO_TASK.name, IdleEntry()).total_bytes_per_unit)
    return {
        "thread_over_task": thread_total / task_total if thread_total and task_total else None,
        "cheapest_coroutine": min(shown, key=total)[0] if shown else None,
        "most_started_coroutine": max(shown, key=units_of)[0] if shown else None,
        "costliest_coroutine": max(measured, key=total)[0] if measured else None,
        "most_coroutine_units": max((units_of(u) for u in coroutines), default=0),
        "coroutines_by_start_rate": [k for k, _ in sorted(started, key=rate)],
    }
