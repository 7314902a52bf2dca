"""Every chart of the report, drawn with the same settings and saved as PNG and SVG."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bench.report.chart_files import drawing, save_figure
from bench.report.chart_kit import Chart
from bench.report.charts_crawl import (
    chart_few_active,
    chart_few_active_keep_alive,
    chart_instructions,
    chart_latency,
    chart_latency_sweep,
    chart_sleepy_keep_alive_throughput,
    chart_sleepy_throughput,
)
from bench.report.charts_glance import chart_headline, chart_verdicts
from bench.report.charts_memory import (
    chart_idle_units,
    chart_memory_per_connection,
    chart_plateau_rss,
)
from bench.report.verdicts import Ruling
from bench.results import Results

# The charts of one results document, in the page's order, after the two read at a glance
# (the headline, and the verdicts against their bands).
CHARTS: tuple[Callable[[Results], Chart], ...] = (
    chart_memory_per_connection,
    chart_plateau_rss,
    chart_idle_units,
    chart_sleepy_keep_alive_throughput,
    chart_sleepy_throughput,
    chart_few_active,
    chart_few_active_keep_alive,
    chart_latency,
    chart_latency_sweep,
    chart_instructions,
)
GLANCE = 2  # the headline and the verdict chart
CHART_COUNT = GLANCE + len(CHARTS)


def draw_all(document: Results, found: list[Ruling]) -> list[Chart]:
    """Every chart, drawn with the same settings: the two at a glance, then CHARTS."""
    with drawing():
        return [chart_headline(document), chart_verdicts(found)] + [d(document) for d in CHARTS]


def save(chart: Chart, directory: Path) -> tuple[Path, Path]:
    """Write CHART as PNG and SVG into directory; return both paths."""
    png = directory / f"{chart.name}.png"
    svg = directory / f"{chart.name}.svg"
    save_figure(chart.figure, png, svg)
    return png, svg
