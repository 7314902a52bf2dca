"""What every process of the suite asks of the OS: open files, usable cores, the event loop."""

from __future__ import annotations

import importlib
import os
import resource
import select
import signal
import subprocess
import time
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio

# The event loop named, not imported: asyncio pulls in ssl (about 9 MiB of RSS), and the
# threads, callbacks and generators crawlers must not carry it in their memory figures.
LoopFactory = Callable[[], "asyncio.AbstractEventLoop"]


def raise_open_files_limit(needed: int | None = None) -> int:
    """Raise the soft RLIMIT_NOFILE to the hard limit (or to `needed` when the hard limit is
    infinite); return the soft limit now in force. Never lowers it; never fails."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, needed or soft)
    if target > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            return soft
        return target
    return soft


def usable_cores() -> int:
    """The CPUs this process may run on (its affinity), which may be fewer than the machine's."""
    return len(os.sched_getaffinity(0))


def loop_factory(module: str, factory: str = "new_event_loop") -> LoopFactory:
    """An event loop's factory, `module.factory`, imported only when asked (so that the plain
    models and the server run without the loop); ImportError when it is not installed."""
    found: LoopFactory = getattr(importlib.import_module(module), factory)
    return found


def rloop_loop_factory() -> LoopFactory:
    """rloop's loop factory (the Rust event loop, its self-socket closed once: c10k.rloop_loop)."""
    return loop_factory("c10k.rloop_loop", "RLoop")


def read_line(stream: IO[bytes], timeout: float) -> bytes:
    """The next line of a child's pipe, or b"" when none comes within timeout seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([stream], [], [], 0.1)
        if ready:
            return stream.readline()
    return b""


def stop_process(process: subprocess.Popen[bytes], grace: float) -> None:
    """SIGTERM a child, then SIGKILL it if it has not exited after grace seconds; reaped."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
