"""Facts about the machine that shape the numbers: versions, CPU, kernel limits, /proc readers."""

from __future__ import annotations

import os
import resource
import sys
from pathlib import Path
from typing import Any

PACKAGES = (
    "c10k-bench",
    "aiohttp",
    "uvloop",
    "rloop",
    "httpx",
    "httpcore",
    "psutil",
    "httptools",
    "selectolax",
    "matplotlib",
)
SYSCTLS = (
    "vm.max_map_count",
    "kernel.pid_max",
    "kernel.threads-max",
    "net.ipv4.ip_local_port_range",
    "net.ipv4.tcp_tw_reuse",
    "net.ipv4.tcp_mem",
    "net.core.somaxconn",
    "fs.file-max",
    "fs.nr_open",
)
# /proc/meminfo fields that hold kernel memory spent on threads and sockets.
KERNEL_FIELDS = ("KernelStack", "Slab", "SUnreclaim", "PageTables", "MemAvailable")
# The kernel memory that grows with each thread or socket, summed as "kernel" per unit and
# per connection: each /proc/meminfo field and the name a run's samples give it.
KERNEL_GROWTH_FIELDS: dict[str, str] = {
    "KernelStack": "kernel_stack_kib",
    "Slab": "slab_kib",
    "PageTables": "page_tables_kib",
}
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def read_text(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except OSError:
        return None


def read_int(path: str) -> int | None:
    text = read_text(path)
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def sysctl_path(name: str) -> str:
    """Where Linux shows a kernel setting: "kernel.pid_max" is /proc/sys/kernel/pid_max."""
    return "/proc/sys/" + name.replace(".", "/")


def sysctl_int(name: str) -> int | None:
    """One numeric kernel setting (e.g. "kernel.pid_max"), or None."""
    return read_int(sysctl_path(name))


def _kib_fields(path: str) -> dict[str, int]:
    """The `Name:  123 kB` lines of a /proc file, in KiB ({} when it cannot be read)."""
    found = {}
    for line in (read_text(path) or "").splitlines():
        name, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[-1] == "kB":
            found[name] = int(parts[0])
    return found


def meminfo(fields: tuple[str, ...] = KERNEL_FIELDS) -> dict[str, int]:
    """Chosen /proc/meminfo fields in KiB (machine-wide)."""
    return {k: v for k, v in _kib_fields("/proc/meminfo").items() if k in fields}


def sockstat() -> dict[str, int]:
    """TCP counters of /proc/net/sockstat; mem_kib is the kernel's TCP buffer memory."""
    text = read_text("/proc/net/sockstat") or ""
    for line in text.splitlines():
        if line.startswith("TCP:"):
            words = line.split()[1:]
            stats = {k: int(v) for k, v in zip(words[::2], words[1::2], strict=True)}
            stats["mem_kib"] = stats.get("mem", 0) * PAGE_SIZE // 1024
            return stats
    return {}


def threads_on_machine() -> int | None:
    """Kernel scheduling entities (threads) that exist now: the 4th field of /proc/loadavg."""
    text = read_text("/proc/loadavg")
    try:
        return int(text.split()[3].split("/")[1]) if text else None
    except (IndexError, ValueError):
        return None


def map_count(pid: int | str = "self") -> int | None:
    """Memory mappings of a process (what vm.max_map_count limits)."""
    try:
        with open(f"/proc/{pid}/maps", "rb") as handle:
            return sum(1 for _ in handle)
    except OSError:
        return None


def proc_status_kib(pid: int | str, field: str = "VmRSS") -> int | None:
    """One field of /proc/PID/status in KiB (an independent check of psutil's numbers)."""
    return _kib_fields(f"/proc/{pid}/status").get(field)


def smaps_rollup_kib(pid: int | str) -> dict[str, int] | None:
    """/proc/PID/smaps_rollup in KiB: the kernel walks the page tables for it, so its Rss
    is counted page by page, independently of the counters behind statm and status."""
    return _kib_fields(f"/proc/{pid}/smaps_rollup") or None


def peak_rss_kib() -> int:
    """This process's own peak RSS in KiB: VmHWM, where Linux has it. Not ru_maxrss: Linux
    carries that through exec (a child of a 200 MiB parent reports at least 200 MiB)."""
    own = proc_status_kib("self", "VmHWM")
    return own if own is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def mark_crawl_boundary() -> None:
    """A marker for callgrind: `--dump-before=sched_yield` cuts its counts here. Called where a
    crawl starts and where it ends (`c10k crawl --mark-crawl`), so one run under callgrind gives
    the crawl's own instructions, apart from the interpreter's start, the imports and the exit.
    sched_yield is a libc symbol every build exposes, and nothing else in a crawl calls it (the
    harness checks: exactly two cuts)."""
    os.sched_yield()


# importlib.metadata and platform are imported inside the functions that need them: every
# crawler imports this module for peak_rss_kib, and the two cost 40 ms of its start-up.


def cpu_model() -> str:
    import platform

    text = read_text("/proc/cpuinfo") or ""
    for line in text.splitlines():
        if line.startswith("model name"):
            return line.partition(":")[2].strip()
    return platform.processor() or platform.machine()


def package_versions(names: tuple[str, ...] = PACKAGES) -> dict[str, str | None]:
    """Installed version of each package, None where it is not installed."""
    import importlib.metadata

    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def limits() -> dict[str, Any]:
    """The limits that stop threads, sockets and connections on this machine."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    nproc_soft, nproc_hard = resource.getrlimit(resource.RLIMIT_NPROC)
    stack_soft, _ = resource.getrlimit(resource.RLIMIT_STACK)

    def unlimited(value: int) -> int | None:
        return None if value == resource.RLIM_INFINITY else value

    facts: dict[str, Any] = {
        "RLIMIT_NOFILE": {"soft": unlimited(soft), "hard": unlimited(hard)},
        "RLIMIT_NPROC": {"soft": unlimited(nproc_soft), "hard": unlimited(nproc_hard)},
        "RLIMIT_STACK_soft_bytes": unlimited(stack_soft),
    }
    for name in SYSCTLS:
        text = read_text(sysctl_path(name))
        facts[name] = (
            None
            if text is None
            else text.split()
            if " " in text or "\t" in text
            else (int(text) if text.lstrip("-").isdigit() else text)
        )
    port_range = facts.get("net.ipv4.ip_local_port_range")
    if isinstance(port_range, list) and len(port_range) == 2:
        low, high = int(port_range[0]), int(port_range[1])
        facts["net.ipv4.ip_local_port_range"] = [low, high]
        facts["ephemeral_ports_per_destination"] = high - low + 1
    # A cgroup (container) may cap processes and memory below the kernel's limits.
    facts["cgroup_pids_max"] = read_text("/sys/fs/cgroup/pids.max")
    facts["cgroup_memory_max"] = read_text("/sys/fs/cgroup/memory.max")
    return facts


def environment() -> dict[str, Any]:
    """Everything results.json records about the machine and the software."""
    import platform

    uname = platform.uname()
    return {
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
            "executable": sys.executable,
            "build": list(platform.python_build()),
            "gil_disabled": bool(getattr(sys, "_is_gil_enabled", lambda: True)() is False),
        },
        "packages": package_versions(),
        "cpu": {
            "model": cpu_model(),
            "logical_cores": os.cpu_count(),
            "usable_cores": len(os.sched_getaffinity(0)),
        },
        "kernel": {"system": uname.system, "release": uname.release, "machine": uname.machine},
        "memory_kib": meminfo(("MemTotal", "MemAvailable")),
        "page_size": PAGE_SIZE,
        "limits": limits(),
        "load_average": list(os.getloadavg()),
        "threads_on_machine": threads_on_machine(),
    }
