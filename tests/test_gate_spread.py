"""Tests for the gate's spreads: each gated figure's threshold from its spread over clean runs."""

from __future__ import annotations

import configparser
import json
import subprocess
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from bench.harness import callgrind
from bench.harness.callgrind import InstructionCount
from bench.regress import repeat
from bench.regress.baseline import figure_spreads, pooled_document
from bench.regress.cli import main
from bench.regress.compare import (
    BASELINE_RUNS,
    SPREAD_KEY,
    Spread,
    gate_threshold,
    judge,
    load_run,
    read_spread,
    relative_spread,
    spread_of,
)
from bench.regress.environment import current_environment, file_slug
from bench.regress.suites import support
from tests.test_compare import ENVIRONMENT, write_run

INSTRUCTIONS = "instructions_per_page"


def test_relative_spread_is_the_range_over_the_median() -> None:
    assert relative_spread([100.0, 101.0, 99.0, 100.0, 100.5]) == pytest.approx(0.02)
    assert relative_spread([754_291.0, 723_384.0]) == pytest.approx(30_907 / 738_837.5)
    assert relative_spread([5.0]) == 0.0  # one run: nothing to spread
    assert relative_spread([]) == 0.0
    assert relative_spread([0.0, 0.0]) == 0.0
    assert relative_spread([-1.0, 0.0, 1.0]) == float("inf")


def test_threshold_is_the_fixed_gate_or_three_spreads() -> None:
    assert gate_threshold(0.03, 0.005) == 0.03  # a steady figure keeps the fixed gate
    assert gate_threshold(0.03, 0.02) == pytest.approx(0.06)
    assert gate_threshold(0.05, 0.01) == 0.05  # RSS per idle unit: its own fixed gate
    spread = spread_of([100.0, 101.0, 99.0, 100.0, 100.5], 0.03)
    assert spread.runs == 5 and spread.spread == pytest.approx(0.02)
    assert spread.threshold == pytest.approx(0.06)
    assert spread.run_medians == (100.0, 101.0, 99.0, 100.0, 100.5)


def test_recorded_spreads_are_read_back() -> None:
    recorded = spread_of([100.0, 101.0, 100.5], 0.03)
    assert read_spread(asdict(recorded), 0.03) == recorded
    without_threshold = read_spread({"runs": 5, "spread": 0.02}, 0.03)
    assert without_threshold is not None and without_threshold.threshold == pytest.approx(0.06)
    lowered = read_spread({"runs": 5, "spread": 0.0, "threshold": 0.001}, 0.03)
    assert lowered is not None and lowered.threshold == 0.03  # a spread only widens a gate
    bad_records: list[Any] = [None, [], {"runs": 5}, {"runs": "five", "spread": 0.1}]
    for bad in bad_records:
        assert read_spread(bad, 0.03) is None


def test_a_steady_figure_fails_at_five_percent_not_at_two() -> None:
    steady = Spread(runs=5, spread=0.005, threshold=gate_threshold(0.03, 0.005))
    five = judge("test_instructions[callbacks]", INSTRUCTIONS, [1000.0], [1050.0], steady)
    assert (five.regressed, five.threshold) == (True, 0.03)
    two = judge("test_instructions[callbacks]", INSTRUCTIONS, [1000.0], [1020.0], steady)
    assert (two.verdict, two.regressed) == ("slower", False)
    assert "gate +3.0% (spread 0.50% over 5 runs)" in five.line()


def test_a_wide_spread_widens_the_gate_and_the_noise_floor() -> None:
    moving = Spread(runs=5, spread=0.04, threshold=gate_threshold(0.03, 0.04))
    inside = judge("test_instructions[gevent]", INSTRUCTIONS, [1000.0], [1035.0], moving)
    assert (inside.verdict, inside.regressed) == ("no significant change", False)
    past = judge("test_instructions[gevent]", INSTRUCTIONS, [1000.0], [1130.0], moving)
    assert past.regressed and past.threshold == pytest.approx(0.12)


def test_without_a_spread_the_fixed_gate_applies() -> None:
    old = judge("test_instructions[callbacks]", INSTRUCTIONS, [1000.0], [1035.0])
    assert (old.regressed, old.threshold, old.spread) == (True, 0.03, None)
    assert "gate +3.0% (fixed)" in old.line()
    # A spread says nothing about a figure that never gates.
    cpu = judge("b", "cpu_us_per_page", [100.0], [300.0], Spread(5, 0.0, 0.03))
    assert (cpu.gated, cpu.threshold, cpu.regressed) == (False, None, False)


# -- pooling runs into a baseline ---------------------------------------------------------


def clean_runs(tmp_path: Path, factors: list[float]) -> list[Path]:
    """Runs of one tree whose threads model's instruction count moved by these factors."""
    folder = tmp_path / "runs"
    folder.mkdir(exist_ok=True)
    return [write_run(folder / f"run-{i}.json", slower=f) for i, f in enumerate(factors, 1)]


