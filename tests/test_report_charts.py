"""The charts tell the truth at a glance: legends inside the figure, like compared with like,
fits drawn as the lines they are, no lengths read off a log axis, a log axis where values
span 10x."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, cast

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from bench import results
from bench.report.chart_kit import Chart, y_scale
from bench.report.charts import CHARTS, drawing
from bench.report.charts_glance import chart_headline
from bench.report.charts_memory import (
    FIT_SAMPLES,
    chart_idle_units,
    chart_memory_per_connection,
    chart_plateau_rss,
)
from bench.results import Results, memory_fits
from c10k import catalog
from c10k.catalog import MODELS
from c10k.quantity import Fit
from c10k.words import KIB

DATA = Path(__file__).parent / "data"


# A keep-alive chart is its scenario's function with the scenario given (functools.partial).
CHART_IDS = [getattr(c, "func", c).__name__ for c in CHARTS]


@pytest.fixture(scope="module")
def document() -> Results:
    return results.load(DATA / "report-failures.json")


@pytest.mark.parametrize("draw", CHARTS, ids=CHART_IDS)
def test_every_legend_lies_inside_its_figure(document: Results, draw: object) -> None:
    with drawing():
        chart: Chart = draw(document)  # type: ignore[operator]
        figure = chart.figure
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
        width, height = figure.bbox.width, figure.bbox.height
        for legend in figure.legends:
            box = legend.get_window_extent(renderer)
            assert box.x0 >= -1 and box.x1 <= width + 1 and box.y0 >= -1 and box.y1 <= height + 1
        plt.close(figure)


def test_memory_compares_held_with_peak_of_one_definition(document: Results) -> None:
    with drawing():
        chart = chart_memory_per_connection(document)
    left, right = chart.figure.axes[:2]
    memory = memory_fits(document["derived"], catalog.SLEEPY.name)
    fitted = [m for m in memory.values() if m and m.rss_bytes.slope.value is not None]
    bars = sorted(round(p.get_width(), 6) for p in left.patches if isinstance(p, Rectangle))
    held = [m.rss_bytes.slope.value for m in fitted]
    peak = [m.peak_rss_bytes.slope.value for m in fitted]
    expected = [max(0.0, v) / KIB for v in held + peak if v is not None]
    # Left: RSS slopes only, held and peak; no kernel part beside a figure that has none.
    assert bars == sorted(round(v, 6) for v in expected)
    # No per-idle-unit line (the chapter's 50 or 3 KiB per thread or coroutine) on either side.
    for ax in (left, right):
        flat = [ln for ln in ax.lines if len(set(np.asarray(ln.get_ydata()).tolist())) == 1]
        assert not [ln for ln in flat if np.asarray(ln.get_xdata()).size == 2], "a reference line"
    plt.close(chart.figure)


def test_each_fit_is_drawn_through_many_points_on_its_line(document: Results) -> None:
    with drawing():
        chart = chart_plateau_rss(document)
    (ax,) = chart.figure.axes
    memory = {
        k: m
        for k, m in memory_fits(document["derived"], catalog.SLEEPY.name).items()
        if m and m.rss_bytes.slope.value
    }
    fits = [ln for ln in ax.lines if np.asarray(ln.get_xdata()).size == FIT_SAMPLES]
    assert len(fits) == len(memory)
    for line in fits:
        xs, ys = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
        m = next(
            m
            for m in memory.values()
            if m.concurrencies
            and min(m.concurrencies) == pytest.approx(xs[0])
            and np.allclose(ys, _line(m.rss_bytes, xs) / KIB / KIB)
        )
        assert xs[-1] == pytest.approx(max(m.concurrencies))
    plt.close(chart.figure)


def _line(fit: Fit, xs: Any) -> Any:
    return (fit.intercept or 0) + (fit.slope.value or 0) * xs


def test_idle_units_are_dots_on_the_log_axis_not_stacked_bars(document: Results) -> None:
    with drawing():
        chart = chart_idle_units(document)
    left = chart.figure.axes[0]
    assert left.get_xscale() == "log"
    assert not [p for p in left.patches if isinstance(p, Rectangle) and p.get_width() > 0]
    assert [ln for ln in left.lines if isinstance(ln, Line2D) and ln.get_marker() == "o"]
    plt.close(chart.figure)


@pytest.mark.parametrize(
    ("values", "log"),
    [
        ([1000.0, 3800.0, 170.0], True),  # a peer 10x below the models
        ([250.0, 820.0, 6200.0], True),  # a peer 10x above them
        ([0.3, 8000.0], True),  # latencies from milliseconds to seconds
        ([1000.0, 3800.0], False),  # the models alone
        ([], False),
    ],
)
def test_a_y_axis_is_logarithmic_where_its_values_span_ten_times(
    values: list[float], log: bool
) -> None:
    figure, ax = plt.subplots()
    assert y_scale(ax, values) is log
    assert ax.get_yscale() == ("log" if log else "linear")
    if not log:
        assert ax.get_ylim()[0] == 0
    plt.close(figure)


def every_model(document: Results) -> Results:
    """The recorded document with every model of the catalog in each crawl scenario and in the
    sleepy fits: the models it lacks copy asyncio's tables (the charts' layout is the test)."""
    found = copy.deepcopy(document)
    derived = cast(dict[str, Any], found["derived"])
    for scenario in catalog.SAMPLED_CRAWL_SCENARIOS:
        table = derived.get(scenario) or {}
        if "asyncio" in table:
            for model in MODELS:
                table.setdefault(model, copy.deepcopy(table["asyncio"]))
    for found_highlights in (derived.get("highlights") or {}).values():
        for ranking in found_highlights.values() if isinstance(found_highlights, dict) else []:
            if isinstance(ranking, dict) and "values" in ranking and "asyncio" in ranking["values"]:
                for model in MODELS:
                    ranking["values"].setdefault(model, ranking["values"]["asyncio"])
    return found


@pytest.mark.parametrize("draw", CHARTS, ids=CHART_IDS)
def test_every_model_of_the_catalog_fits_every_chart(document: Results, draw: object) -> None:
    with drawing():
        chart: Chart = draw(every_model(document))  # type: ignore[operator]
        figure = chart.figure
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
        for legend in figure.legends:
            box = legend.get_window_extent(renderer)
            assert box.x0 >= -1 and box.x1 <= figure.bbox.width + 1
        plt.close(figure)


def test_the_headline_has_a_row_per_model_of_the_catalog(document: Results) -> None:
    with drawing():
        chart = chart_headline(every_model(document))
    (ax,) = chart.figure.axes
    assert [t.get_text() for t in ax.get_yticklabels()] == list(MODELS)
    plt.close(chart.figure)
