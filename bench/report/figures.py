"""The figures the report shows, read from a results document's `derived` section as they are."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from c10k import catalog
from c10k.stats import Interval, recorded_interval, recorded_median

KIB = 1024.0


# The thread-ceiling program (impls/tools/thread_ceiling.py) stops at "cap" when it reached the
# harness's own ceiling; every other stopped_by names a machine limit (or the harness
# stepping back just before one), whichever words the program uses for it.
HARNESS_CAP = "cap"


def stopped_by_a_limit(ceiling: dict[str, Any]) -> bool:
    """Whether threads-until-failure ended at a limit of the machine, not at the cap."""
    return str(ceiling["stopped_by"]) != HARNESS_CAP


def stopped_by_a_machine_limit(ceiling: dict[str, Any]) -> bool:
    """Whether threads started in several processes ended at a limit of the whole machine
    (kernel.pid_max or its reserve, threads-max, memory), not at each process's own or the cap."""
    stopped = str(ceiling["stopped_by"])
    return stopped != HARNESS_CAP and not stopped.startswith("per-process")


def derived(document: dict[str, Any], scenario: str) -> dict[str, Any]:
    """derived.<scenario>, or {} when the scenario did not run."""
    table: dict[str, Any] = (document.get("derived") or {}).get(scenario) or {}
    return table


def points(document: dict[str, Any], scenario: str) -> dict[str, list[dict[str, Any]]]:
    """Model -> its verified points in a crawl scenario (sorted by concurrency, latency)."""
    return {
        model: entry.get("points") or [] for model, entry in derived(document, scenario).items()
    }


def peers(document: dict[str, Any]) -> dict[str, Any]:
    """derived.peers: per peer, its scenarios' tables (and why it did not run, if so)."""
    table: dict[str, Any] = (document.get("derived") or {}).get("peers") or {}
    return table


def peer_points(document: dict[str, Any], scenario: str) -> dict[str, list[dict[str, Any]]]:
    """Peer -> its verified points in a crawl scenario, as points() gives a model's."""
    return {
        name: (entry["scenarios"].get(scenario) or {}).get("points") or []
        for name, entry in peers(document).items()
        if scenario in entry.get("scenarios", {})
    }


def highlights(document: dict[str, Any], scenario: str) -> dict[str, Any]:
    """derived.highlights.<scenario>: the figures a scenario's chart and verdicts quote."""
    table: dict[str, Any] = derived(document, "highlights").get(scenario) or {}
    return table


def comparison(document: dict[str, Any], name: str) -> dict[str, Any] | None:
    """derived.comparisons.<name>: ratios between models, None when they were not measured."""
    found: dict[str, Any] | None = derived(document, "comparisons").get(name)
    return found


def socket_ceiling(document: dict[str, Any]) -> tuple[int | None, str]:
    """Sockets one process can open to one server, and the limit that sets it."""
    ceiling = derived(document, "socket_ceiling")
    return ceiling.get("count"), str(ceiling.get("limit", "unknown"))


# Scenarios that only some profiles run: many-links-keep-alive is the free-threading
# profile's, for C8, which is judged beside the runtimes (docs/runtimes.md); c100k the full
# profile's, an hour and more of 100,000 connections.
PROFILE_OWN_SCENARIOS = (catalog.MANY_LINKS_KEEP_ALIVE.name, catalog.C100K.name)


def scenarios_not_run(document: dict[str, Any]) -> list[str]:
    """Scenarios with no run at all (derived has a table for every scenario that ran); one of
    PROFILE_OWN_SCENARIOS only when the profile gave it something to run."""
    definition = (document.get("profile") or {}).get("definition") or {}
    profiled = {
        s.get("name")
        for s in definition.get("scenarios") or []
        if s.get("points") or s.get("idle") or s.get("loops")
    }
    return [
        s
        for s in catalog.SCENARIOS
        if s not in (document.get("derived") or {})
        and (s not in PROFILE_OWN_SCENARIOS or s in profiled)
    ]


# -- runs that did not count -----------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """A measured run that did not count, with what it still tells (for crossed markers)."""

    run_id: str
    scenario: str
    model: str
    status: str
    reason: str
    concurrency: int | None
    latency: str | None
    mean_latency_s: float
    pages_per_s: float | None  # from its crawl document, when it produced one
    plateau_rss_kib: float | None
    cpu_us_per_page: float | None


def problems(document: dict[str, Any], scenario: str | None = None) -> list[Problem]:
    """Measured runs whose status is not ok (all scenarios, or one)."""
    found = (document.get("derived") or {}).get("not_counted") or []
    return [Problem(**p) for p in found if scenario is None or p["scenario"] == scenario]


# -- memory per connection (sleepy) ---------------------------------------------------------


@dataclass(frozen=True)
class MemoryPerConnection:
    """Bytes per connection from the fits: held (plateau RSS, kernel beside it) and peak
    (the whole run's peak RSS)."""

    model: str
    concurrencies: list[int]
    rss_bytes: float | None
    rss_r2: float | None
    rss_intercept: float | None
    kernel_bytes: float | None
    total_bytes: float | None  # RSS slope + kernel slope (a negative kernel slope as 0)
    points_rss_kib: list[tuple[int, float]] = field(default_factory=list)
    peak_bytes: float | None = None  # the slope of the runs' peak RSS
    peak_r2: float | None = None
    peak_ci95: Interval | None = None
    runs: int | None = None  # runs fitted (each an independent process)
    rss_ci95: Interval | None = None  # the RSS slope's 95% interval, over the runs
    rss_repeat95: Interval | None = None  # where a repeat run's slope should fall (95%)
    total_ci95: Interval | None = None  # the same shifted by the kernel slope
    check_bytes: float | None = None  # the independent check: smaps_rollup's anonymous slope
    check_gap: float | None = None  # (check - RSS slope) / RSS slope
    url_bytes: float | None = None  # bytes held per URL in the frontier
    url_ci95: Interval | None = None
    net_bytes: float | None = None  # per connection, net of the URLs it brings
    net_ci95: Interval | None = None
    urls_per_connection: float | None = None


