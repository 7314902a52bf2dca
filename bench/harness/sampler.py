"""The sampler: a thread that reads a crawler's memory, CPU and fds (and the server's CPU)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, fields
from typing import Any

import psutil

from bench.harness.cores import affinity
from bench.results import SAMPLE_FIELDS, SamplerFailure
from c10k import probes

USS_BUDGET = 0.2  # smaps_rollup reads may take at most this share of the sampling interval
USS_MAX_EVERY = 4  # ... but one sample in four reads it whatever it costs
ROLLUP_FIELDS = ("Private_Clean", "Private_Dirty", "Rss", "Anonymous")


@dataclass
class Reading:
    """One process's figures in a sample, or their sums over a process tree."""

    rss_kib: int
    cpu_user_s: float
    cpu_sys_s: float
    threads: int
    fds: int
    processes: int = 1

    def add(self, other: Reading) -> None:
        for field in fields(self):
            setattr(self, field.name, getattr(self, field.name) + getattr(other, field.name))


def _plus(a: int | None, b: int | None) -> int | None:
    """A sum that is unknown when a part is."""
    return None if a is None or b is None else a + b


def read_process(process: psutil.Process) -> Reading:
    """A process's memory, CPU, threads and fds; psutil.NoSuchProcess once it has exited
    (a zombie's memory reads as 0, so it counts as gone)."""
    with process.oneshot():
        if process.status() == psutil.STATUS_ZOMBIE:
            raise psutil.NoSuchProcess(process.pid)
        rss, cpu = process.memory_info().rss // 1024, process.cpu_times()
        return Reading(rss, cpu.user, cpu.system, process.num_threads(), process.num_fds())


def read_tree(root: psutil.Process, tree: bool) -> tuple[Reading, list[int]]:
    """The sums over root and (tree) its descendants as they are now, and the PIDs read. The
    root's exit raises psutil.NoSuchProcess; a child that exits before its read is left out
    (its cumulative CPU leaves the sums: a crawl's parts may end one by one). Any other
    psutil.Error is a failed read, raised."""
    total = read_process(root)
    pids = [root.pid]
    # Listed afresh every sample: the children start after their parent.
    for child in root.children(recursive=True) if tree else []:
        try:
            total.add(read_process(child))
        except psutil.NoSuchProcess:
            continue
        pids.append(child.pid)
    return total, pids


def read_rollups(pids: list[int]) -> dict[str, int | None]:
    """ROLLUP_FIELDS of /proc/PID/smaps_rollup summed over pids; None unless read for each."""
    sums: dict[str, int | None] = dict.fromkeys(ROLLUP_FIELDS, 0)
    for pid in pids:
        rollup = probes.smaps_rollup_kib(pid) or {}
        for field in ROLLUP_FIELDS:
            sums[field] = _plus(sums[field], rollup.get(field))
    return sums


