"""Figures across models, from the derived tables: ratios, rankings, extremes (pure)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from bench.harness.analysis import run_plateau
from bench.harness.plan import mean_latency
from c10k import catalog
from c10k.stats import (
    Interval,
    Ratio,
    combined_ratio,
    median,
    median_interval,
    paired_ratio,
    recorded_interval,
    recorded_median,
    single_ratio,
)

KIB = 1024.0
Points = dict[str, list[dict[str, Any]]]  # model -> its verified points in one scenario
FEW_ACTIVE, SLEEPY = catalog.FEW_ACTIVE.name, catalog.SLEEPY.name
FEW_ACTIVE_KEEP_ALIVE = catalog.FEW_ACTIVE_KEEP_ALIVE.name
SLEEPY_KEEP_ALIVE = catalog.SLEEPY_KEEP_ALIVE.name
THREADS, ASYNCIO = catalog.THREADS.name, catalog.ASYNCIO.name


def _points(tables: dict[str, Any], scenario: str) -> Points:
    return {model: entry.get("points") or [] for model, entry in tables.get(scenario, {}).items()}


def _largest_concurrency(table: Points) -> int:
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


# -- ratios between models --------------------------------------------------------------------


def _by_round(point: dict[str, Any], figure: str) -> dict[int, float]:
    """A point's per-run figure keyed by the round it ran in."""
    return {
        int(run["round"]): float(run[figure])
        for run in point.get("rounds") or []
        if run.get(figure) is not None
    }


def point_ratio(top: dict[str, Any], bottom: dict[str, Any], figure: str) -> Ratio | None:
    """figure(top) / figure(bottom) at one point, paired by round (rep k of both ran next
    to each other); the ratio of the medians, without an interval, when no round pairs up."""
    found = paired_ratio(_by_round(top, figure), _by_round(bottom, figure))
    if found is not None:
        return found
    a, b = recorded_median(top.get(figure)), recorded_median(bottom.get(figure))
    return None if a is None or b is None else single_ratio(a, b)


def ratio_over_points(
    table: Points, numerator: str, denominator: str, figure: str, skip_saturated: bool = False
) -> tuple[float | None, Interval | None, list[int]]:
    """Geometric mean over shared points of figure(numerator) / figure(denominator), its 95%
    interval (None when a point has one round) and the concurrencies used.

    Points where the test server was CPU-bound for either model are left out when
    skip_saturated: their pages/s is the server's, not the crawler's.
    """
    by_key = {
        name: {(p["concurrency"], p["latency"]): p for p in table.get(name, [])}
        for name in (numerator, denominator)
    }
    ratios, used = [], []
    for key in sorted(set(by_key[numerator]) & set(by_key[denominator])):
        a, b = by_key[numerator][key], by_key[denominator][key]
        if skip_saturated and (a["server_saturated_runs"] or b["server_saturated_runs"]):
            continue
        ratio = point_ratio(a, b, figure)
        if ratio is None:
            continue
        ratios.append(ratio)
        used.append(int(key[0]))
    if not ratios:
        return None, None, used
    value, interval = combined_ratio(ratios)
    return value, interval, used


def _listed(interval: Interval | None) -> list[float] | None:
    return None if interval is None else interval.as_list()


def event_loop_vs_threads(table: Points) -> dict[str, Any]:
    """Each event-loop model's pages/s and CPU per page over the threads' (server-bound
    points left out of pages/s) with their intervals, and the median of the pages/s ratios."""
    models: dict[str, Any] = {}
    used_all: list[int] = []
    intervals: list[Interval | None] = []
    for model in (m.name for m in catalog.MODELS.values() if m.event_loop):
        ratio, interval, used = ratio_over_points(
            table, model, THREADS, "pages_per_s", skip_saturated=True
        )
        if ratio is None:
            continue
        used_all += used
        intervals.append(interval)
        cpu, cpu_interval, _ = ratio_over_points(table, model, THREADS, "cpu_us_per_page")
        models[model] = {
            "pages_per_s": ratio,
            "pages_per_s_ci95": _listed(interval),
            "cpu_us_per_page": cpu,
            "cpu_us_per_page_ci95": _listed(cpu_interval),
            "concurrencies": used,
        }
    ratios = [m["pages_per_s"] for m in models.values()]
    return {
        "models": models,
        "median_pages_per_s": median(ratios) if ratios else None,
        "median_pages_per_s_ci95": _listed(median_interval(intervals)),
        "concurrencies": sorted(set(used_all)),
    }


def instruction_ratios(table: dict[str, Any]) -> dict[str, Any] | None:
    """Callgrind's instructions per page of each event-loop model over the threads', and of
    each model on asyncio's loop over its twin on another (keyed by the twin): C6's and
    C9's CPU ratios on the figure that holds still."""

    def per_page(model: str) -> float | None:
        return recorded_median((table.get(model) or {}).get("instructions_per_page"))

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


def uvloop_speedups(tables: dict[str, Any]) -> dict[str, Any] | None:
    """CPU per page of each model on asyncio's loop over its twin's on another (and the
    pages/s ratio), with their intervals, in few-active, or in sleepy when few-active has no
    pair; the uvloop pairs first (catalog.LOOP_PAIRS)."""
    for scenario in (FEW_ACTIVE, SLEEPY):
        table = _points(tables, scenario)
        pairs = []
        for plain, fast in ((a.name, b.name) for a, b in catalog.LOOP_PAIRS):
            speedup, interval, used = ratio_over_points(table, plain, fast, "cpu_us_per_page")
            if speedup is not None:
                rate, rate_interval, _ = ratio_over_points(table, fast, plain, "pages_per_s")
                pairs.append(
                    {
                        "plain": plain,
                        "fast": fast,
                        "cpu_per_page_speedup": speedup,
                        "cpu_per_page_speedup_ci95": _listed(interval),
                        "pages_per_s_ratio": rate,
                        "pages_per_s_ratio_ci95": _listed(rate_interval),
                        "concurrencies": used,
                    }
                )
        if pairs:
            return {"scenario": scenario, "pairs": pairs}
    return None


