"""Each sleepy point's latency, chosen at a session's start from the server's measured cost."""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import pairwise
from statistics import median

from bench.harness.points import CrawlPoint, LatencyRule, Profile
from bench.harness.shapes import sleepy_timeout_s
from bench.results import LatencyChoices, LatencyPoint, ServerCost, ServerProbe
from c10k.durations import Latency

# The latencies a point may take, shortest first; past the last, the last (rule not met).
LADDER_S = (2.0, 5.0, 10.0, 20.0, 30.0, 40.0, 60.0)
# (a) The peak check: every connection's first request has begun at the server before the
# first response leaves, so C times the server's wall time per connection as a wave of them
# opens (the probe's ramp) must fit in L. On the 2-core dev VM a wave of 10,000 took 140-198 µs
# a connection (medians of five 152-178 µs: 1.5-1.8 s of 2 s), so today's 2 s at C 10,000
# holds with a small margin only, and a server some 15% slower moves that point to 5 s.
PEAK_SHARE = 0.95
# (b) A point that judges throughput: C/L asks the server for at most a third of its core at
# its cost per request, so that it keeps room ("about half or less"): on the dev VM the probe
# gave 186-235 µs a request, and the C10K point's own runs 255-283 µs.
LOAD_SHARE = 1 / 3
SHARE_FLOOR = 0.05  # a ramp that shows the server almost idle: its share, at the least


@dataclass(frozen=True)
class Choice:
    """A point's latency and the rule's numbers there."""

    latency_s: float
    ramp_share: float  # C x connect_s / L: (a) asks for at most PEAK_SHARE
    load: float  # C / L x request_s: (b) asks for at most LOAD_SHARE
    met: bool


def choose_latency(
    concurrency: int, connect_s: float, request_s: float, rule: LatencyRule
) -> Choice:
    """The shortest rung of LADDER_S from rule.least_s up that meets (a) and, for a point
    that judges throughput, (b); the last rung, not met, when none does."""
    rungs = [rung for rung in LADDER_S if rung >= rule.least_s] or [rule.least_s]
    for latency in rungs:
        ramp, load = concurrency * connect_s / latency, concurrency / latency * request_s
        met = ramp <= PEAK_SHARE and (load <= LOAD_SHARE or not rule.judges_throughput)
        if met:
            break
    return Choice(latency, ramp, load, met)


def cpu_between(samples: list[tuple[float, float]], start: float, end: float) -> float | None:
    """The CPU seconds spent from start to end, read off (time, cumulative CPU) samples
    linearly between the two around each; None when the samples do not span them."""

    def at(when: float) -> float | None:
        for (t0, c0), (t1, c1) in pairwise(samples):
            if t0 <= when <= t1:
                return c0 + (c1 - c0) * ((when - t0) / (t1 - t0) if t1 > t0 else 0.0)
        return None

    begun, ended = at(start), at(end)
    return None if begun is None or ended is None else ended - begun


def server_cost(
    probes: list[ServerProbe], connections: int, latency: Latency, model: str
) -> ServerCost:
    """The probes' figures, each the median over them with its [min, max]: the server's wall
    time per connection over the ramp, the share of a core it had there, and its CPU per
    request over that share (a slower core and a CPU quota both raise it)."""
    shares = [
        1.0 if (cpu := p["ramp_cpu_s"]) is None else min(1.0, max(SHARE_FLOOR, cpu / p["ramp_s"]))
        for p in probes
    ]
    connect = [1e6 * p["ramp_s"] / connections for p in probes]
    request = [1e6 * p["cpu_s"] / p["requests"] / s for p, s in zip(probes, shares, strict=True)]
    return {
        "connections": connections,
        "latency": latency,
        "model": model,
        "probes": probes,
        "connect_us": median(connect),
        "connect_us_range": [min(connect), max(connect)],
        "share": median(shares),
        "share_range": [min(shares), max(shares)],
        "request_us": median(request),
        "request_us_range": [min(request), max(request)],
    }


def with_latencies(
    profile: Profile, scenarios: list[str], cost: ServerCost | None, error: str | None = None
) -> tuple[Profile, LatencyChoices]:
    """The profile with each point of these scenarios that chooses (CrawlPoint.choice) at its
    chosen latency, its --timeout scaled with it, and the record of the choices; without a
    cost (error says why), every point as written."""
    points: list[LatencyPoint] = []

    def chosen(scenario: str, point: CrawlPoint) -> CrawlPoint:
        rule = point.choice
        if rule is None or cost is None or scenario not in scenarios:
            return point
        c = point.concurrency
        found = choose_latency(c, cost["connect_us"] / 1e6, cost["request_us"] / 1e6, rule)
        latency = Latency("fixed", found.latency_s)
        points.append(
            {
                "scenario": scenario,
                "concurrency": c,
                "pages": point.server.pages,
                "judges_throughput": rule.judges_throughput,
                "written": point.server.latency,
                "latency": latency,
                "ramp_share": found.ramp_share,
                "load": found.load,
                "met": found.met,
            }
        )
        server = replace(point.server, latency=latency)
        return replace(point, server=server, timeout_s=sleepy_timeout_s(found.latency_s))

    each = tuple(
        replace(s, points=tuple(chosen(s.name, p) for p in s.points)) for s in profile.scenarios
    )
    record: LatencyChoices = {
        "ladder_s": list(LADDER_S),
        "peak_share": PEAK_SHARE,
        "load_share": LOAD_SHARE,
        "cost": cost,
        "error": error,
        "points": points,
    }
    return replace(profile, scenarios=each), record


def chooses(profile: Profile, scenarios: list[str]) -> int:
    """The largest concurrency among the points of these scenarios that choose their
    latency; 0 when none does (no probe is needed)."""
    return max(
        (
            p.concurrency
            for s in profile.scenarios
            if s.name in scenarios
            for p in s.points
            if p.choice is not None
        ),
        default=0,
    )
