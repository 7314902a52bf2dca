"""The sampler: a thread that reads a crawler's memory, CPU and fds (and the server's CPU)."""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any

import psutil

from bench.harness.cores import affinity
from c10k import probes

USS_BUDGET = 0.2  # smaps_rollup reads may take at most this share of the sampling interval
USS_MAX_EVERY = 4  # ... but one sample in four reads it whatever it costs

SAMPLE_FIELDS = (
    "t",
    "rss_kib",
    "vmrss_kib",
    "uss_kib",
    "smaps_rss_kib",
    "anon_kib",
    "cpu_user_s",
    "cpu_sys_s",
    "threads",
    "fds",
    "server_cpu_s",
    "tcp_inuse",
    "tcp_tw",
    "tcp_mem_kib",
    "slab_kib",
    "kernel_stack_kib",
    "page_tables_kib",
)


class Sampler(threading.Thread):
    """Samples a crawler (and the server's CPU) at a steady rate into columns."""

    def __init__(self, pid: int, server_pids: list[int], interval: float) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.interval = interval
        self.columns: dict[str, list[Any]] = {name: [] for name in SAMPLE_FIELDS}
        self.server = [psutil.Process(p) for p in server_pids if psutil.pid_exists(p)]
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
            except psutil.Error:
                break  # the crawler has exited
            n += 1
            next_at += self.interval
            self.stopping.wait(max(0.0, next_at - time.perf_counter()))

    def _sample(self, process: psutil.Process, n: int) -> None:
        now = time.perf_counter() - self.started_at
        with process.oneshot():
            if process.status() == psutil.STATUS_ZOMBIE:
                raise psutil.NoSuchProcess(self.pid)  # exited: its memory reads as 0
            rss = process.memory_info().rss // 1024
            cpu = process.cpu_times()
            threads = process.num_threads()
            fds = process.num_fds()
        rollup: dict[str, int] = {}
        if n % self.uss_every == 0:
            began = time.perf_counter()
            rollup = probes.smaps_rollup_kib(self.pid) or {}
            if time.perf_counter() - began > USS_BUDGET * self.interval:
                # At most every USS_MAX_EVERY-th sample: a plateau of 1-2 s must still hold
                # reads, or the independent check has nothing to fit.
                self.uss_every = min(2 * self.uss_every, USS_MAX_EVERY)
        private = [rollup.get("Private_Clean"), rollup.get("Private_Dirty")]
        # None without a server process here (a remote server: docs/two-hosts.md).
        server_cpu: float | None = 0.0 if self.server else None
        for server in self.server:
            with contextlib.suppress(psutil.Error):
                times = server.cpu_times()
                used = times.user + times.system
                self.server_cpu_first.setdefault(server.pid, used)
                self.server_cpu_last[server.pid] = used
                server_cpu = (server_cpu or 0.0) + used
        tcp = probes.sockstat()
        kernel = probes.meminfo(tuple(probes.KERNEL_GROWTH_FIELDS))
        row = {
            "t": round(now, 4),
            "rss_kib": rss,
            "vmrss_kib": probes.proc_status_kib(self.pid),
            "uss_kib": None if None in private else sum(p for p in private if p is not None),
            "smaps_rss_kib": rollup.get("Rss"),
            "anon_kib": rollup.get("Anonymous"),
            "cpu_user_s": cpu.user,
            "cpu_sys_s": cpu.system,
            "threads": threads,
            "fds": fds,
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
