"""The server's request counters, shared by its workers."""

from __future__ import annotations

import ipaddress
import multiprocessing
import os
import time
from collections.abc import Sequence
from typing import Any


class Stats:
    """Request counters in shared memory, made before the workers fork, under one lock
    (peak_in_flight needs the sum over all workers at each arrival); per address of
    `addresses` (--listen) too.
    """

    _FIELDS = ("requests", "in_flight", "peak_in_flight", "bytes_sent", "faults")

    def __init__(
        self, workers: int = 1, addresses: Sequence[str] | None = None, open_files: int = 0
    ) -> None:
        ctx = multiprocessing.get_context("fork")
        self.workers = workers
        self.addresses = list(addresses or [])
        self.open_files = open_files
        # Local addresses as the socket reports them, to their slot in _by_address.
        self._address_slot = {
            ipaddress.ip_address(a).compressed: i for i, a in enumerate(self.addresses)
        }
        self._lock = ctx.Lock()
        self._counts: Any = ctx.RawArray("q", len(self._FIELDS))
        self._by_worker: Any = ctx.RawArray("q", workers)
        self._by_address: Any = ctx.RawArray("q", max(1, len(self.addresses)))
        self._pids: Any = ctx.RawArray("q", workers)
        self._cpu_base: Any = ctx.RawArray("d", 1)
        # When the first and the latest request began since the reset (time.time(); 0: none
        # yet): a wave of requests that all arrive at once took the server this long to begin.
        self._begins: Any = ctx.RawArray("d", 2)
        self._index = 0  # this process's worker slot
        self._started = time.time()

    def register(self, index: int, pid: int) -> None:
        """Called in each worker process: its slot and pid."""
        self._index = index
        self._pids[index] = pid

    def address_slot(self, local_address: str) -> int:
        """The slot of the address a connection arrived on (0 if not a listed one)."""
        return self._address_slot.get(local_address.partition("%")[0], 0)

    def begin(self, address_slot: int = 0) -> None:
        counts = self._counts
        with self._lock:
            counts[0] += 1
            counts[1] += 1
            if counts[1] > counts[2]:
                counts[2] = counts[1]
            self._by_worker[self._index] += 1
            self._by_address[address_slot] += 1
            begins = self._begins
            begins[1] = time.time()
            if not begins[0]:
                begins[0] = begins[1]

    def fault(self) -> None:
        with self._lock:
            self._counts[4] += 1

    def end(self, nbytes: int) -> None:
        counts = self._counts
        with self._lock:
            counts[1] -= 1
            counts[3] += nbytes

    def pids(self) -> list[int]:
        return [int(p) for p in self._pids if p]

    def _cpu_seconds(self) -> float:
        """user+sys CPU of all workers (from /proc; 0 where unavailable)."""
        total = 0.0
        tick = os.sysconf("SC_CLK_TCK")
        for pid in self.pids():
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rpartition(")")[2].split()
                total += (int(fields[11]) + int(fields[12])) / tick
            except (OSError, ValueError, IndexError):
                pass
        return total

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            values = list(self._counts)
            by_worker = list(self._by_worker)
            by_address = list(self._by_address)
            first, last = (at or None for at in self._begins)
        out: dict[str, Any] = dict(zip(self._FIELDS, values, strict=True))
        out["first_begin_at"], out["last_begin_at"] = first, last
        out["requests_by_worker"] = by_worker
        if self.addresses:  # --listen: the doors to the site, each one's requests
            out["addresses"] = self.addresses
            out["requests_by_address"] = by_address
            out["open_files_per_worker"] = self.open_files
        out["workers"] = self.workers
        out["pids"] = self.pids()
        out["cpu_seconds"] = round(self._cpu_seconds() - self._cpu_base[0], 3)
        out["uptime_s"] = round(time.time() - self._started, 3)
        return out

    def reset(self) -> None:
        cpu = self._cpu_seconds()
        with self._lock:
            counts = self._counts
            counts[0] = 0
            counts[2] = counts[1]  # requests in flight now are the new floor of the peak
            counts[3] = 0
            counts[4] = 0
            self._by_worker[:] = [0] * len(self._by_worker)
            self._by_address[:] = [0] * len(self._by_address)
            self._begins[0] = self._begins[1] = 0.0
            self._cpu_base[0] = cpu
