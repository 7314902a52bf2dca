"""A crawl scenario's points: its runs grouped by point, each point's figures over them."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from typing import Any

from bench.analysis.busy import point_busy
from bench.analysis.plateau import run_plateau
from c10k import probes
from c10k.stats import recorded_interval, summarize
from server.specs import parse_duration

Points = dict[str, list[dict[str, Any]]]  # model -> its verified points in one scenario


def mean_latency(spec: str) -> float:
    """The mean of a server latency SPEC (fixed, uniform:a..b, exp:m, lognormal:median,sigma)."""
    kind, _, rest = spec.partition(":")
    if not rest:
        return parse_duration(spec)
    if kind == "uniform":
        low, _, high = rest.partition("..")
        return (parse_duration(low) + parse_duration(high)) / 2
    if kind == "exp":
        return parse_duration(rest)
    if kind == "lognormal":
        centre, _, sigma = rest.partition(",")
        return parse_duration(centre) * math.exp(float(sigma or 0) ** 2 / 2)
    raise ValueError(f"unknown latency spec: {spec!r}")


def measured_ok(runs: Iterable[dict[str, Any]], scenario: str) -> list[dict[str, Any]]:
    return [
        r
        for r in runs
        if r["scenario"] == scenario and r["kind"] == "measured" and r["status"] == "ok"
    ]


# A crawl point's identity: concurrency, latency, pages and crawler processes.
PointKey = tuple[int, str, int, int]


def point_key(run: dict[str, Any]) -> PointKey:
    params = run["params"]
    server = params["server"]
    processes = params.get("processes", 1)  # files before `c10k crawl --processes`: one
    return params["concurrency"], server["latency"], server["pages"], processes


def _measured(
    runs: Iterable[dict[str, Any]], scenario: str, model: str
) -> Iterable[dict[str, Any]]:
    return (
        r
        for r in runs
        if r["scenario"] == scenario and r["model"] == model and r["kind"] == "measured"
    )


def runs_by_status(runs: Iterable[dict[str, Any]], scenario: str, model: str) -> dict[str, int]:
    return dict(Counter(r["status"] for r in _measured(runs, scenario, model)))


def attempts(runs: Iterable[dict[str, Any]], scenario: str, model: str) -> Counter[PointKey]:
    """Per point, the measured runs that ran (verified or not; a skipped run never did)."""
    return Counter(
        point_key(r) for r in _measured(runs, scenario, model) if r["status"] != "skipped"
    )


def kernel_delta_kib(run: dict[str, Any]) -> float | None:
    """Machine-wide kernel memory at a run's plateau minus before it: stacks, slab, page
    tables and TCP buffers (both ends of each loopback connection)."""
    plateau = run_plateau(run)
    before = run.get("kernel_before") or {}
    meminfo = before.get("meminfo_kib") or {}
    sockstat = before.get("sockstat") or {}
    total = 0.0
    for field_name, sampled in probes.KERNEL_GROWTH_FIELDS.items():
        if plateau.get(sampled) is None or meminfo.get(field_name) is None:
            return None
        total += plateau[sampled] - meminfo[field_name]
    if plateau.get("tcp_mem_kib") is not None:
        total += plateau["tcp_mem_kib"] - sockstat.get("mem_kib", 0)
    return total


def run_round(run: dict[str, Any]) -> int:
    """The round a measured run ran in; older files have only the repetition, which their
    plan ran round-robin the same way."""
    found = run.get("round")
    return int(run["repetition"] if found is None else found)


def _plateau_rate(crawl: dict[str, Any], latency: float) -> float | None:
    """Fetches after the root over the time after the root's own latency: the rate in the
    plateau, which a perfect crawler makes C/L on a wide site of whole waves."""
    return (crawl["pages"] - 1) / (crawl["wall_s"] - latency) if crawl["wall_s"] > latency else None


def crawl_point(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Median, spread and 95% interval of one (model, point) over its valid repetitions, and
    each run's figures by round, so that ratios between models can pair them."""
    crawls = [r["crawl"] for r in runs]
    params = runs[0]["params"]
    latency = mean_latency(params["server"]["latency"])
    concurrency = params["concurrency"]
    figures: dict[str, Any] = {
        "site": params["server"].get("preset") or params["server"]["shape"],
        "concurrency": concurrency,
        "processes": params.get("processes", 1),
        "latency": params["server"]["latency"],
        "mean_latency_s": latency,
        "pages": crawls[0]["pages"],
        "runs": len(runs),
        "pages_per_s": summarize([c["pages_per_s"] or 0.0 for c in crawls]).as_dict(),
        "cpu_us_per_page": summarize([c["cpu_us_per_page"] or 0.0 for c in crawls]).as_dict(),
        "latency_p50_s": summarize([c["latency_s"]["p50"] for c in crawls]).as_dict(),
        "latency_p99_s": summarize([c["latency_s"]["p99"] for c in crawls]).as_dict(),
        "max_rss_kib": summarize([float(c["max_rss_kib"]) for c in crawls]).as_dict(),
        "server_saturated_runs": sum(1 for r in runs if r["server"]["saturated"]),
        "server_peak_in_flight": max(
            (r["verification"]["server_peak_in_flight"] or 0) for r in runs
        ),
    }
    wide = latency > 0 and params["server"]["shape"] == "wide"
    figures["rounds"] = [
        {
            "round": run_round(r),
            "pages_per_s": c["pages_per_s"],
            "cpu_us_per_page": c["cpu_us_per_page"],
        }
        | ({"plateau_pages_per_s": _plateau_rate(c, latency)} if wide else {})
        for r, c in zip(runs, crawls, strict=True)
    ]
    if wide:
        plateau = [rate for c in crawls if (rate := _plateau_rate(c, latency)) is not None]
        ideal = concurrency / latency
        figures["ideal_pages_per_s"] = ideal
        figures["plateau_pages_per_s"] = summarize(plateau).as_dict()
        median = figures["plateau_pages_per_s"]["median"]
        figures["fraction_of_ideal"] = median / ideal if median else None
        interval = recorded_interval(figures["plateau_pages_per_s"])
        figures["fraction_of_ideal_ci95"] = (
            interval.scaled(1 / ideal).as_list() if interval and median else None
        )
    kernel = [d for d in (kernel_delta_kib(r) for r in runs) if d is not None]
    if kernel:
        figures["plateau_kernel_delta_kib"] = summarize(kernel).as_dict()
    plateaus = [run_plateau(r) for r in runs]
    rss = [float(p["rss_kib"]) for p in plateaus if p.get("rss_kib") is not None]
    if rss:
        figures["plateau_rss_kib"] = summarize(rss).as_dict()
        uss = [float(p["uss_kib"]) for p in plateaus if p.get("uss_kib") is not None]
        figures["plateau_uss_kib"] = summarize(uss).as_dict() if uss else None
        tcp = [
            float(p["tcp_mem_kib"] - r["kernel_before"]["sockstat"].get("mem_kib", 0))
            for p, r in zip(plateaus, runs, strict=True)
            if p.get("tcp_mem_kib") is not None
        ]
        figures["plateau_tcp_mem_delta_kib"] = summarize(tcp).as_dict() if tcp else None
        ramps = [float(p["ramp_s"]) for p in plateaus if p.get("ramp_s") is not None]
        figures["ramp_s"] = summarize(ramps).as_dict() if ramps else None
    return figures | point_busy(runs)


def split_url_points(
    groups: dict[PointKey, list[dict[str, Any]]],
) -> tuple[list[PointKey], list[PointKey]]:
    """Per concurrency (and processes), the point with the fewest pages is the scenario's own;
    one with more pages per connection at the same C only measures the per-URL share."""
    fewest: dict[tuple[int, int], int] = {}
    for c, _, pages, processes in groups:
        fewest[c, processes] = min(pages, fewest.get((c, processes), pages))
    base = [k for k in groups if k[2] == fewest[k[0], k[3]]]
    return base, [k for k in groups if k[2] != fewest[k[0], k[3]]]


def sort_key(key: PointKey) -> tuple[int, int, float, int]:
    return key[3], key[0], mean_latency(key[1]), key[2]


def scenario_points(tables: dict[str, Any], scenario: str) -> Points:
    return {model: entry.get("points") or [] for model, entry in tables.get(scenario, {}).items()}