def test_pooled_runs_keep_every_sample_and_each_spread(tmp_path: Path) -> None:
    runs = [load_run(path) for path in clean_runs(tmp_path, [1.0, 1.004, 0.998, 1.0, 1.002])]
    document = pooled_document(runs)
    entry = next(e for e in document["benchmarks"] if e["name"] == "test_instructions[threads]")
    assert entry["extra_info"]["samples"][INSTRUCTIONS] == [
        pytest.approx(1.5e6 * f) for f in (1.0, 1.004, 0.998, 1.0, 1.002)
    ]
    assert entry["extra_info"]["figures"][INSTRUCTIONS] == pytest.approx(1.5e6)
    recorded = entry["extra_info"][SPREAD_KEY][INSTRUCTIONS]
    assert (recorded["runs"], recorded["spread"]) == (5, pytest.approx(0.006))
    assert recorded["threshold"] == 0.03
    crawl = next(e for e in document["benchmarks"] if e["name"] == "test_crawl[threads-deep]")
    assert len(crawl["extra_info"]["samples"]["cpu_us_per_page"]) == 15  # 3 rounds x 5 runs
    assert SPREAD_KEY not in crawl["extra_info"]  # CPU time never gates: no threshold to set
    spreads = figure_spreads(runs)
    assert ("test_instructions[asyncio]", INSTRUCTIONS) in spreads
    assert ("test_crawl[threads-deep]", "cpu_us_per_page") not in spreads


def test_update_with_five_runs_writes_the_spreads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baselines = tmp_path / "baselines"
    runs = clean_runs(tmp_path, [1.0, 1.01, 0.99, 1.0, 1.02])
    assert main([str(baselines), str(runs[0].parent), "--deterministic", "--update"]) == 0
    out = capsys.readouterr().out
    assert "spread over 5 runs, recorded in the baseline" in out
    assert "threads: instructions_per_page spread 3.00% (1.485e+06 .. 1.53e+06); gate +9.0%" in out
    written = baselines / file_slug(ENVIRONMENT)
    baseline = load_run(written)
    spread = baseline.spreads[("test_instructions[threads]", INSTRUCTIONS)]
    assert spread.runs == 5 and spread.spread == pytest.approx(0.03)
    assert spread.threshold == pytest.approx(0.09)
    # The gate judges each figure against its own threshold, and says which.
    seven = write_run(tmp_path / "seven.json", slower=1.07)
    assert main([str(baselines), str(seven), "--deterministic"]) == 0
    out = capsys.readouterr().out
    assert (
        "test_instructions[threads] instructions_per_page: slower (+7.0%, 1,500,000 -> "
        "1,605,000, p=n/a); gate +9.0% (spread 3.00% over 5 runs)"
    ) in out
    assert "gate +3.0% (spread 0.00% over 5 runs)" in out  # asyncio did not move at all
    ten = write_run(tmp_path / "ten.json", slower=1.10)
    assert main([str(baselines), str(ten), "--deterministic"]) == 1
    assert "the gate +9.0% (spread 3.00% over 5 runs)" in capsys.readouterr().out


def test_update_with_one_run_records_no_spread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baselines = tmp_path / "baselines"
    new = write_run(tmp_path / "new.json")
    assert main([str(baselines), str(new), "--update"]) == 0
    assert "one run: no spread recorded, the fixed gates apply" in capsys.readouterr().out
    written = baselines / file_slug(ENVIRONMENT)
    assert written.read_bytes() == new.read_bytes() and not load_run(written).spreads
    # An old baseline (no spreads): the fixed threshold, named as such.
    assert main([str(baselines), str(write_run(tmp_path / "b.json", slower=1.04))]) == 1
    assert "the gate +3.0% (fixed)" in capsys.readouterr().out


def test_fewer_runs_than_the_default_are_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = clean_runs(tmp_path, [1.0, 1.001])
    assert main([str(tmp_path / "baselines"), *map(str, runs), "--update"]) == 0
    assert "warning: a spread over 2 runs is a rough one; 5 is the default" in (
        capsys.readouterr().out
    )


