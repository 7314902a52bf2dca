"""What each scenario's chart and verdicts quote: rankings of the models and extremes."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from bench.analysis.points import Points, mean_latency, scenario_points
from c10k import catalog
from c10k.stats import recorded_interval, recorded_median, single_ratio

KIB = 1024.0
THREADS, SLEEPY = catalog.THREADS.name, catalog.SLEEPY.name


def largest_concurrency(table: Points) -> int:
    return max((p["concurrency"] for entries in table.values() for p in entries), default=0)


def ranking(
    values: dict[str, float],
    higher_is_better: bool,
    intervals: dict[str, list[float] | None] | None = None,
) -> dict[str, Any] | None:
    """The best and worst model of a figure, and by what factor they differ (None: no values);
    with each model's 95% interval beside its value when the figure has one."""
    if not values:
        return None
    ordered = sorted(values, key=lambda m: values[m], reverse=higher_is_better)
    best, worst = ordered[0], ordered[-1]
    factor = None
    if worst != best and values[best] > 0 and values[worst] > 0:
        factor = max(values[best], values[worst]) / min(values[best], values[worst])
    found = {
        "higher_is_better": higher_is_better,
        "values": values,
        "best": best,
        "worst": worst,
        "factor": factor,
    }
    return found if intervals is None else found | {"intervals": intervals}


def _where(field: str, value: Any) -> Callable[[dict[str, Any]], bool]:
    """The points whose field has this value."""
    return lambda point: bool(point[field] == value)


def _ranked(
    table: Points,
    chosen: Callable[[dict[str, Any]], bool],
    key: str,
    higher_is_better: bool,
    scale: float = 1.0,
) -> dict[str, Any] | None:
    """A ranking of each model's median of summary `key` (times scale) at the chosen point
    (the last when there are more), with its 95% interval."""
    values: dict[str, float] = {}
    intervals: dict[str, list[float] | None] = {}
    for model, entries in table.items():
        for p in entries:
            if chosen(p):
                values[model] = (recorded_median(p.get(key)) or 0.0) * scale
                found = recorded_interval(p.get(key))
                intervals[model] = None if found is None else found.scaled(scale).as_list()
    return ranking(values, higher_is_better, intervals)


def few_active_highlights(table: Points) -> dict[str, Any]:
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