class Sampler(threading.Thread):
    """Samples a crawler (with tree: its process tree, summed) and the server's CPU at a
    steady rate into columns. A failed read counts in failures under "server_cpu" (that
    sample's server_cpu_s is None) or "crawler" (sampling ends); the crawler's exit ends it."""

    def __init__(
        self, pid: int, server_pids: list[int], interval: float, tree: bool = False
    ) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.interval = interval
        # Listing the children scans every process of the machine: only where there are
        # some (`c10k crawl --processes`), so that a plain crawl's sampling does not pay for it.
        self.tree = tree
        self.columns: dict[str, list[Any]] = {name: [] for name in SAMPLE_FIELDS}
        self.server_pids = server_pids
        self.server: dict[int, psutil.Process] = {}  # each server process once it was read
        self.failures: dict[str, SamplerFailure] = {}
        self.server_cpu_first: dict[int, float] = {}
        self.server_cpu_last: dict[int, float] = {}
        self.uss_every = 1  # read USS every n-th sample; grows when USS is slow to read
        self.stopping = threading.Event()
        self.started_at = time.perf_counter()
        self.cpus: list[int] | None = None  # the CPUs this thread ran on
        self.cpu_s = 0.0  # this thread's own CPU time: what sampling cost

    def run(self) -> None:
        self.cpus = affinity(0)
        try:
            self._run()
        finally:
            self.cpu_s = time.thread_time()

    def _run(self) -> None:
        try:
            process = psutil.Process(self.pid)
        except psutil.Error:
            return
        n = 0
        next_at = time.perf_counter()
        while not self.stopping.is_set():
            try:
                self._sample(process, n)
            except psutil.NoSuchProcess:
                break  # the crawler has exited
            except psutil.Error as exc:
                self._failed("crawler", exc)
                break
            n += 1
            next_at += self.interval
            self.stopping.wait(max(0.0, next_at - time.perf_counter()))

    def _sample(self, process: psutil.Process, n: int) -> None:
        now = time.perf_counter() - self.started_at
        reading, pids = read_tree(process, self.tree)
        rollup: dict[str, int | None] = dict.fromkeys(ROLLUP_FIELDS)
        if n % self.uss_every == 0:
            began = time.perf_counter()
            rollup = read_rollups(pids)  # the whole tree's reads against one budget
            if time.perf_counter() - began > USS_BUDGET * self.interval:
                # At most every USS_MAX_EVERY-th sample: a plateau of 1-2 s must still hold
                # reads, or the independent check has nothing to fit.
                self.uss_every = min(2 * self.uss_every, USS_MAX_EVERY)
        server_cpu = self._server_cpu_s()
        tcp = probes.sockstat()
        kernel = probes.meminfo(tuple(probes.KERNEL_GROWTH_FIELDS))
        vmrss: int | None = 0
        for pid in pids:
            vmrss = _plus(vmrss, probes.proc_status_kib(pid))
        private = _plus(rollup["Private_Clean"], rollup["Private_Dirty"])
        row = {
            "t": round(now, 4),
            "rss_kib": reading.rss_kib,
            "vmrss_kib": vmrss,
            "uss_kib": private,
            "smaps_rss_kib": rollup["Rss"],
            "anon_kib": rollup["Anonymous"],
            "cpu_user_s": reading.cpu_user_s,
            "cpu_sys_s": reading.cpu_sys_s,
            "threads": reading.threads,
            "fds": reading.fds,
            "processes": reading.processes,
            "server_cpu_s": None if server_cpu is None else round(server_cpu, 3),
            "tcp_inuse": tcp.get("inuse"),
            "tcp_tw": tcp.get("tw"),
            "tcp_mem_kib": tcp.get("mem_kib"),
        }
        row |= {
            sampled: kernel.get(field) for field, sampled in probes.KERNEL_GROWTH_FIELDS.items()
        }
        for name, value in row.items():
            self.columns[name].append(value)

    def _server_cpu_s(self) -> float | None:
        """The server processes' CPU seconds, summed; None when a read failed or they are on
        another host (docs/two-hosts.md)."""
        if not self.server_pids:
            return None
        total: float | None = 0.0
        for pid in self.server_pids:
            try:
                server = self.server.get(pid) or psutil.Process(pid)
                times = server.cpu_times()
            except psutil.Error as exc:
                self._failed("server_cpu", exc)
                total = None
                continue
            self.server[pid] = server
            used = times.user + times.system
            self.server_cpu_first.setdefault(pid, used)
            self.server_cpu_last[pid] = used
            total = None if total is None else total + used
        return total

    def _failed(self, read: str, exc: psutil.Error) -> None:
        """Count a failed read; the first of each read gives the reason."""
        failure = self.failures.setdefault(read, {"count": 0, "reason": repr(exc)})
        failure["count"] += 1

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=5)

    def server_utilisation(self, wall_s: float) -> dict[str, float]:
        """CPU cores each server process used on average while it was sampled."""
        if wall_s <= 0:
            return {}
        return {
            str(pid): (self.server_cpu_last[pid] - first) / wall_s
            for pid, first in self.server_cpu_first.items()
        }
