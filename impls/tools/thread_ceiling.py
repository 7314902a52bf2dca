"""How many threads one process may start here, and which limit of the machine stops it."""

from __future__ import annotations

import errno
import multiprocessing
import queue
import resource
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
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
    for name in ("kernel.pid_max", "kernel.threads-max", "RLIMIT_NPROC"):
        limit = context.get(name)
        if machine is not None and limit is not None and machine >= limit - 64:
            return name
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
    sysctls = (probes.sysctl_int(name) for name in ("kernel.pid_max", "kernel.threads-max"))
    ceilings = [value for value in sysctls if value is not None]
    cgroup = probes.read_text("/sys/fs/cgroup/pids.max")
    if cgroup and cgroup.isdigit():
        current = probes.read_int("/sys/fs/cgroup/pids.current") or machine
        ceilings.append(int(cgroup) - current + machine)
    return min(ceilings, default=machine + reserve + 1_000_000) - machine - reserve


@dataclass
class Stop:
    """Why thread creation stopped, and the machine's state then."""

    by: str = "cap"
    error: BaseException | None = None
    context: dict[str, Any] = field(default_factory=dict)


def start_until_stopped(
    threads: list[threading.Thread],
    target: Callable[[], object],
    cap: int,
    memory_guard_kib: int,
    pid_reserve: int,
) -> Stop:
    """Start threads running target, appended to threads, until one fails to start, a guard
    trips, or the cap is reached."""
    headroom = pid_headroom(pid_reserve)
    while len(threads) < cap:
        if len(threads) % GUARD_EVERY == 0:
            headroom = len(threads) + pid_headroom(pid_reserve)
            available = probes.meminfo(("MemAvailable",)).get("MemAvailable", 0)
            if available < memory_guard_kib:
                return Stop("memory-guard", context=limit_context())
        if len(threads) >= headroom:
            return Stop("pid-reserve", context=limit_context())
        thread = threading.Thread(target=target, daemon=True)
        try:
            thread.start()
        except (RuntimeError, MemoryError, OSError) as exc:
            context = limit_context()  # read while the threads still exist
            return Stop(failure_limit(context, exc), exc, context)
        threads.append(thread)
    return Stop(context=limit_context())


def threads_until_failure(
    cap: int,
    stack_size: int,
    memory_guard_kib: int,
    pid_reserve: int,
    hold: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Start parked threads until one fails to start, a guard trips, or the cap is reached;
    hold (if given) gets the result while the threads still exist, and returns to end them."""
    release = threading.Event()
    threads: list[threading.Thread] = []
    if stack_size:
        threading.stack_size(stack_size)
    started = time.perf_counter()
    try:
        stop = start_until_stopped(threads, release.wait, cap, memory_guard_kib, pid_reserve)
        error = stop.error
        result = {
            "count": len(threads),
            "stopped_by": stop.by,
            "error": None if error is None else str(error),
            "error_type": None if error is None else type(error).__name__,
            "errno": getattr(error, "errno", None),
            "cap": cap,
            "pid_reserve": pid_reserve,
            "memory_guard_kib": memory_guard_kib,
            "elapsed_s": time.perf_counter() - started,
            "rss_kib": probes.proc_status_kib("self") or 0,
            "context": stop.context,
        }
        if hold is not None:
            hold(result)
    finally:
        release.set()
        for thread in threads:
            thread.join()
    return result


# What stops threads on the whole machine, not in one process: when one of the processes
# stopped for one of these, the machine's ceiling was reached (the guards step back just
# before kernel.pid_max and memory).
MACHINE_LIMITS = frozenset(
    {
        "pid-reserve",
        "memory-guard",
        "memory",
        "kernel.pid_max",
        "kernel.threads-max",
        "RLIMIT_NPROC",
    }
)
CHILD_TIMEOUT_S = 600.0


def _hold_until_released(
    cap: int,
    stack_size: int,
    memory_guard_kib: int,
    pid_reserve: int,
    results: Any,  # multiprocessing.Queue
    release: Any,  # multiprocessing.Event
) -> None:
    # A child: report while the threads exist, so the others meet them, then wait for all.
    def hold(result: dict[str, Any]) -> None:
        results.put(result)
        release.wait(CHILD_TIMEOUT_S)

    threads_until_failure(cap, stack_size, memory_guard_kib, pid_reserve, hold)


def threads_on_the_machine(
    processes: int, cap: int, stack_size: int, memory_guard_kib: int, pid_reserve: int
) -> dict[str, Any]:
    """Start threads until failure in `processes` processes at once, each holding its threads
    until all have stopped: the machine's ceiling, past each process's own (vm.max_map_count).
    The cap is the total, split evenly."""
    spawn = multiprocessing.get_context("spawn")  # a clean child, not a copy of this process
    results, release = spawn.Queue(), spawn.Event()
    shares = [cap // processes + (i < cap % processes) for i in range(processes)]
    children = [
        spawn.Process(
            target=_hold_until_released,
            args=(share, stack_size, memory_guard_kib, pid_reserve, results, release),
            daemon=True,
        )
        for share in shares
    ]
    started = time.perf_counter()
    try:
        for child in children:
            child.start()
        each = wait_for_reports(children, results, started)
        elapsed = time.perf_counter() - started
        at_the_end = limit_context()  # while every thread still exists
    finally:
        release.set()
        for child in children:
            child.join(CHILD_TIMEOUT_S)
            if child.is_alive():
                child.kill()
    limits = {"cap": cap, "pid_reserve": pid_reserve, "memory_guard_kib": memory_guard_kib}
    return merge_reports(each, limits, elapsed, at_the_end)


def wait_for_reports(
    children: list[Any],  # multiprocessing.Process
    results: Any,  # multiprocessing.Queue
    started: float,
) -> list[dict[str, Any]]:
    """Each child's report, as it comes (bounded: a child that died never reports)."""
    each: list[dict[str, Any]] = []
    while len(each) < len(children):
        try:
            each.append(results.get(timeout=1.0))
        except queue.Empty:
            if time.perf_counter() - started > CHILD_TIMEOUT_S:
                raise TimeoutError("the thread-starting processes did not report") from None
            dead = [c.exitcode for c in children if c.exitcode is not None]
            if dead:  # a child that reported waits alive, so a dead one never will
                raise RuntimeError(f"a thread-starting process died (exit {dead[0]})") from None
    return each


def merge_reports(
    each: list[dict[str, Any]],
    limits: dict[str, int],
    elapsed: float,
    at_the_end: dict[str, Any],
) -> dict[str, Any]:
    """One result for the machine: the first machine-wide limit met names the stop."""
    machine = [r for r in each if r["stopped_by"] in MACHINE_LIMITS]
    if machine:
        stopped_by = machine[0]["stopped_by"]
    elif all(r["stopped_by"] == "cap" for r in each):
        stopped_by = "cap"
    else:  # every process met a limit of its own: more processes would start more
        stopped_by = "per-process: " + ", ".join(sorted({r["stopped_by"] for r in each}))
    first = (machine or each)[0]
    return {
        "count": sum(r["count"] for r in each),
        "stopped_by": stopped_by,
        **{key: first[key] for key in ("error", "error_type", "errno")},
        **limits,
        "elapsed_s": elapsed,
        "rss_kib": sum(r["rss_kib"] for r in each),
        "context": first["context"]
        | {"threads_on_machine_at_the_end": at_the_end["threads_on_machine"]},
        "processes": [
            {key: r[key] for key in ("count", "stopped_by", "error", "elapsed_s", "rss_kib")}
            for r in each
        ],
    }
