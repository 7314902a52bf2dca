"""Isolated cores: disjoint CPU sets for server and crawler, the busy side, the harness's share."""

from __future__ import annotations

import contextlib
import os
import resource
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass

from bench.analysis.busy import classify
from bench.results import Busy, CrawlDocument, HarnessShare, PinningRecord, Samples

PIN_MODES = ("on", "off")


@dataclass(frozen=True)
class CpuSets:
    """Where each side runs. The harness and its sampler thread share the server's set: their
    work is light and is measured (`harness` in each run), while the crawler's CPU must carry
    the crawler alone, since its CPU and wall time are the figures compared."""

    server: tuple[int, ...]
    crawler: tuple[int, ...]


def split_cpus(cpus: Iterable[int]) -> CpuSets | None:
    """Two disjoint halves covering cpus, the server's the larger when their number is odd (it
    also carries the harness); None for fewer than two CPUs: there is nothing to split."""
    ordered = sorted(set(cpus))
    if len(ordered) < 2:
        return None
    half = (len(ordered) + 1) // 2
    return CpuSets(tuple(ordered[:half]), tuple(ordered[half:]))


@dataclass(frozen=True)
class Pinning:
    """What `c10k bench --pin` asked for and what this machine allowed."""

    requested: str  # "on" or "off"
    usable: tuple[int, ...]  # the harness's CPUs when it started
    sets: CpuSets | None  # None: every process runs on every usable CPU
    remote: bool = False  # the server runs on another host (c10k bench --server)

    @property
    def server(self) -> tuple[int, ...] | None:
        return self.sets.server if self.sets else None

    @property
    def crawler(self) -> tuple[int, ...] | None:
        return self.sets.crawler if self.sets else None

    @property
    def note(self) -> str | None:
        if self.remote:
            return "the server runs on another host: the crawler may use every local CPU"
        if self.requested == "on" and self.sets is None:
            return f"{len(self.usable)} CPU usable: pinning is impossible, ran unpinned"
        return None

    def as_dict(self) -> PinningRecord:
        """The environment's `pinning` block (docs/results.md)."""
        return {
            "requested": self.requested,
            "applied": self.sets is not None,
            "usable": list(self.usable),
            "server": _listed(self.server),
            "crawler": _listed(self.crawler),
            "harness": _listed(self.server),
            "note": self.note,
        }


def _listed(cpus: Collection[int] | None) -> list[int] | None:
    return None if cpus is None else sorted(cpus)


def plan_pinning(mode: str, usable: Iterable[int] | None = None, remote: bool = False) -> Pinning:
    """The sets for `--pin mode` on the usable CPUs (default: this process's affinity); none
    with the server remote: nothing here competes with the crawler but the harness."""
    if mode not in PIN_MODES:
        raise ValueError(f"--pin must be one of {', '.join(PIN_MODES)}, got {mode!r}")
    cpus = tuple(sorted(os.sched_getaffinity(0) if usable is None else set(usable)))
    split = split_cpus(cpus) if mode == "on" and not remote else None
    return Pinning(mode, cpus, split, remote)


@contextlib.contextmanager
def this_thread_on(cpus: Collection[int] | None) -> Iterator[None]:
    """Run the calling thread on cpus inside the block, then where it ran before; None leaves
    it alone. Linux keeps affinity per thread: a process started or a thread created inside
    the block inherits these CPUs from its first instruction, and other threads keep theirs."""
    if cpus is None:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def affinity(pid: int) -> list[int] | None:
    """The CPUs a process (or thread id; 0: the calling thread) may run on; None when gone."""
    try:
        return sorted(os.sched_getaffinity(pid))
    except OSError:
        return None


def affinity_of_all(pids: Iterable[int]) -> list[int] | None:
    """The CPUs any of pids may run on (a server and its workers), None when none is left."""
    found = [cpus for cpus in map(affinity, pids) if cpus is not None]
    return sorted(set().union(*found)) if found else None


def self_cpu_s() -> float:
    """User + system CPU seconds of this process's threads (not its children)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def harness_share(cpu_s: float, wall_s: float) -> HarnessShare:
    return {"cpu_s": cpu_s, "wall_s": wall_s, "share": cpu_s / wall_s if wall_s > 0 else None}


def server_capacity(server_cpus: int, workers: int) -> int:
    """The CPUs the server can keep busy: each worker is one single-threaded event loop."""
    return max(1, min(server_cpus, workers))


def busy(
    crawler_cpu_s: float,
    server_cpu_s: float,
    wall_s: float,
    crawler_cpus: int,
    server_cpus: int,
) -> Busy | None:
    """Each side's CPU seconds over wall time, as a share of its CPUs; the CPU-bound side."""
    if wall_s <= 0 or crawler_cpus < 1 or server_cpus < 1:
        return None
    crawler = crawler_cpu_s / wall_s / crawler_cpus
    server = server_cpu_s / wall_s / server_cpus
    return {
        "crawler": crawler,
        "server": server,
        "crawler_cpus": crawler_cpus,
        "server_cpus": server_cpus,
        "wall_s": wall_s,
        "cpu_bound": classify(crawler, server),
    }


def run_busy(
    crawl: CrawlDocument | None,
    columns: Samples,
    crawler_cpus: int,
    server_cpus: int,
) -> Busy | None:
    """busy() for one sampled crawl: the server's CPU sampled over the run, the crawler's
    its own getrusage over the crawl (samples also hold its interpreter start and imports,
    which would make every short run look crawler-bound), or without a crawl document the
    samples' too. None when a sample lost the server's CPU."""
    t, server = columns.get("t") or [], columns.get("server_cpu_s") or []
    if len(t) < 2 or len(server) < 2 or None in server:
        return None
    server_cpu_s = server[-1] - server[0]
    if crawl and crawl.get("wall_s"):
        crawler_cpu_s = crawl["cpu_user_s"] + crawl["cpu_sys_s"]
        wall_s = crawl["wall_s"]
    else:
        user, system = columns["cpu_user_s"], columns["cpu_sys_s"]
        crawler_cpu_s = user[-1] + system[-1] - user[0] - system[0]
        wall_s = t[-1] - t[0]
    return busy(crawler_cpu_s, server_cpu_s, wall_s, crawler_cpus, server_cpus)
