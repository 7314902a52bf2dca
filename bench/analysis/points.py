"""A crawl scenario's points: its runs grouped by point, each point's figures over them."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from bench.analysis.busy import add_point_busy, server_cpu_lost
from bench.analysis.plateau import run_plateau
from bench.results import CrawlDocument, Point, RoundFigures, Run
from c10k import probes
from c10k.durations import Latency
from c10k.quantity import Quantity, Unit
from c10k.stats import median, summarize

Points = dict[str, list[Point]]  # model -> its verified points in one scenario


def measured_ok(runs: Iterable[Run], scenario: str) -> list[Run]:
    """The measured runs of a scenario that count: verified, and not of a noisy round."""
    return [
        r
        for r in runs
        if r["scenario"] == scenario
        and r["kind"] == "measured"
        and r["status"] == "ok"
        and not r["noisy"]
    ]


# What a scenario's figures group runs by: concurrency, latency, pages, crawler processes
# and core.
Group = tuple[int, Latency, int, int, str]


def group_of(run: Run) -> Group:
    params = run["params"]
    server = params["server"]
    return (
        params["concurrency"],
        server["latency"],
        server["pages"],
        params["processes"],
        params["core"],
    )


def grouped(runs: Iterable[Run]) -> dict[Group, list[Run]]:
    """Runs by the point they ran at (group_of), in run order."""
    groups: dict[Group, list[Run]] = defaultdict(list)
    for run in runs:
        groups[group_of(run)].append(run)
    return groups


def _measured(runs: Iterable[Run], scenario: str, model: str) -> Iterable[Run]:
    return (
        r
        for r in runs
        if r["scenario"] == scenario and r["model"] == model and r["kind"] == "measured"
    )


def runs_by_status(runs: Iterable[Run], scenario: str, model: str) -> dict[str, int]:
    return dict(Counter(r["status"] for r in _measured(runs, scenario, model)))


def ran(run: Run) -> bool:
    """True when the run started: a skipped or not-run run never ran."""
    return run["status"] not in ("skipped", "not-run")


def attempts(runs: Iterable[Run], scenario: str, model: str, noisy: bool = False) -> Counter[Group]:
    """Per point, the measured runs that ran and may count (verified or not; a noisy
    round's run counts in nothing); with noisy, the runs of noisy rounds instead."""
    return Counter(
        group_of(r) for r in _measured(runs, scenario, model) if ran(r) and r["noisy"] == noisy
    )


def crawl_of(run: Run) -> CrawlDocument:
    """The crawl document of a run that counted: every verified crawl has one."""
    crawl = run.get("crawl")
    if crawl is None:
        raise ValueError(f"{run['id']} is {run['status']} without a crawl document")
    return crawl


def kernel_delta_kib(run: Run) -> float | None:
    """Machine-wide kernel memory at a run's plateau minus before it: stacks, slab, page
    tables and TCP buffers (both ends of each loopback connection)."""
    plateau: Mapping[str, Any] = run_plateau(run)  # its columns by their sampled names
    before = run.get("kernel_before")
    meminfo = before["meminfo_kib"] if before else {}
    total = 0.0
    for field_name, sampled in probes.KERNEL_GROWTH_FIELDS.items():
        if plateau.get(sampled) is None or meminfo.get(field_name) is None:
            return None
        total += plateau[sampled] - meminfo[field_name]
    tcp = tcp_delta_kib(run)
    return total if tcp is None else total + tcp


def tcp_delta_kib(run: Run) -> float | None:
    """The TCP buffers at a run's plateau (both ends of each loopback connection), less those
    before it; None where they were not sampled."""
    tcp = run_plateau(run).get("tcp_mem_kib")
    return None if tcp is None else float(tcp - run["kernel_before"]["sockstat"].get("mem_kib", 0))


def run_round(run: Run) -> int:
    """The round a measured crawl ran in (the plan gives every measured crawl one)."""
    found = run["round"]
    if found is None:
        raise ValueError(f"{run['id']} is a measured crawl without a round")
    return found


def _plateau_rate(crawl: CrawlDocument, root_latency: float) -> float | None:
    """Fetches after the root over the time after the root's own latency (0 on a site whose
    root answers at once): the rate in the plateau, which a perfect crawler makes C/L on a
    wide site of whole waves."""
    wall, pages = crawl["wall_s"], crawl["pages"]
    return (pages - 1) / (wall - root_latency) if wall > root_latency else None


def crawl_point(runs: list[Run]) -> Point:
    """Median, spread and 95% interval of one (model, point) over its valid repetitions, and
    each run's figures by round, so that ratios between models can pair them."""
    crawls = [crawl_of(r) for r in runs]
    params = runs[0]["params"]
    server = params["server"]
    latency = server["latency"].mean_s
    wide = latency > 0 and server["shape"] == "wide"
    root_latency = latency if server["root_latency"] else 0.0
    figures: Point = {
        "site": server.get("preset") or server["shape"],
        "concurrency": params["concurrency"],
        "processes": params["processes"],
        "core": params["core"],
        "latency": server["latency"],
        "pages": crawls[0]["pages"],
        "runs": len(runs),
        "pages_per_s": summarize([c["pages_per_s"] or 0.0 for c in crawls], "pages/s"),
        "cpu_us_per_page": summarize([c["cpu_us_per_page"] or 0.0 for c in crawls], "us/page"),
        "latency_p50_s": summarize([c["latency_s"]["p50"] for c in crawls], "s"),
        "latency_p99_s": summarize([c["latency_s"]["p99"] for c in crawls], "s"),
        "max_rss_kib": summarize([float(c["max_rss_kib"]) for c in crawls], "KiB"),
        "server_saturated_runs": sum(
            1 for r in runs if r["server"]["saturated"] and not server_cpu_lost(r)
        ),
        "server_unknown_runs": sum(1 for r in runs if server_cpu_lost(r)),
        "server_peak_in_flight": max(
            (r["verification"]["server_peak_in_flight"] or 0) for r in runs
        ),
        "rounds": [
            _round_figures(r, c, root_latency if wide else None)
            for r, c in zip(runs, crawls, strict=True)
        ],
    }
    if params.get("interpreters"):
        figures["interpreters"] = params["interpreters"]
    if wide:
        _add_plateau_rate(figures, crawls, latency, root_latency)
        _add_server_load(figures, runs)
    _add_plateau_memory(figures, runs)
    add_point_busy(figures, runs)
    return figures


def _round_figures(run: Run, crawl: CrawlDocument, root_latency: float | None) -> RoundFigures:
    """One run's figures keyed by its round; its plateau rate on a wide site (root_latency:
    what its root page waited; None on other sites)."""
    found: RoundFigures = {
        "round": run_round(run),
        "pages_per_s": crawl["pages_per_s"],
        "cpu_us_per_page": crawl["cpu_us_per_page"],
        "max_rss_kib": float(crawl["max_rss_kib"]),
    }
    if root_latency is not None:
        found["plateau_pages_per_s"] = _plateau_rate(crawl, root_latency)
    return found


def _server_cost_us(run: Run) -> float | None:
    """A run's server CPU per request it served, in µs (its start-up included)."""
    stats = run["server"].get("stats") or {}
    cpu, requests = stats.get("cpu_seconds"), stats.get("requests")
    return 1e6 * cpu / requests if cpu is not None and requests else None


def _add_server_load(figures: Point, runs: list[Run]) -> None:
    """The server's CPU per request over the runs (median), and the share of its core that
    the ideal C/L asks of it at that cost."""
    costs = [c for r in runs if (c := _server_cost_us(r)) is not None]
    cost = median(costs) if costs else None
    figures["server_cpu_us_per_request"] = cost
    ideal = figures.get("ideal_pages_per_s")
    figures["server_ideal_load"] = ideal * cost / 1e6 if ideal and cost else None


def _add_plateau_rate(
    figures: Point, crawls: list[CrawlDocument], latency: float, root_latency: float
) -> None:
    """A wide site's plateau pages/s against the ideal C/L, with its interval."""
    plateau = [rate for c in crawls if (rate := _plateau_rate(c, root_latency)) is not None]
    ideal = figures["concurrency"] / latency
    figures["ideal_pages_per_s"] = ideal
    found = figures["plateau_pages_per_s"] = summarize(plateau, "pages/s")
    fraction = found.scaled(1 / ideal, "share")
    figures["fraction_of_ideal"] = (
        replace(fraction, value=found.value / ideal) if found.value else None
    )


def _add_plateau_memory(figures: Point, runs: list[Run]) -> None:
    """The runs' plateau memory: kernel, RSS, USS and TCP buffers, and the ramp to it."""
    kernel = _summary([kernel_delta_kib(r) for r in runs], "KiB")
    if kernel is not None:
        figures["plateau_kernel_delta_kib"] = kernel
    plateaus = [run_plateau(r) for r in runs]
    rss = _summary([p.get("rss_kib") for p in plateaus], "KiB")
    if rss is None:
        return
    figures["plateau_rss_kib"] = rss
    figures["plateau_uss_kib"] = _summary([p.get("uss_kib") for p in plateaus], "KiB")
    figures["plateau_tcp_mem_delta_kib"] = _summary([tcp_delta_kib(r) for r in runs], "KiB")
    figures["ramp_s"] = _summary([p.get("ramp_s") for p in plateaus], "s")


def _summary(values: list[float | None], unit: Unit) -> Quantity | None:
    """summarize() of the values the runs recorded; None when none did."""
    known = [float(v) for v in values if v is not None]
    return summarize(known, unit) if known else None


def split_url_points(groups: dict[Group, list[Run]]) -> tuple[list[Group], list[Group]]:
    """Per concurrency (and processes), the point with the fewest pages is the scenario's own;
    one with more pages per connection at the same C only measures the per-URL share."""
    fewest: dict[tuple[int, int], int] = {}
    for c, _, pages, processes, _ in groups:
        fewest[c, processes] = min(pages, fewest.get((c, processes), pages))
    base = [k for k in groups if k[2] == fewest[k[0], k[3]]]
    return base, [k for k in groups if k[2] != fewest[k[0], k[3]]]


def sort_key(key: Group) -> tuple[int, int, float, int, str]:
    return key[3], key[0], key[1].mean_s, key[2], key[4]
