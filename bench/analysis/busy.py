"""The side a point kept CPU-bound, and the harness's own CPU share over the runs."""

from __future__ import annotations

from bench.results import HarnessCost, Point, PointBusy, Run
from c10k.stats import median

BUSY_SHARE = 0.9  # a side that kept this share of its CPUs busy is CPU-bound


SIDES = ("crawler", "server", "both", "neither")


def classify(crawler_busy: float | None, server_busy: float | None) -> str | None:
    """The CPU-bound side: a side busy BUSY_SHARE or more of its CPUs; None when unknown."""
    if crawler_busy is None or server_busy is None:
        return None
    crawler, server = crawler_busy >= BUSY_SHARE, server_busy >= BUSY_SHARE
    if crawler and server:
        return "both"
    return "crawler" if crawler else "server" if server else "neither"


def server_cpu_lost(run: Run) -> bool:
    """True when the sampler lost reads of the server's CPU during the run: its busy shares
    and its server's saturation are unknown, and decide nothing."""
    return "server_cpu" in (run.get("sampler_failures") or {})


def server_bound(point: Point) -> bool:
    """True unless the point's runs show its server was never CPU-bound: a run saw it
    saturated, or no run could tell (each lost reads of the server's CPU)."""
    return bool(point["server_saturated_runs"]) or point["server_unknown_runs"] == point["runs"]


def add_point_busy(point: PointBusy, runs: list[Run]) -> None:
    """A point's CPU-bound side (classify() of the median busy shares over its runs), the
    medians, and how many runs each side bound; nothing for runs recorded without `busy`,
    or that lost reads of the server's CPU."""
    found = [busy for r in runs if not server_cpu_lost(r) and (busy := r.get("busy"))]
    if not found:
        return
    crawler = median([b["crawler"] for b in found])
    server = median([b["server"] for b in found])
    counts = {side: sum(1 for b in found if b["cpu_bound"] == side) for side in SIDES}
    point["cpu_bound"] = classify(crawler, server)
    point["crawler_busy"] = crawler
    point["server_busy"] = server
    point["cpu_bound_runs"] = {side: n for side, n in counts.items() if n}


def harness_cost(runs: list[Run]) -> HarnessCost | None:
    """The harness's CPU share over the measured, sampled crawls (where it works: a sampler
    thread reads the crawler and the server); None when no run recorded it."""
    measured = [r for r in runs if r["kind"] == "measured" and "harness" in r]
    shares = [
        (share, r["id"])
        for r in measured
        if r.get("samples") and (share := r["harness"].get("share")) is not None
    ]
    if not shares:
        return None
    most, most_run = max(shares)
    sampler = [
        cost["sampler_cpu_s"] / cost["wall_s"]
        for r in measured
        if (cost := r["harness"]).get("sampler_cpu_s") is not None and cost["wall_s"]
    ]
    return {
        "runs": len(shares),
        "median_share": median([s for s, _ in shares]),
        "max_share": most,
        "max_run": most_run,
        "sampler_median_share": median(sampler) if sampler else None,
    }
