"""The idle program at small N: every kind parks and reports a per-unit cost."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from c10k import catalog
from impls.tools import idle, thread_ceiling
from tests.server_helpers import REPO


def run_idle(*args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", idle.__name__, *args],
        capture_output=True,
        timeout=60,
        check=True,
        env=env,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize("kind", list(catalog.IDLE_KINDS))
def test_every_kind_parks_units_and_reports_memory_per_unit(kind: str) -> None:
    count = 6 if catalog.IDLE_KINDS[kind].interpreter else 300  # an interpreter: megabytes
    result = run_idle("--kind", kind, "--count", str(count), "--steps", "3")
    assert result["schema"] == idle.SCHEMA and result["kind"] == kind
    if why := catalog.IDLE_KINDS[kind].unavailable():  # the subinterpreter before 3.14
        assert (result["available"], result["note"]) == (False, why)
        return
    if not result["available"]:
        assert kind == "generators-task" and result["note"]
        return
    assert [p["n"] for p in result["points"]] == [0, count // 3, 2 * count // 3, count]
    assert result["per_unit"]["rss_bytes"] > 0
    assert math.isfinite(result["per_unit"]["start_us"])  # fitted, never judged here: a time


def test_a_kind_whose_module_is_missing_is_reported_unavailable(tmp_path: Path) -> None:
    (tmp_path / "uvloop.py").write_text('raise ImportError("hidden by the test")\n')
    path = os.pathsep.join([str(tmp_path), str(REPO), os.environ.get("PYTHONPATH", "")])
    result = run_idle(
        "--kind", catalog.UVLOOP_TASK.name, "--count", "10", env={**os.environ, "PYTHONPATH": path}
    )
    assert (result["available"], result["note"]) == (False, "uvloop is not installed")


def test_tracemalloc_mode_counts_python_allocations() -> None:
    result = run_idle("--kind", "asyncio-task", "--count", "500", "--tracemalloc", "--steps", "1")
    assert result["mode"] == "tracemalloc"
    assert result["per_unit"]["tracemalloc_bytes"] > 100


def test_threads_until_failure_stops_at_the_cap() -> None:
    result = run_idle("--kind", "thread", "--count", "50", "--until-failure", "--cap", "50")
    failure = result["failure"]
    assert failure["count"] == 50 and failure["stopped_by"] == "cap"
    assert failure["context"]["vm.max_map_count"] is not None


def test_threads_on_the_machine_split_the_cap_and_hold_until_all_have_started() -> None:
    result = run_idle(
        "--kind", "thread", "--count", "90", "--until-failure", "--cap", "90", "--processes", "3"
    )
    failure = result["failure"]
    assert (result["processes"], failure["count"], failure["stopped_by"]) == (3, 90, "cap")
    assert [p["count"] for p in failure["processes"]] == [30, 30, 30]
    # Read after every process reported: all 90 threads existed at once.
    assert failure["context"]["threads_on_machine_at_the_end"] >= 90


def test_threads_on_the_machine_name_the_machine_limit_that_stopped_them() -> None:
    # A PID reserve larger than pid_max leaves no headroom: every process steps back at once.
    result = run_idle(
        *("--kind", "thread", "--count", "60", "--until-failure", "--cap", "60"),
        *("--processes", "2", "--pid-reserve", "10000000"),
    )
    failure = result["failure"]
    assert (failure["count"], failure["stopped_by"]) == (0, "pid-reserve")
    assert {p["stopped_by"] for p in failure["processes"]} == {"pid-reserve"}


@pytest.mark.parametrize(
    "args",
    [
        ("--processes", "2"),  # not --until-failure
        ("--until-failure", "--processes", "0"),
        ("--steps", "0"),  # refused here: the program does not clamp it later
    ],
)
def test_processes_bad_input_is_one_line_and_exit_2(args: tuple[str, ...]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", idle.__name__, "--kind", "thread", "--count", "5", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and not done.stdout
    assert done.stderr.count("\n") == 1 and "--processes" in done.stderr


def test_thread_kernel_stack_is_visible_per_thread() -> None:
    result = run_idle("--kind", "thread", "--count", "200", "--steps", "2")
    # Other processes change /proc/meminfo too, so only the sign is checked.
    assert result["per_unit"]["KernelStack_bytes"] > 0


def test_step_counts_add_up() -> None:
    assert idle.step_counts(10, 3) == [3, 3, 4]
    assert sum(idle.step_counts(1_000_003, 5)) == 1_000_003


def test_failure_limit_names_the_limit() -> None:
    near_maps = {"map_count": 65_520, "vm.max_map_count": 65_530}
    assert thread_ceiling.failure_limit(near_maps, RuntimeError("can't start new thread")) == (
        "vm.max_map_count"
    )
    near_pids = {
        "map_count": 10,
        "vm.max_map_count": 65_530,
        "threads_on_machine": 32_760,
        "kernel.pid_max": 32_768,
    }
    assert thread_ceiling.failure_limit(near_pids, RuntimeError("x")) == "kernel.pid_max"
    assert thread_ceiling.failure_limit({}, MemoryError()) == "memory"
    assert thread_ceiling.failure_limit({}, RuntimeError("x")) == "unknown"