def asyncio_vs_threads(table: Points) -> dict[str, Any] | None:
    """asyncio's largest verified sleepy point, the threads' fraction of C/L there, with
    their intervals, and asyncio's plateau pages/s over the threads' paired by round."""
    mine = [p for p in table.get(ASYNCIO, []) if p.get("fraction_of_ideal") is not None]
    if not mine:
        return None
    top = max(mine, key=lambda p: p["concurrency"])
    theirs = [
        p
        for p in table.get(THREADS, [])
        if p["concurrency"] == top["concurrency"] and p.get("fraction_of_ideal") is not None
    ]
    other = theirs[0] if theirs else None
    ratio = point_ratio(top, other, "plateau_pages_per_s") if other else None
    return {
        "concurrency": int(top["concurrency"]),
        "latency": top["latency"],
        "pages": top["pages"],
        "asyncio_fraction_of_ideal": float(top["fraction_of_ideal"]),
        "asyncio_fraction_of_ideal_ci95": top.get("fraction_of_ideal_ci95"),
        "threads_fraction_of_ideal": float(other["fraction_of_ideal"]) if other else None,
        "threads_fraction_of_ideal_ci95": other.get("fraction_of_ideal_ci95") if other else None,
        "asyncio_over_threads": ratio.value if ratio else None,
        "asyncio_over_threads_ci95": _listed(ratio.interval()) if ratio else None,
    }


# -- what each scenario's chart and verdicts quote -------------------------------------------


def few_active_highlights(table: Points) -> dict[str, Any]:
    """At the largest concurrency: the best and worst pages/s, CPU per page and p99 latency."""
    top = _largest_concurrency(table)
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
    table = _points(tables, scenario)
    top = _largest_concurrency(table)
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


def not_counted(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Measured runs that did not count, in run order, with what they still measured."""
    found = []
    for run in runs:
        if run.get("kind") != "measured" or run.get("status") == "ok":
            continue
        params = run.get("params") or {}
        crawl = run.get("crawl") or {}
        latency = (params.get("server") or {}).get("latency")
        found.append(
            {
                "run_id": str(run.get("id")),
                "scenario": str(run.get("scenario")),
                "model": str(run.get("model")),
                "status": str(run.get("status")),
                "reason": str(run.get("reason") or run.get("status")),
                "concurrency": params.get("concurrency"),
                "latency": latency,
                "mean_latency_s": mean_latency(latency or "0"),
                "pages_per_s": crawl.get("pages_per_s"),
                "plateau_rss_kib": run_plateau(run).get("rss_kib"),
                "cpu_us_per_page": crawl.get("cpu_us_per_page"),
            }
        )
    return found


def socket_ceiling(environment: dict[str, Any]) -> dict[str, Any]:
    """Sockets one process can open to one server: the lower of open files and ports."""
    limits = environment.get("limits") or {}
    candidates = []
    nofile = (limits.get("RLIMIT_NOFILE") or {}).get("hard")
    if isinstance(nofile, int):
        candidates.append((nofile, "hard RLIMIT_NOFILE"))
    ports = limits.get("ephemeral_ports_per_destination")
    if isinstance(ports, int):
        candidates.append((ports, "ephemeral ports per destination"))
    if not candidates:
        return {"count": None, "limit": "unknown"}
    count, limit = min(candidates)
    return {"count": count, "limit": limit}


def overview(
    tables: dict[str, Any], runs: list[dict[str, Any]], environment: dict[str, Any]
) -> dict[str, Any]:
    """The figures across models and runs, beside the per-scenario tables in `derived`."""
    few_active = _points(tables, FEW_ACTIVE)
    highlights: dict[str, Any] = {}
    if catalog.IDLE.name in tables:
        highlights[catalog.IDLE.name] = idle_highlights(tables[catalog.IDLE.name])
    for name in (FEW_ACTIVE, FEW_ACTIVE_KEEP_ALIVE):
        if name in tables:
            highlights[name] = few_active_highlights(_points(tables, name))
    for name in (SLEEPY, SLEEPY_KEEP_ALIVE):
        if name in tables:
            highlights[name] = sleepy_highlights(tables, name)
    if catalog.C100K.name in tables:
        highlights[catalog.C100K.name] = c100k_highlights(tables[catalog.C100K.name])
    if catalog.LATENCY_SWEEP.name in tables:
        highlights[catalog.LATENCY_SWEEP.name] = latency_sweep_highlights(
            _points(tables, catalog.LATENCY_SWEEP.name)
        )
    return {
        "not_counted": not_counted(runs),
        "comparisons": {
            "event_loop_vs_threads": event_loop_vs_threads(few_active),
            "uvloop": uvloop_speedups(tables),
            "asyncio_vs_threads_sleepy": asyncio_vs_threads(_points(tables, SLEEPY)),
            "asyncio_vs_threads_sleepy_keep_alive": asyncio_vs_threads(
                _points(tables, SLEEPY_KEEP_ALIVE)
            ),
            "instructions": instruction_ratios(tables.get(catalog.INSTRUCTIONS.name) or {}),
        },
        "highlights": highlights,
        "socket_ceiling": socket_ceiling(environment),
    }
