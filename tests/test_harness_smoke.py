"""End to end: `c10k bench` at tiny scale, and Ctrl-C that keeps results and leaves no process."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import psutil
import pytest

from bench.harness.heap import PINNED_MALLOC
from bench.interpreter import python_command
from bench.results import SCHEMA
from tests.server_helpers import wait_for

# Pins CPUs, loads the machine or changes its limits: one xdist worker runs these (tox.ini).
pytestmark = [pytest.mark.xdist_group("machine"), pytest.mark.slow]


def bench(*args: str) -> list[str]:
    return python_command("bench", *args)


def quick_threads(scenario: str, out: Path) -> list[str]:
    """The quick profile for the threads model in one scenario, results in out."""
    return bench(
        "--profile", "quick", "--models", "threads", "--scenarios", scenario, "--out", str(out)
    )


def test_quick_profile_for_one_model_and_scenario(tmp_path: Path) -> None:
    done = subprocess.run(
        quick_threads("few-active", tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    document = json.loads((tmp_path / "results.json").read_text())
    assert document["schema"] == SCHEMA
    assert document["status"] == "complete"
    assert document["environment"]["limits"]["RLIMIT_NOFILE"]["hard"]
    every = document["runs"]
    assert [r["status"] for r in every] == ["ok"] * len(every) and every
    assert [r["kind"] for r in every][:1] == ["sentinel"]  # the round's fixed CPU loop first
    runs = [r for r in every if r["kind"] == "measured"]
    assert [r["round"] for r in runs] == [0] * len(runs)  # one repetition: round 0
    assert all(r["verification"]["manifest_ok"] for r in runs)
    assert all(r["samples"]["rss_kib"] for r in runs)
    points = document["derived"]["few-active"]["threads"]["points"]
    assert [p["concurrency"] for p in points] == [4]
    # Pinned by default: every run records the sets it ran on, as the environment planned.
    pinning = document["environment"]["pinning"]
    assert pinning["requested"] == "on" and pinning["applied"] == (len(pinning["usable"]) > 1)
    for run in runs:
        ran = run["pinning"]
        assert ran["applied"] == pinning["applied"]
        if pinning["applied"]:
            assert (ran["crawler"], ran["server"]) == (pinning["crawler"], pinning["server"])
            assert ran["harness"] == ran["sampler"] == pinning["harness"]
        assert run["busy"]["cpu_bound"] in ("crawler", "server", "both", "neither")
    assert document["derived"]["harness_cost"]["runs"] == len(runs)
    assert document["derived"]["rounds"] == {"few-active": {"rounds": 1, "noisy": 0, "again": 0}}
    assert "few-active" in done.stdout and "threads" in done.stdout


def test_dry_run_prints_the_plan_and_its_duration() -> None:
    done = subprocess.run(
        bench("--profile", "default", "--dry-run"), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0
    assert "sleepy/threads/c10000" in done.stdout
    assert "within the 40:00 budget" in done.stdout


def test_unknown_model_is_a_usage_error() -> None:
    done = subprocess.run(
        bench("--models", "nope", "--dry-run"), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "unknown model" in done.stderr


def test_a_remote_server_cannot_run_the_scenario_of_several_addresses() -> None:
    # Refused from the plan, before any ssh session (nothing listens at port 9).
    args = ("--profile", "full", "--scenarios", "c100k", "--server", "ssh://127.0.0.1:9")
    done = subprocess.run(bench(*args), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "c100k needs a server on several" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_interrupt_keeps_results_and_stops_every_process_it_started(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    harness = subprocess.Popen(
        quick_threads("sleepy", tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # SIGINT at its default, as under a terminal: a shell starts background jobs with
        # SIGINT ignored, and the harness would inherit that when pytest runs as one.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:

        def one_run_saved() -> bool:
            try:
                runs = json.loads(results.read_text())["runs"]
                return any(r["kind"] == "measured" for r in runs)
            except (OSError, ValueError):
                return False

        assert wait_for(one_run_saved, 60)
        started = psutil.Process(harness.pid).children(recursive=True)
        harness.send_signal(signal.SIGINT)
        code = harness.wait(30)
    finally:
        if harness.poll() is None:
            harness.kill()
            harness.wait()
    assert code == 130
    document = json.loads(results.read_text())
    assert document["status"] == "interrupted"
    first = next(r for r in document["runs"] if r["kind"] == "measured")
    assert first["status"] == "ok"
    # A sleepy run is fitted for memory: it ran with glibc's thresholds pinned (heap.py).
    assert first["heap"]["malloc"] == PINNED_MALLOC
    assert not [p for p in started if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
