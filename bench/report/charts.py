"""Every chart of the report, drawn with the same settings and saved as SVG and as a small PNG."""

from __future__ import annotations

import io
from collections.abc import Callable
from contextlib import AbstractContextManager
from functools import partial
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
from PIL import Image

from bench.report import charts_crawl as crawl
from bench.report import charts_memory as memory
from bench.report.chart_kit import FIXED_RC, Chart
from bench.report.charts_glance import chart_headline, chart_verdicts
from bench.report.verdicts import Ruling
from bench.results import Results
from c10k import catalog

DPI = 110
# Charts are flat colours and anti-aliased text: a palette keeps them sharp at about a quarter
# of the bytes, which keeps index.html (every chart inline) small.
PALETTE_COLOURS = 128


def drawing() -> AbstractContextManager[Any]:
    """The settings every chart is drawn and saved with."""
    return plt.rc_context(FIXED_RC)


def small_png(data: bytes) -> bytes:
    """A PNG as a palette image of PALETTE_COLOURS, without dithering, optimised."""
    image = Image.open(io.BytesIO(data)).convert("RGB")
    quantised = image.quantize(
        colors=PALETTE_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
    )
    out = io.BytesIO()
    quantised.save(out, "PNG", optimize=True)
    return out.getvalue()


def save(chart: Chart, directory: Path) -> tuple[Path, Path]:
    """Write CHART into directory as PNG and SVG without dates or versions (a redraw is the
    same file); return both paths."""
    png, svg = directory / f"{chart.name}.png", directory / f"{chart.name}.svg"
    with drawing():
        drawn = io.BytesIO()
        chart.figure.savefig(drawn, format="png", dpi=DPI, metadata={"Software": None})
        png.write_bytes(small_png(drawn.getvalue()))
        chart.figure.savefig(svg, metadata={"Date": None, "Creator": None})
    plt.close(chart.figure)
    return png, svg


# The charts of one results document, in the page's order, after the two read at a glance
# (the headline, and the verdicts against their bands).
CHARTS: tuple[Callable[[Results], Chart], ...] = (
    memory.chart_memory_per_connection,
    memory.chart_plateau_rss,
    memory.chart_idle_units,
    partial(crawl.chart_sleepy_throughput, scenario=catalog.SLEEPY_KEEP_ALIVE.name),
    crawl.chart_sleepy_throughput,
    crawl.chart_few_active,
    partial(crawl.chart_few_active, scenario=catalog.FEW_ACTIVE_KEEP_ALIVE.name),
    crawl.chart_latency,
    crawl.chart_latency_sweep,
    crawl.chart_instructions,
)
GLANCE = 2  # the headline and the verdict chart
CHART_COUNT = GLANCE + len(CHARTS)


def draw_all(document: Results, found: list[Ruling]) -> list[Chart]:
    """Every chart, drawn with the same settings: the two at a glance, then CHARTS."""
    with drawing():
        return [chart_headline(document), chart_verdicts(found)] + [d(document) for d in CHARTS]
