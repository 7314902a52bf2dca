"""The processes the harness starts: one run, timed on its CPUs, and ending them all on Ctrl-C."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Collection
from typing import NamedTuple

import psutil

from bench.harness.cores import affinity, self_cpu_s, this_thread_on

STOP_GRACE_S = 5.0
STDERR_TAIL = 2000

# Every process this harness started and has not yet reaped: Ctrl-C ends exactly these.
_live: dict[int, psutil.Process] = {}
_live_lock = threading.Lock()


def track(pid: int) -> None:
    with contextlib.suppress(psutil.Error), _live_lock:
        _live[pid] = psutil.Process(pid)


def untrack(pid: int) -> None:
    with _live_lock:
        _live.pop(pid, None)


def terminate_all() -> list[int]:
    """SIGTERM every process we started and the processes they started (the workers of a
    `c10k crawl --processes`), SIGKILL what is left after a grace; return our PIDs."""
    with _live_lock:
        processes = list(_live.values())
        _live.clear()
    family = list(processes)
    for process in processes:
        with contextlib.suppress(psutil.Error):
            family += process.children(recursive=True)
    for process in family:
        with contextlib.suppress(psutil.Error):
            process.terminate()
    _, alive = psutil.wait_procs(family, timeout=STOP_GRACE_S)
    for process in alive:
        with contextlib.suppress(psutil.Error):
            process.kill()
    psutil.wait_procs(alive, timeout=STOP_GRACE_S)
    return [p.pid for p in processes]


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL a running process started in its own session, and every process it started:
    `c10k crawl --processes` children would outlive a killed parent. Only while it runs,
    unreaped, is its PID sure to still name its group."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()


class Finished(NamedTuple):
    """How one process ended (code None: killed at the timeout), the CPUs it ran on and the
    harness's own CPU seconds meanwhile."""

    code: int | None
    stdout: bytes
    stderr_tail: str
    elapsed_s: float
    cpus: list[int] | None = None
    harness_cpu_s: float | None = None


def run_process(
    argv: list[str],
    timeout: float,
    on_start: Callable[[int], None] | None = None,
    env: dict[str, str] | None = None,
    cpus: Collection[int] | None = None,
) -> Finished:
    """Run argv in its own session, on cpus (None: where the harness runs); kill it at the
    timeout. on_start gets its PID."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        harness_cpu = self_cpu_s()
        started = time.perf_counter()
        with this_thread_on(cpus):
            process = subprocess.Popen(
                argv, stdout=out, stderr=err, start_new_session=True, env=env
            )
        track(process.pid)
        ran_on = affinity(process.pid)
        try:
            if on_start is not None:
                on_start(process.pid)
            try:
                code: int | None = process.wait(timeout)
            except subprocess.TimeoutExpired:
                code = None
        finally:
            if process.poll() is None:
                kill_group(process)
                process.wait()
            untrack(process.pid)
        elapsed = time.perf_counter() - started
        harness_cpu = self_cpu_s() - harness_cpu
        out.seek(0)
        err.seek(0)
        stderr = err.read().decode(errors="replace")[-STDERR_TAIL:]
        return Finished(code, out.read(), stderr, elapsed, ran_on, harness_cpu)
