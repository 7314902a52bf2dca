"""Intervals where medians are shown: chart error bars, table cells, the bench summary."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest
from matplotlib.container import ErrorbarContainer

from bench import results
from bench.harness.summary import summary_table
from bench.report.charts_crawl import chart_few_active
from bench.report.figures import few_active_highlights
from bench.report.text import cell
from bench.report.verdicts import verdicts
from bench.results import SCHEMA, FigureSummary, Results
from c10k import catalog
from tests.recorded import derive
from tests.test_harness_intervals import few_active_runs

DATA = Path(__file__).parent / "data"
FEW_ACTIVE, ASYNCIO = catalog.FEW_ACTIVE.name, catalog.ASYNCIO.name


def document_of(runs: list[dict[str, Any]]) -> Results:
    found = {
        "schema": SCHEMA,
        "status": "complete",
        "profile": {"name": "default"},
        "runs": runs,
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
        ({"n": 3, "median": 734.2, "ci95": [701.4, 760.0]}, 0, 1.0, "734 [701, 760]"),
        ({"n": 3, "median": 0.0123, "ci95": [0.011, 0.0131]}, 1, 1000.0, "12.3 [11.0, 13.1]"),
        ({"n": 1, "median": 734.2, "ci95": None}, 0, 1.0, "734"),
        ({"n": 3, "median": 734.2}, 0, 1.0, "734"),  # written before intervals
        (None, 0, 1.0, "-"),
    ],
)
def test_a_table_cell_shows_the_median_and_its_interval(
    summary: dict[str, Any] | None, digits: int, scale: float, expected: str
) -> None:
    assert cell(cast(FigureSummary | None, summary), digits, scale) == expected


def test_the_bench_summary_shows_intervals_and_flags_a_cv_over_five_percent() -> None:
    # threads: CV 10%, flagged; asyncio: CV 1%, not flagged.
    document = document_of(few_active_runs([1000.0, 1100.0, 900.0], [800.0, 808.0, 792.0]))
    lines = summary_table(document).splitlines()
    assert "coefficient of variation above 5%" in lines[0]
    threads = next(line for line in lines if line.strip().startswith("threads"))
    asyncio = next(line for line in lines if line.strip().startswith("asyncio"))
    assert "~1,000 [752,1,248]" in threads
    assert " 800 [780,820]" in asyncio


def test_an_older_results_file_renders_and_says_how_to_get_intervals() -> None:
    document = results.load(DATA / "report-failures.json")
    found = verdicts(document)
    assert "python -m bench.analysis.derive adds them" in found["C6"].measured
    # The same runs, derived again: the intervals are there.
    document["derived"] = derive(document["runs"], {"sleepy": 0}, document.get("environment"))
    again = verdicts(document)
    assert "before intervals" not in again["C6"].measured
    assert "(1 run per point, no interval)" in again["C6"].measured  # quick: one run each


def test_rankings_carry_each_models_interval_into_the_captions() -> None:
    document = document_of(few_active_runs([1000.0, 1100.0, 900.0], [500.0, 505.0, 495.0]))
    highlighted = few_active_highlights(document, FEW_ACTIVE)
    assert highlighted is not None and highlighted["pages_per_s"] is not None
    found = highlighted["pages_per_s"]
    assert found["best"] == "threads" and found["worst"] == ASYNCIO
    assert found["intervals"]["threads"] == pytest.approx([1000 - 248.4, 1000 + 248.4], abs=0.1)
    caption = chart_few_active(document).interpretation
    assert "highest: threads 1,000 [752, 1,248] pages/s; lowest: asyncio 500 [488, 512]" in caption
    assert "(2.00x apart)" in caption


def test_rankings_whose_intervals_overlap_are_tied_not_ranked() -> None:
    # threads [752, 1,248] holds asyncio's [780, 820]: neither is highest or lowest.
    document = document_of(few_active_runs([1000.0, 1100.0, 900.0], [800.0, 808.0, 792.0]))
    caption = chart_few_active(document).interpretation
    assert "all 2 tied within noise (medians 800 to 1,000 pages/s)" in caption
    assert "highest" not in caption and "lowest" not in caption
