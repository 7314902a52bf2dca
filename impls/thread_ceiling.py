"""How many threads one process may start here, and which limit of the machine stops it."""

from __future__ import annotations

import errno
import resource
import threading
import time
from typing import Any

from c10k import probes

GUARD_EVERY = 256  # threads between two looks at memory and free PIDs


def failure_limit(context: dict[str, Any], error: BaseException | None) -> str:
    """Name the limit that most likely stopped thread creation, from the machine's state."""
    if isinstance(error, MemoryError):
        return "memory"
    maps, max_maps = context.get("map_count"), context.get("vm.max_map_count")
    if maps is not None and max_maps is not None and maps >= max_maps - 16:
        return "vm.max_map_count"
    machine = context.get("threads_on_machine")
    for name in ("kernel.pid_max", "kernel.threads-max"):
        limit = context.get(name)
        if machine is not None and limit is not None and machine >= limit - 64:
            return name
    nproc = context.get("RLIMIT_NPROC")
    if machine is not None and nproc is not None and machine >= nproc - 64:
        return "RLIMIT_NPROC"
    if isinstance(error, OSError) and error.errno == errno.EAGAIN:
        return "EAGAIN (a process or thread limit)"
    return "unknown"


def limit_context() -> dict[str, Any]:
    nproc, _ = resource.getrlimit(resource.RLIMIT_NPROC)
    return {
        "map_count": probes.map_count(),
        "vm.max_map_count": probes.sysctl_int("vm.max_map_count"),
        "threads_on_machine": probes.threads_on_machine(),
        "kernel.pid_max": probes.sysctl_int("kernel.pid_max"),
        "kernel.threads-max": probes.sysctl_int("kernel.threads-max"),
        "RLIMIT_NPROC": None if nproc == resource.RLIM_INFINITY else nproc,
        "MemAvailable_kib": probes.meminfo(("MemAvailable",)).get("MemAvailable"),
    }


def pid_headroom(reserve: int) -> int:
    """Threads this process may still start while leaving `reserve` PIDs to everyone else."""
    machine = probes.threads_on_machine() or 0
    ceilings: list[int] = []
    for name in ("kernel.pid_max", "kernel.threads-max"):
        value = probes.sysctl_int(name)
        if value is not None:
            ceilings.append(value)
    cgroup = probes.read_text("/sys/fs/cgroup/pids.max")
    if cgroup and cgroup.isdigit():
        current = probes.read_int("/sys/fs/cgroup/pids.current") or machine
        ceilings.append(int(cgroup) - current + machine)
    return min(ceilings, default=machine + reserve + 1_000_000) - machine - reserve


def threads_until_failure(
    cap: int, stack_size: int, memory_guard_kib: int, pid_reserve: int
) -> dict[str, Any]:
    """Start parked threads until one fails to start, a guard trips, or the cap is reached."""
    release = threading.Event()
    threads: list[threading.Thread] = []
    if stack_size:
        threading.stack_size(stack_size)
    stopped_by, error_text, error_errno, error_type = "cap", None, None, None
    context: dict[str, Any] = {}
    started = time.perf_counter()
    headroom = pid_headroom(pid_reserve)
    try:
        while len(threads) < cap:
            if len(threads) % GUARD_EVERY == 0:
                headroom = len(threads) + pid_headroom(pid_reserve)
                available = probes.meminfo(("MemAvailable",)).get("MemAvailable", 0)
                if available < memory_guard_kib:
                    stopped_by = "memory-guard"
                    context = limit_context()
                    break
            if len(threads) >= headroom:
                stopped_by = "pid-reserve"
                context = limit_context()
                break
            thread = threading.Thread(target=release.wait, daemon=True)
            try:
                thread.start()
            except (RuntimeError, MemoryError, OSError) as exc:
                context = limit_context()  # read while the threads still exist
                stopped_by = failure_limit(context, exc)
                error_text, error_type = str(exc), type(exc).__name__
                error_errno = getattr(exc, "errno", None)
                break
            threads.append(thread)
        else:
            context = limit_context()
        elapsed = time.perf_counter() - started
        rss = probes.proc_status_kib("self") or 0
    finally:
        release.set()
        for thread in threads:
            thread.join()
    return {
        "count": len(threads),
        "stopped_by": stopped_by,
        "error": error_text,
        "error_type": error_type,
        "errno": error_errno,
        "cap": cap,
        "pid_reserve": pid_reserve,
        "memory_guard_kib": memory_guard_kib,
        "elapsed_s": elapsed,
        "rss_kib": rss,
        "context": context,
    }