def memory_per_connection(document: dict[str, Any]) -> dict[str, MemoryPerConnection]:
    """Per model in sleepy: the RSS and kernel slopes and the plateau RSS points."""
    result: dict[str, MemoryPerConnection] = {}
    for model, entry in derived(document, catalog.SLEEPY.name).items():
        fit = entry.get("memory_per_connection") or {}
        rss = fit.get("rss_bytes") or {}
        kernel = fit.get("kernel_bytes") or {}
        peak = fit.get("peak_rss_bytes") or {}
        per_url = fit.get("per_url") or {}
        result[model] = MemoryPerConnection(
            model=model,
            concurrencies=[int(c) for c in fit.get("concurrencies") or []],
            rss_bytes=rss.get("slope"),
            rss_r2=rss.get("r2"),
            rss_intercept=rss.get("intercept"),
            kernel_bytes=kernel.get("slope"),
            total_bytes=fit.get("total_bytes"),
            points_rss_kib=[
                (int(p["concurrency"]), rss_kib)
                for p in entry.get("points") or []
                if (rss_kib := recorded_median(p.get("plateau_rss_kib"))) is not None
            ],
            peak_bytes=peak.get("slope"),
            peak_r2=peak.get("r2"),
            peak_ci95=recorded_interval(peak.get("slope_ci95")),
            runs=fit.get("runs"),
            rss_ci95=recorded_interval(rss.get("slope_ci95")),
            rss_repeat95=recorded_interval(rss.get("slope_repeat95")),
            total_ci95=recorded_interval(fit.get("total_bytes_ci95")),
            check_bytes=(fit.get("check_anon_bytes") or {}).get("slope"),
            check_gap=fit.get("check_gap"),
            url_bytes=per_url.get("bytes_per_url"),
            url_ci95=recorded_interval(per_url.get("bytes_per_url_ci95")),
            net_bytes=per_url.get("net_rss_bytes"),
            net_ci95=recorded_interval(per_url.get("net_rss_bytes_ci95")),
            urls_per_connection=per_url.get("urls_per_connection"),
        )
    return result


# -- idle units ------------------------------------------------------------------------------


@dataclass(frozen=True)
class IdleUnit:
    kind: str
    count: int | None
    rss_bytes: float | None
    rss_r2: float | None
    kernel_bytes: float | None  # KernelStack + Slab + PageTables per unit, negatives as 0
    total_bytes: float | None  # RSS + kernel per unit
    tracemalloc_bytes: float | None
    seconds_to_start_all: float | None
    start_rate_per_s: float | None
    rss_kib_at_count: float | None
    max_threads: dict[str, Any] | None
    problems: list[dict[str, Any]]
    max_threads_machine: dict[str, Any] | None = None  # several processes at once (C5)


NO_UNIT = IdleUnit("", None, None, None, None, None, None, None, None, None, None, [])


def idle_units(document: dict[str, Any]) -> dict[str, IdleUnit]:
    """Per idle kind: per-unit costs, units reached and the thread ceiling."""
    return {
        kind: IdleUnit(
            kind=kind,
            count=entry.get("count"),
            rss_bytes=entry.get("rss_bytes_per_unit"),
            rss_r2=entry.get("rss_r2"),
            kernel_bytes=entry.get("kernel_total_bytes_per_unit"),
            total_bytes=entry.get("total_bytes_per_unit"),
            tracemalloc_bytes=entry.get("tracemalloc_bytes_per_unit"),
            seconds_to_start_all=entry.get("seconds_to_start_all"),
            start_rate_per_s=entry.get("start_rate_per_s"),
            rss_kib_at_count=entry.get("rss_kib_at_count"),
            max_threads=entry.get("max_threads"),
            problems=list(entry.get("problems") or []),
            max_threads_machine=entry.get("max_threads_machine"),
        )
        for kind, entry in derived(document, catalog.IDLE.name).items()
    }


def units_parked(document: dict[str, Any]) -> dict[str, int]:
    """Per idle kind: the units its counted slope run had parked at its last sample (what it
    reached, as measured; not the count it was asked for)."""
    reached: dict[str, int] = {}
    for run in document.get("runs") or []:
        idle = run.get("idle") or {}
        if run.get("scenario") != catalog.IDLE.name or run.get("status") != "ok":
            continue
        if idle.get("mode") == "slope" and idle.get("points"):
            kind = str(run.get("model"))
            reached[kind] = max(reached.get(kind, 0), int(idle["points"][-1]["n"]))
    return reached


def failed_slope_runs(document: dict[str, Any]) -> dict[str, list[tuple[int, str, str | None]]]:
    """Per idle kind: (count asked, status, reason) of every slope run that did not count."""
    return {
        kind: [
            (int(p["count"]), p["status"], p.get("reason"))
            for p in unit.problems
            if p.get("mode") == "slope"
        ]
        for kind, unit in idle_units(document).items()
    }