def _memory_highlights(tables: dict[str, Any], scenario: str) -> dict[str, Any]:
    """The memory fits side by side: total per connection, fitted range, largest plateau RSS."""
    entries = tables.get(scenario, {})
    fits = {
        m: entries[m].get("memory_per_connection") or {} for m in catalog.model_order(list(entries))
    }
    fitted = {m: f for m, f in fits.items() if (f.get("rss_bytes") or {}).get("slope") is not None}
    # A negative RSS slope is noise (tiny scale, or a point that did not count): no ranking.
    totals = {
        m: (f.get("total_bytes") or 0.0) / KIB
        for m, f in fitted.items()
        if f["rss_bytes"]["slope"] > 0
    }
    largest = {}
    for model, entry in entries.items():
        rss = [
            p["plateau_rss_kib"]["median"]
            for p in entry.get("points") or []
            if p.get("plateau_rss_kib") and p["plateau_rss_kib"].get("median") is not None
        ]
        if rss:
            largest[model] = float(rss[-1]) / KIB
    most = max(largest, key=lambda m: largest[m]) if largest else None
    least = min(largest, key=lambda m: largest[m]) if largest else None
    return {
        "memory_total_kib": ranking(totals, False),
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


def sleepy_highlights(tables: dict[str, Any], scenario: str = SLEEPY) -> dict[str, Any]:
    """At the largest concurrency: share of the ideal C/L, the median latency the crawlers
    saw (beside the server's nominal L) and p99; the largest peak in flight; the memory
    fits compared."""
    table = scenario_points(tables, scenario)
    top = largest_concurrency(table)
    shares = [
        (m, p)
        for m, entries in table.items()
        for p in entries
        if p["concurrency"] == top and p.get("fraction_of_ideal") is not None
    ]
    percent = {m: 100.0 * p["fraction_of_ideal"] for m, p in shares}
    intervals = {
        m: None if found is None else found.scaled(100.0).as_list()
        for m, p in shares
        for found in [recorded_interval(p.get("fraction_of_ideal_ci95"))]
    }
    peaks = (int(p["server_peak_in_flight"] or 0) for e in table.values() for p in e)
    return {
        "largest_concurrency": top,
        "percent_of_ideal": ranking(percent, True, intervals),
        "no_verified_run_at_largest": sorted(set(table) - set(percent)),
        "latencies": sorted({str(p["latency"]) for e in table.values() for p in e}),
        "latency_p50_ms": _ranked(
            table, _where("concurrency", top), "latency_p50_s", False, 1000.0
        ),
        "latency_p99_ms": _ranked(
            table, _where("concurrency", top), "latency_p99_s", False, 1000.0
        ),
        "largest_peak_in_flight": max(peaks, default=0),
    } | _memory_highlights(tables, scenario)


def _slope_ratio(numerator: float | None, denominator: float | None) -> float | None:
    """numerator / denominator for two positive, finite slopes, else None."""
    found = (
        None if numerator is None or denominator is None else single_ratio(numerator, denominator)
    )
    return None if found is None else found.value


def c100k_highlights(entries: dict[str, Any]) -> dict[str, Any]:
    """Past one process: per model, the most connections it held (the server's verified peak)
    and how long it took to open them; its memory per connection in one process and across
    several, and their ratio (whether the slope holds at a hundred thousand)."""
    models: dict[str, Any] = {}
    for model in catalog.model_order(list(entries)):
        entry = entries[model]
        found = entry.get("points") or []
        held = max(found, key=lambda p: p["server_peak_in_flight"] or 0, default=None)
        alone = entry.get("memory_per_connection") or {}
        across = (entry.get("memory_across_processes") or [{}])[-1]
        one, many = alone.get("rss_bytes") or {}, across.get("rss_bytes") or {}
        one_net, many_net = alone.get("per_url") or {}, across.get("per_url") or {}
        models[model] = {
            "held": None if held is None else int(held["server_peak_in_flight"] or 0),
            "held_concurrency": None if held is None else held["concurrency"],
            "held_processes": None if held is None else held.get("processes", 1),
            "ramp_s": recorded_median((held or {}).get("ramp_s")),
            "one_process_bytes": one.get("slope"),
            "one_process_ci95": one.get("slope_ci95"),
            "one_process_concurrencies": alone.get("concurrencies"),
            "processes": across.get("processes"),
            "across_processes_bytes": many.get("slope"),
            "across_processes_ci95": many.get("slope_ci95"),
            "across_processes_concurrencies": across.get("concurrencies"),
            "ratio": _slope_ratio(many.get("slope"), one.get("slope")),
            # Net of the URLs each connection brings (a point with more pages per
            # connection at each process count): what the connection alone costs.
            "one_process_net_bytes": one_net.get("net_rss_bytes"),
            "one_process_net_ci95": one_net.get("net_rss_bytes_ci95"),
            "across_processes_net_bytes": many_net.get("net_rss_bytes"),
            "across_processes_net_ci95": many_net.get("net_rss_bytes_ci95"),
            "one_process_url_bytes": one_net.get("bytes_per_url"),
            "across_processes_url_bytes": many_net.get("bytes_per_url"),
            "net_ratio": _slope_ratio(many_net.get("net_rss_bytes"), one_net.get("net_rss_bytes")),
        }
    return {
        "largest_peak_in_flight": max((m["held"] or 0 for m in models.values()), default=0),
        "models": models,
    }


def latency_sweep_highlights(table: Points) -> dict[str, Any]:
    """At the lowest and the highest latency: best and worst pages/s, best share of C/L."""
    latencies = sorted({p["latency"] for e in table.values() for p in e}, key=mean_latency)
    ends = [latencies[0], latencies[-1]] if len(latencies) > 1 else latencies
    by_latency = []
    for latency in ends:
        rate = _ranked(table, _where("latency", latency), "pages_per_s", True)
        fractions = [
            float(p["fraction_of_ideal"])
            for e in table.values()
            for p in e
            if p["latency"] == latency and p.get("fraction_of_ideal")
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


def idle_highlights(units: dict[str, Any]) -> dict[str, Any]:
    """The idle kinds compared: thread against task, cheapest and costliest coroutine, the
    most started, and the coroutine kinds from the slowest start rate to the fastest."""
    thread = units.get(catalog.THREAD.name) or {}
    task = units.get(catalog.ASYNCIO_TASK.name) or {}
    coroutines = [units[k] | {"kind": k} for k in catalog.COROUTINE_KINDS if k in units]
    measured = [u for u in coroutines if u.get("rss_bytes_per_unit") is not None]
    shown = [u for u in coroutines if u.get("rss_bytes_per_unit")]
    started = [u for u in coroutines if u.get("count")]

    def total(unit: dict[str, Any]) -> float:
        return float(unit.get("total_bytes_per_unit") or 0.0)

    def rate(unit: dict[str, Any]) -> float:
        value = unit.get("start_rate_per_s")
        return math.inf if value is None else float(value)

    thread_total, task_total = thread.get("total_bytes_per_unit"), task.get("total_bytes_per_unit")
    return {
        "thread_over_task": thread_total / task_total if thread_total and task_total else None,
        "cheapest_coroutine": min(shown, key=total)["kind"] if shown else None,
        "most_started_coroutine": max(shown, key=lambda u: u.get("count") or 0)["kind"]
        if shown
        else None,
        "costliest_coroutine": max(measured, key=total)["kind"] if measured else None,
        "most_coroutine_units": max((u.get("count") or 0 for u in coroutines), default=0),
        "coroutines_by_start_rate": [u["kind"] for u in sorted(started, key=rate)],
    }
