"""The noise floor: the fixed CPU loop, its place in the plan, its figures and its sentence."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any, cast

import pytest

from bench.analysis.derive import derive_noise_floor
from bench.harness import plan as sc
from bench.harness.commands import CPU_LOOP_PROGRAM
from bench.harness.profiles import PROFILE_TABLE, PROFILES
from bench.harness.summary import summary_table
from bench.interpreter import python_command
from bench.report.conditions import noise_floor_text
from bench.results import Block, Results
from c10k import catalog
from impls.tools import cpu_loop
from impls.tools.cpu_loop import parse_links
from tests.recorded import derive, runs_of


def loop_run(n: int, cpu_s: float, status: str = "ok") -> dict[str, Any]:
    run: dict[str, Any] = {
        "id": f"noise-floor/cpu-loop/{n}",
        "scenario": catalog.NOISE_FLOOR.name,
        "model": catalog.CPU_LOOP,
        "kind": "measured",
        "status": status,
    }
    if status == "ok":
        run["loop"] = {"rounds": 300, "found": 1, "cpu_s": cpu_s, "wall_s": cpu_s * 1.01}
    return run


def test_the_loop_does_the_same_work_every_time() -> None:
    assert parse_links(3) == parse_links(3)
    assert parse_links(6) > parse_links(3) > 0


def test_the_loop_program_prints_its_cpu_seconds_as_json() -> None:
    done = subprocess.run(
        python_command("--rounds", "2", module=CPU_LOOP_PROGRAM),
        capture_output=True,
        text=True,
        check=True,
    )
    document = json.loads(done.stdout)
    assert document["rounds"] == 2
    assert document["found"] == parse_links(2)
    assert isinstance(document["cpu_s"], float) and isinstance(document["wall_s"], float)


def test_the_loop_program_refuses_no_work_in_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", cpu_loop.__name__, "--rounds", "0"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "--rounds must be at least 1" in done.stderr


@pytest.mark.parametrize("profile", PROFILES)
def test_every_profile_measures_the_floor_first_in_several_processes(profile: str) -> None:
    plan = sc.build_plan(PROFILE_TABLE[profile], sc.ALL_MODELS, sc.SCENARIOS)
    loops = [r for r in plan if r.model == catalog.CPU_LOOP and r.kind != "sentinel"]
    assert len(loops) >= 3
    assert plan[: len(loops)] == loops  # before anything has warmed the machine
    assert {r.model for r in loops} == {catalog.CPU_LOOP}
    assert {r.scenario for r in loops} == {catalog.NOISE_FLOOR.name}
    assert all(r.point is None and r.idle is None for r in loops)


def test_the_floor_is_left_out_when_its_scenario_is() -> None:
    others = [s for s in sc.SCENARIOS if s != catalog.NOISE_FLOOR.name]
    plan = sc.build_plan(PROFILE_TABLE["quick"], sc.ALL_MODELS, others)
    assert not any(r.scenario == catalog.NOISE_FLOOR.name for r in plan)
    # The loop still runs, as each round's sentinel, and only there.
    assert all(r.kind == "sentinel" for r in plan if r.model == catalog.CPU_LOOP)


def test_every_sampled_round_starts_with_its_sentinel_on_the_crawlers_cpus() -> None:
    plan = sc.build_plan(PROFILE_TABLE["default"], sc.ALL_MODELS, sc.SCENARIOS)
    blocks: dict[Block, list[sc.PlannedRun]] = {}
    for run in plan:
        if run.block is not None:
            blocks.setdefault(run.block, []).append(run)
    assert blocks
    for runs in blocks.values():
        counted = runs[0].scenario == catalog.INSTRUCTIONS.name
        assert (runs[0].kind == "sentinel") is not counted
        assert sum(r.kind == "sentinel" for r in runs) == (0 if counted else 1)


def test_the_floor_summarises_the_runs_that_ended_ok() -> None:
    runs = [loop_run(0, 0.200), loop_run(1, 0.220), loop_run(2, 0.0, "crashed"), loop_run(3, 0.210)]
    floor = derive_noise_floor(runs_of(runs))
    assert floor["runs"] == 3
    cpu = floor["cpu_s"]
    assert cpu.value == pytest.approx(0.210) and cpu.spread is not None
    assert cpu.spread.cv == pytest.approx(0.01 / 0.210, rel=1e-6)
    assert derive(runs, {})[catalog.NOISE_FLOOR.name] == floor


def test_the_report_and_the_summary_give_the_floor() -> None:
    runs = [loop_run(0, 0.100), loop_run(1, 0.120)]
    document = cast(Results, {"runs": runs_of(runs), "derived": derive(runs, {})})
    sentence = noise_floor_text(document)
    assert "2 fresh processes" in sentence and "100-120 ms" in sentence
    assert "CV 12.9%" in sentence  # stdev 0.01414 / mean 0.110
    assert "noise floor: a fixed CPU loop in 2 fresh processes" in summary_table(document)


def test_results_without_a_floor_say_so() -> None:
    assert "was not measured" in noise_floor_text(cast(Results, {"runs": [], "derived": {}}))
