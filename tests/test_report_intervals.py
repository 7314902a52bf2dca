"""Intervals where medians are shown: chart error bars, table cells, the bench summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest
from matplotlib.container import ErrorbarContainer

from bench import results
from bench.analysis import derive as analysis
from bench.harness.summary import summary_table
from bench.report import cli
from bench.report.charts_crawl import chart_few_active
from bench.report.verdicts import verdicts
from bench.results import SCHEMA, SCHEMA_V2, FewActiveHighlights, Results, highlights
from c10k import catalog
from c10k.quantity import Quantity
from c10k.words import cell
from tests.recorded import derive, quantity, runs_of
from tests.test_harness_intervals import few_active_runs

FEW_ACTIVE, ASYNCIO = catalog.FEW_ACTIVE.name, catalog.ASYNCIO.name


def document_of(runs: list[dict[str, Any]]) -> Results:
    found = {
        "schema": SCHEMA,
        "status": "complete",
        "profile": {"name": "default"},
        "runs": runs_of(runs),
        "derived": derive(runs, {}),
    }
    return cast(Results, found)


def error_bars(document: Results) -> int:
    chart = chart_few_active(document)
    return sum(isinstance(c, ErrorbarContainer) for ax in chart.figure.axes for c in ax.containers)


def test_repeated_points_get_error_bars_and_say_what_they_are() -> None:
    document = document_of(few_active_runs([1000.0, 1100.0, 900.0], [800.0, 880.0, 720.0]))
    assert error_bars(document) == 4  # two models, pages/s and CPU per page
    caption = chart_few_active(document).interpretation
    assert "Bars: the 95% interval over the repetitions" in caption


def test_points_of_one_run_have_no_bar() -> None:
    document = document_of(few_active_runs([1000.0], [800.0]))
    assert error_bars(document) == 0
    assert "No bars" in chart_few_active(document).interpretation


@pytest.mark.parametrize(
    ("summary", "digits", "scale", "expected"),
    [
        (quantity(734.2, [701.4, 760.0]), 0, 1.0, "734 [701, 760]"),
        (quantity(0.0123, [0.011, 0.0131], "s"), 1, 1000.0, "12.3 [11.0, 13.1]"),
        (quantity(734.2, None, n=1), 0, 1.0, "734"),
        (quantity(None, None, n=0), 0, 1.0, "-"),
        (None, 0, 1.0, "-"),
    ],
)
def test_a_table_cell_shows_the_median_and_its_interval(
    summary: Quantity | None, digits: int, scale: float, expected: str
) -> None:
    assert cell(summary, digits, scale) == expected


def test_the_bench_summary_shows_intervals_and_flags_a_cv_over_five_percent() -> None:
    # threads: CV 10%, flagged; asyncio: CV 1%, not flagged.
    document = document_of(few_active_runs([1000.0, 1100.0, 900.0], [800.0, 808.0, 792.0]))
    lines = summary_table(document).splitlines()
    assert "coefficient of variation above 5%" in lines[0]
    threads = next(line for line in lines if line.strip().startswith("threads"))
    asyncio = next(line for line in lines if line.strip().startswith("asyncio"))
    assert "~1,000 [752, 1,248]" in threads
    assert " 800 [780, 820]" in asyncio


def test_a_file_of_an_older_schema_asks_for_derive_then_renders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A /2 file is read through the migration, which drops its derived section: the report
    says in one line how to derive it again, and draws it once derived."""
    path = tmp_path / "results.json"
    profile = {"name": "quick", "definition": {"scenarios": []}}
    old = {"schema": SCHEMA_V2, "status": "complete", "profile": profile, "environment": {}}
    path.write_text(json.dumps(old | {"runs": [], "derived": {"few-active": {}}}))
    assert cli.main([str(path), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and f"run python -m bench.analysis.derive {path}" in error
    assert analysis.main([str(path)]) == 0
    assert json.loads(path.read_text())["schema"] == SCHEMA
    found = verdicts(results.load(path))
    assert found["C6"].verdict == "not measured"


def test_a_file_derived_by_an_older_derive_asks_for_derive_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A /3 file whose derived section an older derive wrote (without `not_run`): one line
    saying how to derive it again, not a traceback."""
    path = tmp_path / "results.json"
    document = document_of(few_active_runs([1000.0, 1100.0], [500.0, 505.0]))
    del document["derived"]["not_run"]
    results.write_atomic(path, document)
    assert cli.main([str(path), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and f"run python -m bench.analysis.derive {path}" in error


def test_rankings_carry_each_models_interval_into_the_captions() -> None:
    document = document_of(few_active_runs([1000.0, 1100.0, 900.0], [500.0, 505.0, 495.0]))
    highlighted = highlights(document["derived"], FEW_ACTIVE, FewActiveHighlights)
    assert highlighted is not None and highlighted["pages_per_s"] is not None
    found = highlighted["pages_per_s"]
    assert found["best"] == "threads" and found["worst"] == ASYNCIO
    interval = found["values"]["threads"].interval
    assert interval is not None
    assert interval.as_list() == pytest.approx([1000 - 248.4, 1000 + 248.4], abs=0.1)
    caption = chart_few_active(document).interpretation
    assert "highest: threads 1,000 [752, 1,248] pages/s; lowest: asyncio 500 [488, 512]" in caption
    assert "(2.00x apart)" in caption


def test_rankings_whose_intervals_overlap_are_tied_not_ranked() -> None:
    # threads [752, 1,248] holds asyncio's [780, 820]: neither is highest or lowest.
    document = document_of(few_active_runs([1000.0, 1100.0, 900.0], [800.0, 808.0, 792.0]))
    caption = chart_few_active(document).interpretation
    assert "all 2 tied within noise (medians 800 to 1,000 pages/s)" in caption
    assert "highest" not in caption and "lowest" not in caption
