"""The command line of each program the harness runs: crawler, idle units, CPU loop, replay."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from bench.harness.points import IdleSpec
from bench.interpreter import python_command
from c10k.catalog import CORE_C

# The programs beside the crawler, each run as `python -m MODULE`.
IDLE_PROGRAM = "impls.tools.idle"
CPU_LOOP_PROGRAM = "impls.tools.cpu_loop"
REPLAY_PROGRAM = "impls.tools.replay"


def crawl_argv(
    root: str,
    model: str,
    concurrency: int,
    *,
    timeout_s: float | None = None,
    max_tries: int | None = None,
    keep_alive: bool = False,
    mark_crawl: bool = False,
    remote: bool = False,
    processes: int = 1,
    connect_to: Sequence[str] = (),
    core: str = CORE_C,
    interpreters: int = 0,
    python: str = sys.executable,
) -> list[str]:
    """`c10k crawl ROOT --model M --concurrency C ... --json` under python, each option only
    where it leaves the crawler's default: --processes and --connect-to only when P > 1 (a
    plain crawl connects to ROOT's host), --allow-non-loopback for a remote server."""
    argv = python_command(
        "crawl", root, "--model", model, "--concurrency", str(concurrency), python=python
    )
    if core != CORE_C:
        argv += ["--core", core]
    if interpreters > 0:
        argv += ["--interpreters", str(interpreters)]
    if processes > 1:
        argv += ["--processes", str(processes)]
        if connect_to:
            argv += ["--connect-to", ",".join(connect_to)]
    if remote:
        argv.append("--allow-non-loopback")
    if keep_alive:
        argv.append("--keep-alive")
    if timeout_s is not None:
        argv += ["--timeout", str(timeout_s)]
    if max_tries is not None:
        argv += ["--max-tries", str(max_tries)]
    if mark_crawl:
        argv.append("--mark-crawl")
    return [*argv, "--json"]


def idle_argv(spec: IdleSpec, python: str = sys.executable) -> list[str]:
    args = ["--kind", spec.kind, "--count", str(spec.count), "--steps", str(spec.steps)]
    if spec.mode == "tracemalloc":
        args.append("--tracemalloc")
    if spec.mode == "until-failure":
        args += ["--until-failure", "--cap", str(spec.cap)]
        if spec.processes > 1:
            args += ["--processes", str(spec.processes)]
    return python_command(*args, python=python, module=IDLE_PROGRAM)
