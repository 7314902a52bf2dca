"""Tests for `c10k compare`: the Mann-Whitney U test, verdicts, the gate and bad files."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import pytest

from bench.regress.cli import main
from bench.regress.compare import judge, load_run
from bench.regress.environment import current_environment, differences, file_slug
from bench.regress.significance import average_ranks, mann_whitney_u, u_counts
from bench.regress.stability import main as stability_main
from bench.regress.stability import stability_rows


def brute_force_p(xs: list[float], ys: list[float]) -> float:
    """Two-sided permutation p-value of U, by trying every split of the pooled values."""
    pooled = [*xs, *ys]
    m = len(xs)

    def u_of(first: list[float], second: list[float]) -> float:
        return sum((a > b) + 0.5 * (a == b) for a in first for b in second)

    observed = u_of(xs, ys)
    centre = m * len(ys) / 2
    splits = list(itertools.combinations(range(len(pooled)), m))
    extreme = 0
    for chosen in splits:
        first = [pooled[i] for i in chosen]
        second = [pooled[i] for i in range(len(pooled)) if i not in chosen]
        extreme += abs(u_of(first, second) - centre) >= abs(observed - centre) - 1e-9
    return extreme / len(splits)


def test_average_ranks_share_ties() -> None:
    assert average_ranks([10.0, 20.0, 20.0, 5.0]) == [2.0, 3.5, 3.5, 1.0]


def test_u_counts_cover_every_ordering() -> None:
    for m, n in [(1, 1), (3, 4), (5, 5), (6, 2)]:
        counts = u_counts(m, n)
        assert len(counts) == m * n + 1
        assert sum(counts) == math.comb(m + n, m)
        assert counts == counts[::-1]  # U is symmetric about m*n/2


def test_completely_separated_samples() -> None:
    result = mann_whitney_u([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])
    assert result.u == 0
    assert result.method == "exact"
    assert result.p_value == pytest.approx(2 / 252)
    assert mann_whitney_u([6, 7, 8, 9, 10], [1, 2, 3, 4, 5]).p_value == result.p_value


@pytest.mark.parametrize(
    ("xs", "ys"),
    [
        ([1.0, 3.0, 5.0, 7.0, 9.0], [2.0, 4.0, 6.0, 8.0, 10.0]),
        ([1.1, 2.5, 0.3], [4.0, 0.9, 3.3, 5.1]),
        ([10.0, 11.0, 12.5, 9.0, 14.0], [13.0, 15.0, 16.0, 17.0, 12.0]),
    ],
)
def test_exact_p_value_matches_every_permutation(xs: list[float], ys: list[float]) -> None:
    assert mann_whitney_u(xs, ys).p_value == pytest.approx(brute_force_p(xs, ys))


def test_ties_use_the_normal_approximation() -> None:
    equal = mann_whitney_u([5.0, 5.0, 5.0], [5.0, 5.0, 5.0])
    assert (equal.method, equal.p_value) == ("normal", 1.0)
    tied = mann_whitney_u([1.0, 2.0, 2.0, 3.0, 4.0], [2.0, 5.0, 6.0, 7.0, 8.0])
    assert tied.method == "normal"
    assert 0 < tied.p_value < 0.1


def test_normal_approximation_is_close_to_exact_for_large_samples() -> None:
    xs = [float(i) for i in range(0, 60, 2)]
    ys = [float(i) + 7 for i in range(1, 61, 2)]
    # 60 values: past the exact limit, so the normal approximation answers
    normal = mann_whitney_u(xs, ys)
    assert normal.method == "normal"
    u = normal.u
    counts = u_counts(30, 30)
    exact = 2 * sum(counts[: int(u) + 1]) / math.comb(60, 30)
    assert normal.p_value == pytest.approx(exact, abs=0.01)


def test_mann_whitney_needs_values() -> None:
    with pytest.raises(ValueError, match="at least one value"):
        mann_whitney_u([], [1.0])


# -- verdicts -----------------------------------------------------------------------------

BASE = [100.0, 101.0, 99.0, 100.5, 99.5]


def test_a_clear_slowdown_is_slower() -> None:
    verdict = judge("b", "cpu_us_per_page", BASE, [v * 1.5 for v in BASE])
    assert verdict.verdict == "slower"
    assert verdict.change == pytest.approx(0.5)
    assert verdict.p_value is not None and verdict.p_value < 0.05
    assert not verdict.regressed  # CPU time is reported, never gated: it does not hold still


def test_higher_pages_per_s_is_faster() -> None:
    assert judge("b", "pages_per_s", BASE, [v * 1.5 for v in BASE]).verdict == "faster"
    assert judge("b", "pages_per_s", BASE, [v * 0.5 for v in BASE]).verdict == "slower"


def test_overlapping_samples_are_no_significant_change() -> None:
    verdict = judge("b", "cpu_us_per_page", BASE, [101.0, 99.2, 130.0, 98.0, 100.2])
    assert verdict.verdict == "no significant change"


def test_a_change_below_the_noise_floor_is_no_change() -> None:
    # significant by the U test, but CPU time drifts more than this between identical runs
    verdict = judge("b", "cpu_us_per_page", BASE, [v * 1.2 for v in BASE])
    assert verdict.p_value is not None and verdict.p_value < 0.05
    assert verdict.verdict == "no significant change"


def test_gated_figure_regresses_past_its_threshold() -> None:
    assert judge("b", "instructions_per_page", [1000.0], [1100.0]).regressed
    assert judge("b", "instructions_per_page", [1000.0], [1100.0]).p_value is None
    assert not judge("b", "instructions_per_page", [1000.0], [1020.0]).regressed
    faster = judge("b", "instructions_per_page", [1000.0], [900.0])
    assert (faster.verdict, faster.regressed) == ("faster", False)


def test_memory_figures_say_larger() -> None:
    verdict = judge("b", "tracemalloc_bytes_per_unit", BASE, [v * 1.1 for v in BASE])
    assert (verdict.verdict, verdict.regressed) == ("larger", True)


# -- files and exit codes -----------------------------------------------------------------


def crawl_entry(model: str, cpu: list[float], instructions: float) -> list[dict[str, Any]]:
    return [
        {
            "name": f"test_crawl[{model}-deep]",
            "group": "crawl deep",
            "extra_info": {"model": model, "samples": {"cpu_us_per_page": cpu}},
            "stats": {"data": [0.5, 0.51, 0.49]},
        },
        {
            "name": f"test_instructions[{model}]",
            "group": "instructions deep",
            "extra_info": {"model": model, "samples": {"instructions_per_page": [instructions]}},
            "stats": {"data": [30.0]},
        },
    ]


ENVIRONMENT = {
    "python": "CPython 3.11.7",
    "build": "main May  9 2026 07:35:25",
    "free_threaded": False,
    "platform": "linux-x86_64-glibc2.36",
    "packages": {"aiohttp": "3.14.5", "uvloop": "0.23.0"},
}


def write_run(
    path: Path, slower: float = 1.0, environment: dict[str, Any] | None = ENVIRONMENT
) -> Path:
    benchmarks = [
        *crawl_entry("threads", [700.0, 710.0, 690.0], 1.5e6 * slower),
        *crawl_entry("asyncio", [500.0, 505.0, 495.0], 1.1e6),
    ]
    machine_info = {} if environment is None else {"c10k_environment": environment}
    path.write_text(json.dumps({"machine_info": machine_info, "benchmarks": benchmarks}))
    return path


def test_figures_and_ratios_are_read(tmp_path: Path) -> None:
    figures = load_run(write_run(tmp_path / "run.json")).figures
    assert figures[("test_crawl[asyncio-deep]", "time")] == [0.5, 0.51, 0.49]
    assert ("test_instructions[threads]", "time") not in figures  # valgrind's time
    ratio = figures[("test_instructions[asyncio]", "ratio_instructions_per_page")]
    assert ratio == [pytest.approx(1.1 / 1.5)]
    assert ("test_crawl[threads-deep]", "ratio_cpu_us_per_page") not in figures


def test_same_run_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = write_run(tmp_path / "run.json")
    assert main([str(run), str(run)]) == 0
    assert "0 regressed" in capsys.readouterr().out


def test_regression_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = write_run(tmp_path / "base.json")
    new = write_run(tmp_path / "new.json", slower=1.10)
    assert main([str(base), str(new)]) == 1
    out = capsys.readouterr().out
    assert "test_instructions[threads] instructions_per_page: slower (+10.0%" in out
    # The summary names the model, the figure and the change.
    summary = out.split("REGRESSED past the gate (1):\n", 1)[1]
    assert summary.startswith("  threads: instructions per page +10.0% (1,500,000 -> 1,650,000)")


def test_improvement_passes_and_is_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = write_run(tmp_path / "base.json")
    new = write_run(tmp_path / "new.json", slower=0.9)
    assert main([str(base), str(new)]) == 0
    out = capsys.readouterr().out
    assert "improved beyond the noise floor (1):\n  threads: instructions per page -10.0%" in out
    assert "REGRESSED" not in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        ("{not json", "not JSON"),
        ('{"hello": 1}', "not a pytest-benchmark file"),
        ('{"benchmarks": []}', "no figures"),
        ('{"benchmarks": [{"extra_info": {}}]}', "malformed benchmark entry"),
    ],
)
def test_bad_files_get_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, message: str
) -> None:
    good = write_run(tmp_path / "good.json")
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_text(content)
    assert main([str(good), str(bad)]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and err.startswith("c10k compare: error:")


def test_stability_prints_cv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = [str(write_run(tmp_path / f"run{i}.json", slower=1 + i / 100)) for i in range(3)]
    assert stability_main(runs) == 0
    out = capsys.readouterr().out
    line = next(row for row in out.splitlines() if row.startswith("test_instructions[threads]"))
    assert "0.99%" in line  # CV of 1.5e6 * (1.00, 1.01, 1.02)


def test_stability_takes_each_figure_of_two_runs_or_more() -> None:
    # The figures a baseline records a spread of, whichever run lacks them (not only the first).
    runs = [{("b", "x"): [1.0]}, {("b", "x"): [2.0], ("b", "y"): [3.0]}, {("b", "y"): [3.3]}]
    assert [row[:3] for row in stability_rows(runs)] == [("b", "x", 2), ("b", "y", 2)]


def test_deterministic_figures_are_judged_by_size_alone() -> None:
    # tracemalloc bytes per unit repeat exactly from run to run: 3 rounds against 3 could
    # never pass a U test at p < 0.05, so the size past the noise floor decides.
    verdict = judge("b", "tracemalloc_bytes_per_unit", [488.6] * 3, [537.5] * 3)
    assert (verdict.verdict, verdict.regressed, verdict.p_value) == ("larger", True, None)
    same = judge("b", "tracemalloc_bytes_per_unit", [488.6] * 3, [488.6] * 3)
    assert same.verdict == "no significant change"
    within_noise = judge("b", "rss_bytes_per_unit", [1000.0] * 3, [1015.0] * 3)
    assert within_noise.verdict == "no significant change"


def test_figures_in_one_run_only_are_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = write_run(tmp_path / "base.json")
    document = json.loads(base.read_text())
    document["benchmarks"] = document["benchmarks"][:2]  # threads only, as `pytest -k threads`
    subset = tmp_path / "subset.json"
    subset.write_text(json.dumps(document))
    assert main([str(base), str(subset)]) == 0
    out = capsys.readouterr().out
    assert "are in one run only, not compared" in out
    assert "warning: gated figures not in NEW: asyncio instructions_per_page" in out
    assert main([str(base), str(subset), "--all"]) == 0
    assert "test_crawl[asyncio-deep] cpu_us_per_page: only in BASE" in capsys.readouterr().out


# -- environments, the CI gate and moving the baseline ------------------------------------


def test_runs_from_different_environments_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = write_run(tmp_path / "base.json")
    newer = {**ENVIRONMENT, "python": "CPython 3.12.1"}
    new = write_run(tmp_path / "new.json", slower=1.5, environment=newer)
    assert main([str(base), str(new)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "different environments (python CPython 3.11.7 vs CPython 3.12.1)" in err
    unrecorded = write_run(tmp_path / "old.json", environment=None)
    assert main([str(unrecorded), str(base)]) == 2
    assert "records no environment" in capsys.readouterr().err


def test_a_directory_gives_the_baseline_of_the_same_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baselines = tmp_path / "baselines"
    baselines.mkdir()
    write_run(baselines / "a.json", slower=2.0, environment={**ENVIRONMENT, "python": "x"})
    write_run(baselines / "b.json")
    new = write_run(tmp_path / "new.json", slower=1.10)
    assert main([str(baselines), str(new)]) == 1
    assert f"baseline: {baselines / 'b.json'}" in capsys.readouterr().out
    other = {**ENVIRONMENT, "packages": {"aiohttp": "3.15.0", "uvloop": "0.23.0"}}
    stranger = write_run(tmp_path / "stranger.json", environment=other)
    assert main([str(baselines), str(stranger)]) == 2
    err = capsys.readouterr().err
    assert "no baseline in" in err and "b.json, differs in aiohttp 3.14.5 vs 3.15.0" in err
    assert "tox -e baseline" in err


def test_the_deterministic_gate_judges_only_steady_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = write_run(tmp_path / "base.json")
    document = json.loads(base.read_text())
    for entry in document["benchmarks"]:  # CPU doubled: noisy, never judged by the gate
        if "cpu_us_per_page" in entry["extra_info"]["samples"]:
            entry["extra_info"]["samples"]["cpu_us_per_page"] = [1400.0, 1420.0, 1380.0]
    noisy = tmp_path / "noisy.json"
    noisy.write_text(json.dumps(document))
    assert main([str(base), str(noisy), "--deterministic"]) == 0
    out = capsys.readouterr().out
    assert "cpu_us_per_page" not in out
    # A model whose instruction count is missing (valgrind absent, a crash) fails the gate.
    document["benchmarks"] = [
        e for e in document["benchmarks"] if e["name"] != "test_instructions[asyncio]"
    ]
    noisy.write_text(json.dumps(document))
    assert main([str(base), str(noisy), "--deterministic"]) == 1
    assert (
        "MISSING: gated figures not in NEW: asyncio instructions_per_page"
        in capsys.readouterr().out
    )


def test_update_moves_the_baseline_and_prints_the_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baselines = tmp_path / "baselines"  # not there yet: the first baseline creates it
    new = write_run(tmp_path / "new.json")
    assert main([str(baselines), str(new), "--update"]) == 0
    written = baselines / file_slug(ENVIRONMENT)
    assert written.read_bytes() == new.read_bytes()
    assert "no baseline for this environment" in capsys.readouterr().out
    faster = write_run(tmp_path / "faster.json", slower=0.8)
    assert main([str(baselines), str(faster), "--update"]) == 0
    out = capsys.readouterr().out
    assert "threads: instructions per page -20.0%" in out and f"baseline written: {written}" in out
    assert written.read_bytes() == faster.read_bytes()
    assert main([str(baselines), str(faster)]) == 0


def test_environment_record() -> None:
    here = current_environment()
    assert here["python"].split()[0] in {"CPython", "PyPy"}
    assert set(here["packages"]) >= {"aiohttp", "uvloop", "httptools", "selectolax"}
    assert file_slug(ENVIRONMENT) == "cpython-3.11.7-linux-x86_64.json"
    assert file_slug({**ENVIRONMENT, "free_threaded": True}) == "cpython-3.11.7t-linux-x86_64.json"
    assert differences(ENVIRONMENT, ENVIRONMENT) == []
