"""`c10k bench --python`: every program runs under the runtime's interpreter, each run records
the runtime; `--pythons`' side-by-side table from two results documents."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest

from bench.harness import cli as bench_cli
from bench.harness import session as harness_session
from bench.harness.commands import CPU_LOOP_PROGRAM, IDLE_PROGRAM, crawl_argv
from bench.harness.plan import PlannedRun
from bench.harness.points import IdleSpec
from bench.harness.recipes import run_idle, run_loop
from bench.harness.runtimes import compare_runtimes, runtime_outcome
from bench.report.runtimes import runtimes_markdown
from bench.results import IdleEntry, Results, ThreadCeiling
from tests.recorded import memory_fit, quantity


@pytest.fixture
def wrapper(tmp_path: Path) -> tuple[Path, Path]:
    """An 'interpreter' that logs its arguments, then runs this one."""
    log = tmp_path / "calls.log"
    script = tmp_path / "python"
    script.write_text(f'#!/bin/sh\necho "$@" >> {log}\nexec {sys.executable} "$@"\n')
    script.chmod(0o755)
    return script, log


def test_idle_and_loop_programs_run_under_the_given_interpreter(
    wrapper: tuple[Path, Path],
) -> None:
    python, log = wrapper
    spec = IdleSpec(kind="thread", count=20, steps=1)
    idle = PlannedRun("idle/thread", "idle", "thread", "measured", 0, idle=spec, estimate_s=5)
    loop = PlannedRun("noise/loop", "noise-floor", "cpu-loop", "measured", 0)
    assert run_idle(idle, None, str(python))["status"] == "ok"
    assert run_loop(loop, None, str(python))["status"] == "ok"
    calls = log.read_text().splitlines()
    assert calls[0].startswith(f"-m {IDLE_PROGRAM} --kind thread --count 20")
    assert calls[1] == f"-m {CPU_LOOP_PROGRAM}"
    assert crawl_argv("http://127.0.0.1:1/", "threads", 2, python=str(python))[:3] == [
        str(python),
        "-m",
        "c10k.cli",
    ]


def test_the_runtime_of_this_harness_describes_itself() -> None:
    runtime = harness_session.harness_runtime()
    assert runtime["executable"] == sys.executable
    assert runtime["tag"].startswith(f"{sys.version_info[0]}.{sys.version_info[1]}")
    assert runtime["origin"] == "harness"


def test_a_spec_that_names_no_runtime_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert bench_cli.main(["--python", "2.5", "--models", "threads"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("c10k bench: error: no Python 2.5 found") and err.count("\n") == 1


def point(concurrency: int, **figures: Any) -> dict[str, Any]:
    return {"concurrency": concurrency} | figures


def results(pages_per_s: float, cpu: float, total_bytes: float) -> dict[str, Any]:
    """A small results document: few-active at C 1 and 8, sleepy at C 10,000, idle."""
    summary = quantity(pages_per_s, [pages_per_s - 10, pages_per_s + 10])
    return {
        "status": "complete",
        "profile": {
            "models": ["threads", "asyncio"],
            "scenarios": ["few-active", "sleepy", "idle"],
        },
        "derived": {
            "few-active": {
                "threads": {
                    "points": [
                        point(1, pages_per_s=quantity(1.0), cpu_us_per_page=quantity(1.0)),
                        point(8, pages_per_s=summary, cpu_us_per_page=quantity(cpu)),
                    ]
                },
                "asyncio": {"points": []},
            },
            "sleepy": {
                "threads": {
                    "points": [
                        point(1000, fraction_of_ideal=quantity(0.99, unit="share")),
                        point(10_000, fraction_of_ideal=quantity(0.5, [0.4, 0.6], "share")),
                    ],
                    "memory_per_connection": memory_fit(
                        total_bytes, total_interval=[total_bytes - 1024, total_bytes + 1024]
                    ),
                }
            },
            "idle": {
                "thread": IdleEntry(
                    total_bytes_per_unit=quantity(10240.0, unit="bytes"),
                    max_threads=cast(ThreadCeiling, {"count": 21000}),
                ),
                "asyncio-task": IdleEntry(total_bytes_per_unit=quantity(1024.0, unit="bytes")),
            },
        },
    }


def runtime(tag: str, unavailable: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "tag": tag,
        "version": tag.rstrip("t") + ".0",
        "gil_disabled": tag.endswith("t"),
        "unavailable_models": unavailable or {},
    }


def test_side_by_side_table_from_two_results_documents(tmp_path: Path) -> None:
    outcomes = [
        runtime_outcome(
            runtime("3.12"), tmp_path / "3.12", cast(Results, results(500, 300, 8192)), None
        ),
        runtime_outcome(
            runtime("3.14t", {"asyncio": "missing uvloop"}),
            tmp_path / "3.14t",
            cast(Results, results(700, 250, 16384)),
            None,
        ),
    ]
    table = compare_runtimes(outcomes, ["3.12", "3.14t", "3.13"])
    pages = table["figures"]["few_active_pages_per_s"]["rows"]
    assert pages["threads"]["3.12"] == {"value": 500.0, "ci95": [490.0, 510.0], "at": 8}
    assert pages["threads"]["3.14t"]["value"] == 700.0
    assert pages["asyncio"]["3.14t"] == {"value": None, "missing": "unavailable: missing uvloop"}
    assert pages["asyncio"]["3.12"] == {"value": None, "missing": "no verified run"}
    assert pages["threads"]["3.13"] == {"value": None, "missing": "not run"}
    c10k = table["figures"]["c10k_fraction_of_ideal"]["rows"]["threads"]["3.12"]
    assert c10k == {"value": 0.5, "ci95": [0.4, 0.6], "at": 10_000}
    memory = table["figures"]["memory_per_connection_bytes"]["rows"]["threads"]["3.14t"]
    assert memory["value"] == 16384.0 and memory["ci95"] == [15360.0, 17408.0]
    idle = table["figures"]["idle_bytes_per_unit"]["rows"]
    assert list(idle) == ["thread", "asyncio-task"] and idle["thread"]["3.12"]["value"] == 10240
    assert table["figures"]["thread_ceiling"]["rows"]["thread"]["3.14t"]["value"] == 21000
    assert table["not_run"] == ["3.13"]
    text = runtimes_markdown(table)
    assert "| threads | 500 [490, 510] at C 8 | 700 [690, 710] at C 8 | - (not run) |" in text
    assert "| 3.13 | - | - | not run | - | - |" in text


def test_a_profile_without_a_fit_or_a_ceiling_says_so(tmp_path: Path) -> None:
    """quick fits no memory per connection and caps the threads it starts: those cells say
    why they are empty, not that a run failed, and a capped count is no ceiling."""
    document = results(500, 300, 8192)
    del document["derived"]["sleepy"]["threads"]["memory_per_connection"]
    capped = cast(ThreadCeiling, {"count": 500, "stopped_by": "cap"})
    idle = document["derived"]["idle"]
    idle["thread"] = replace(idle["thread"], max_threads=capped)
    outcomes = [runtime_outcome(runtime("3.12"), tmp_path / "3.12", cast(Results, document), None)]
    table = compare_runtimes(outcomes, ["3.12"])
    memory = table["figures"]["memory_per_connection_bytes"]["rows"]["threads"]["3.12"]
    assert memory["value"] is None and memory["missing"].startswith("not fitted")
    ceiling = table["figures"]["thread_ceiling"]["rows"]["thread"]["3.12"]
    assert ceiling == {"value": None, "missing": "not reached: the profile stops at 500 threads"}


def test_a_runtime_that_failed_keeps_the_others(tmp_path: Path) -> None:
    outcomes = [
        runtime_outcome(
            runtime("3.12"), tmp_path / "3.12", cast(Results, results(500, 300, 8192)), None
        ),
        runtime_outcome(runtime("3.14t"), tmp_path / "3.14t", None, "3.14t: the venv failed"),
    ]
    table = compare_runtimes(outcomes, ["3.12", "3.14t"])
    cpu = table["figures"]["few_active_cpu_us_per_page"]["rows"]["threads"]
    assert cpu["3.12"] == {"value": 300.0, "ci95": None, "at": 8}
    assert cpu["3.14t"]["missing"] == "runtime failed: 3.14t: the venv failed"
    assert "| 3.14t | 3.14.0 | free-threaded | failed: 3.14t: the venv failed |" in (
        runtimes_markdown(table)
    )
