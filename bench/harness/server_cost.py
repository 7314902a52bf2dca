"""The server's cost, measured at a session's start by short crawls against the real server."""

from __future__ import annotations

import threading
import time
from collections.abc import Collection

import psutil

from bench.harness.commands import crawl_argv
from bench.harness.cores import Pinning, this_thread_on
from bench.harness.costs import SERVER_START_S
from bench.harness.latencies import LADDER_S, cpu_between, server_cost
from bench.harness.points import CrawlPoint
from bench.harness.processes import run_process
from bench.harness.shapes import sleepy_site, sleepy_timeout_s
from bench.harness.site import ServerError, SiteClient
from bench.harness.ssh_server import SiteHost, new_site
from bench.results import ServerCost, ServerProbe
from c10k import catalog
from c10k.durations import Latency
from c10k.system import raise_open_files_limit

# A probe is one wave of a sleepy site, a connection per fetch: every connection opens and
# sends its request while the server waits out the latency, then every response leaves.
PROBE_MODEL = catalog.CALLBACKS.name  # its ramp is the quickest: the server sets the pace
# The ladder's shortest rung: a ramp that outlasts it is timed with the first responses in
# it, longer than alone, and the rule then asks for a longer rung anyway.
PROBE_LATENCY = Latency("fixed", LADDER_S[0])
PROBE_REPEATS = 5  # the ramp varies by a tenth either way: the median of five chooses
PROBE_MOST = 10_000  # connections of a probe: the largest point that chooses, up to this
PROBE_TIMEOUT_S = 120.0  # one probe crawl is killed past it
POLL_S = 0.01  # the server's CPU is read this often during a probe crawl


def _probe_point(connections: int) -> CrawlPoint:
    most = min(connections, PROBE_MOST)
    return CrawlPoint(sleepy_site(most, PROBE_LATENCY.a), concurrency=most)


def probe_text(connections: int) -> str:
    """'5 crawls of 10,000 connections at L 2s': the probe for points of up to connections."""
    most = _probe_point(connections).concurrency
    return f"{PROBE_REPEATS} crawls of {most:,} connections at L {PROBE_LATENCY.text}"


def probe_estimate_s(connections: int) -> float:
    return SERVER_START_S + PROBE_REPEATS * _probe_point(connections).estimate_s(PROBE_MODEL)


class ProbeFailed(Exception):
    """A probe crawl that did not run to its end, or whose requests the server did not see."""


class CpuWatch:
    """The server's CPU seconds (its processes here, read from /proc), sampled every POLL_S
    while a probe crawl runs: (Unix time, CPU seconds) pairs."""

    def __init__(self, pids: list[int]) -> None:
        self.processes = [psutil.Process(pid) for pid in pids]
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def start(self, pid: int) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _sample(self) -> None:
        while not self._stop.is_set():
            try:
                times = [p.cpu_times() for p in self.processes]
            except psutil.Error:
                return
            self.samples.append((time.time(), sum(t.user + t.system for t in times)))
            self._stop.wait(POLL_S)


def probe_once(server: SiteClient, connections: int, cpus: Collection[int] | None) -> ServerProbe:
    """One probe crawl against the running site: how long the server took to begin every
    request of the wave (its own clock), its CPU meanwhile (sampled here; None for a server
    on another host) and over the whole crawl."""
    server.reset_stats()
    watch = CpuWatch(server.pids())
    argv = crawl_argv(
        server.root,
        PROBE_MODEL,
        connections,
        timeout_s=sleepy_timeout_s(PROBE_LATENCY.a),
        remote=server.remote,
    )
    try:
        finished = run_process(argv, PROBE_TIMEOUT_S, watch.start, cpus=cpus)
    finally:
        watch.stop()
    if finished.code != 0:
        tail = finished.stderr_tail.strip().splitlines()[-1:] or [""]
        raise ProbeFailed(f"the probe crawl ended with exit {finished.code}: {tail[0][:200]}")
    stats = server.stats()
    first, last = stats.get("first_begin_at"), stats.get("last_begin_at")
    if first is None or last is None:
        raise ProbeFailed("the server did not say when its requests began (an older c10k?)")
    return {
        "ramp_s": last - first,
        "ramp_cpu_s": cpu_between(watch.samples, first, last) if server.pids() else None,
        "cpu_s": stats["cpu_seconds"],
        "requests": stats["requests"],
        "peak_in_flight": stats["peak_in_flight"],
    }


def measure_server_cost(
    connections: int, pinning: Pinning, host: SiteHost | None = None
) -> tuple[ServerCost | None, str | None]:
    """The server's cost per connection and per request, from PROBE_REPEATS probe crawls of
    min(connections, PROBE_MOST) connections against one site, here on the server's CPUs (the
    crawler on its own) or on host; (None, why) when it could not be measured."""
    point = _probe_point(connections)
    connections, site = point.concurrency, point.server
    raise_open_files_limit()  # the server started here inherits it
    server = new_site(site, pinning.server, host)
    try:
        with this_thread_on(pinning.server):  # the watch's thread too, as the sampler's
            server.start()
            probes = [
                probe_once(server, connections, pinning.crawler) for _ in range(PROBE_REPEATS)
            ]
    except (ProbeFailed, ServerError, OSError, ValueError, KeyError) as exc:
        return None, f"the server's cost was not measured: {exc}"
    finally:
        server.stop()
    return server_cost(probes, connections, PROBE_LATENCY, PROBE_MODEL), None