def test_runs_of_different_environments_are_not_pooled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = write_run(tmp_path / "base.json")
    other = write_run(tmp_path / "other.json", environment={**ENVIRONMENT, "python": "x"})
    assert main([str(base), str(base), str(other)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pool runs of one environment only" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main([str(base), str(empty)]) == 2
    assert "a directory with no runs (*.json) in it" in capsys.readouterr().err


# -- the runs and the counted crawls ------------------------------------------------------


def test_repeat_runs_the_suite_into_one_file_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[list[str]] = []

    def fake_run(argv: list[str], check: bool) -> Any:
        calls.append(argv)
        Path(argv[-1].split("=", 1)[1]).write_text("{}")
        return type("Done", (), {"returncode": 0})()

    out = tmp_path / "runs"
    out.mkdir()
    (out / "run-9.json").write_text("{}")  # an earlier repeat's: never pooled with these
    monkeypatch.setattr(subprocess, "run", fake_run)
    assert repeat.main(["3", str(out), "--", "bench/regress/suites", "-m", "deterministic"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["run-1.json", "run-2.json", "run-3.json"]
    assert calls[0][1:] == [
        "-m",
        "pytest",
        "bench/regress/suites",
        "-m",
        "deterministic",
        f"--benchmark-json={out / 'run-1.json'}",
    ]


def test_repeat_leaves_no_partial_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def failing_second(argv: list[str], check: bool) -> Any:
        target = Path(argv[-1].split("=", 1)[1])
        target.write_text("{}")
        return type("Done", (), {"returncode": 1 if target.name == "run-2.json" else 0})()

    monkeypatch.setattr(subprocess, "run", failing_second)
    assert repeat.main(["5", str(tmp_path), "--"]) == 1
    assert list(tmp_path.glob("run-*.json")) == []


def test_repeat_refuses_a_bad_count(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        repeat.main(["0", "out"])
    assert exited.value.code == 2
    assert "must be at least 1" in capsys.readouterr().err


def test_counted_crawls_go_one_page_at_a_time_with_a_pinned_heap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    urls = {"http://127.0.0.1:1/": 200}
    seen: dict[str, Any] = {}

    def fake_crawl(argv: list[str], manifest: Any, timeout: float, env: dict[str, str]) -> Any:
        seen.update(argv=argv, env=env)
        return {"pages": 1, "fetched": urls}

    monkeypatch.setattr(support, "run_crawl", fake_crawl)
    monkeypatch.setattr(callgrind, "read_count", lambda path, pages: InstructionCount(1, 9, 1, 1))
    server: Any = type("Site", (), {"root": "http://127.0.0.1:1/", "manifest": {"urls": urls}})
    count = support.instruction_count("callbacks", server, support.COUNTED.concurrency)
    assert count.per_page == 9
    argv, env = seen["argv"], seen["env"]
    assert argv[: argv.index("--tool=callgrind") + 1][0] == "valgrind"
    assert argv[argv.index("--concurrency") + 1] == "1" and "--mark-crawl" in argv
    assert env["PYTHONHASHSEED"] == callgrind.HASH_SEED
    for variable in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_"):
        assert env[variable] == "131072"
    # Every answer of the counted site is late, the root's too: the crawler always waits.
    assert support.COUNTED.site.latency.text == "20ms" and support.COUNTED.site.root_latency
    assert support.COUNTED.site.shape == support.DEEP.site.shape == "deep"


def test_the_baseline_env_measures_five_runs_and_records_their_spreads() -> None:
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(Path(__file__).resolve().parents[1] / "tox.ini", encoding="utf-8")
    commands = tox["testenv:baseline"]["commands"]
    assert f"python -m bench.regress.repeat {{env:C10K_BASELINE_RUNS:{BASELINE_RUNS}}}" in commands
    assert "-m deterministic" in commands
    assert "c10k compare --deterministic --update" in commands


def test_the_gate_skips_what_its_baseline_lacks_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows: list[dict[str, Any]] = [
        {"name": name, "missing": []} for name in ("asyncio", "threads", "asyncio-threads")
    ]
    monkeypatch.setattr(support, "listed_models", lambda: rows)
    baseline = tmp_path / file_slug(current_environment())

    def measured() -> list[str]:
        return [m for m in support.suite_models() if isinstance(m, str)]

    held = [{"extra_info": {"model": m}} for m in ("asyncio", "threads")] + [{"extra_info": {}}]
    baseline.write_text(json.dumps({"benchmarks": held}))
    monkeypatch.setenv("C10K_GATE_BASELINES", str(tmp_path))
    assert measured() == ["asyncio", "threads"]
    (skipped,) = [m for m in support.suite_models() if not isinstance(m, str)]
    assert skipped.values == ("asyncio-threads",)
    assert support.NOT_IN_BASELINE in skipped.marks[0].kwargs["reason"]
    # Every model where the baseline holds none, cannot be read or is missing, or outside
    # the gate (tox -e baseline).
    everything = ["asyncio", "threads", "asyncio-threads"]
    for text in (json.dumps({"benchmarks": [{"extra_info": {}}]}), "not json", "[]"):
        baseline.write_text(text)
        assert measured() == everything
    baseline.unlink()
    assert measured() == everything
    monkeypatch.setenv("C10K_GATE_BASELINES", "")
    assert measured() == everything


def test_tox_gives_the_gate_its_baselines_and_the_baseline_every_model() -> None:
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(Path(__file__).resolve().parent.parent / "tox.ini")
    assert "C10K_GATE_BASELINES = {tox_root}" in tox["testenv:gate"]["set_env"]
    assert tox["testenv:baseline"]["set_env"].rstrip().endswith("C10K_GATE_BASELINES =")
