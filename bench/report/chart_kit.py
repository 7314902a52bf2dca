"""The drawing kit every chart shares: figure settings, model lines, markers, legends, axes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import matplotlib

matplotlib.use("Agg")  # no display: files only, before pyplot is imported

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from bench.report import captions
from bench.report.palette import model_order, short_label, style

WIDTH, HEIGHT = 10.0, 5.2
FIXED_RC: dict[Any, Any] = {  # rcParams for every chart
    "font.size": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "svg.hashsalt": "c10k-bench",  # stable SVG ids: a redraw of the same data is the same file
    "hatch.linewidth": 0.8,
}


@dataclass(frozen=True)
class Chart:
    """A drawn chart: its file stem, figure and the numbers it shows in words; its title and
    the one sentence that says what to look at come with its name."""

    name: str
    figure: Figure
    interpretation: str

    @property
    def title(self) -> str:
        return captions.TITLES[self.name]

    @property
    def look(self) -> str:
        return captions.LOOK[self.name]


def new_figure(
    name: str, rows: int = 1, cols: int = 1, height: float = HEIGHT, **grid: Any
) -> tuple[Figure, list[Axes]]:
    """A figure of rows x cols axes under the chart's title, from its name (grid:
    plt.subplots' keywords, such as sharey or width_ratios)."""
    figure, axes = plt.subplots(
        rows, cols, figsize=(WIDTH, height), squeeze=False, layout="constrained", **grid
    )
    figure.suptitle(captions.TITLES[name])
    return figure, [ax for row in axes for ax in row]


ROW_INCHES = 0.42  # a chart with a row per model grows by this much per model


def rows_height(rows: int, extra: float = 1.6) -> float:
    """The height of a chart with one row per model (or kind), whatever their number."""
    return extra + ROW_INCHES * max(rows, 1)


def no_data(ax: Axes, reason: str) -> None:
    ax.set_axis_off()
    ax.text(
        0.5,
        0.5,
        f"no data\n{reason}",
        ha="center",
        va="center",
        transform=ax.transAxes,
        fontsize=12,
        color="#444444",
        wrap=True,
    )


def not_run(
    name: str, scenario: str, cols: int = 1, why: str = "did not run", **grid: Any
) -> Chart:
    """The chart of a scenario that did not run (or has no run that counted): 'no data' in
    its cols axes (grid: new_figure's keywords), and a caption that says so."""
    figure, axes = new_figure(name, 1, cols, **grid)
    no_data(axes[0], f"the {scenario} scenario {why}")
    for ax in axes[1:]:
        no_data(ax, "")
    return Chart(name, figure, captions.not_run(scenario, why))


def open_marker(marker: str, size: float, colour: str, width: float) -> dict[str, Any]:
    """A white-filled marker without a line, edged in colour (Line2D's keywords)."""
    return {
        "linestyle": "none",
        "marker": marker,
        "markersize": size,
        "markerfacecolor": "white",
        "markeredgecolor": colour,
        "markeredgewidth": width,
    }


def hollow(ax: Axes, model: str, xs: list[float], ys: list[float]) -> None:
    """Points that count but are qualified (server-bound): white-filled markers on top."""
    s = style(model)
    ax.plot(xs, ys, **open_marker(s.marker, 7, s.colour, 1.6))


def cross_marker(colour: str) -> dict[str, Any]:
    """The big X of a run that did not count, as every chart draws it."""
    return open_marker("X", 11, colour, 2.0)


def crossed(ax: Axes, model: str, xs: list[float], ys: list[float | None]) -> None:
    """Runs that did not count: a big X at their value, or on the x axis when they have none."""
    cross = cross_marker(style(model).colour)
    known = [(x, y) for x, y in zip(xs, ys, strict=True) if y is not None and y > 0]
    unknown = [x for x, y in zip(xs, ys, strict=True) if y is None or y <= 0]
    if known:
        ax.plot([x for x, _ in known], [y for _, y in known], **cross)
    if unknown:
        # On the x axis itself: y in axes units, so a log scale cannot hide it.
        ax.plot(
            unknown,
            [0.03] * len(unknown),
            transform=ax.get_xaxis_transform(),
            clip_on=False,
            **cross,
        )


def marker_keys(not_counted: bool, saturated: bool, bars: bool = False) -> list[Line2D]:
    """The legend entries of the marks a chart drew, the same on every chart: its bars, the
    runs that did not count (crossed), the server-bound points (hollow)."""
    keys = [key("bar: 95% interval", color="#333333", marker="|", markersize=10, linestyle="none")]
    keys += [
        key("run that did not count", **open_marker("X", 10, "#333333", 2.0)),
        key("server CPU-bound", **open_marker("o", 8, "#333333", 1.6)),
    ]
    return [k for k, shown in zip(keys, (bars, not_counted, saturated), strict=True) if shown]


def key(label: str, **drawn: Any) -> Line2D:
    """A legend entry drawn as drawn says (Line2D's keywords)."""
    return Line2D([], [], label=label, **drawn)


LEGEND_COLUMNS = 5  # at most; fewer when the legend would be wider than the figure


def fitted_legend(figure: Figure, handles: list[Any]) -> None:
    """The legend under the axes in as many columns as fit the figure's width (never cut)."""
    labels = [str(h.get_label()) for h in handles]
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    for columns in range(min(LEGEND_COLUMNS, len(handles)), 0, -1):
        found = figure.legend(
            handles, labels, loc="outside lower center", ncol=columns, frameon=False, fontsize=9
        )
        if columns == 1 or found.get_window_extent(renderer).width <= figure.bbox.width * 0.97:
            return
        found.remove()


def legend(figure: Figure, axes: list[Axes], extra: list[Line2D] | None = None) -> None:
    """One legend per figure: every model drawn (marker and line as in the palette), then the
    ideal C/L and extra."""
    handles: dict[str, Any] = {}
    for ax in axes:
        for handle, name in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(name, handle)
    models = model_order([h for h in handles if not h.startswith("ideal")])
    keys = [key(short_label(m), **style(m).line) for m in models]
    keys += [handles[h] for h in handles if h.startswith("ideal")] + (extra or [])
    if keys:
        fitted_legend(figure, keys)


def log_if_wide(ax: Axes, values: list[float]) -> None:
    """A log x axis when the positive points span 20x or more; ticks at the measured values."""
    positive = [v for v in values if v > 0]
    if positive and max(positive) / min(positive) >= 20:
        ax.set_xscale("log")
    ticks_at(ax, sorted(set(values)))


def ticks_at(ax: Axes, values: list[float]) -> None:
    if not values:
        return
    shown = values if len(values) <= 9 else values[:: max(1, len(values) // 8)]
    ax.set_xticks(shown, [f"{v:,.0f}" if v >= 1 or v == 0 else f"{v:g}" for v in shown])
    ax.xaxis.set_minor_formatter(NullFormatter())


THOUSANDS = FuncFormatter(lambda value, _pos: f"{value:,.0f}")
# A value on a log axis: thousands separated, or as few digits as it needs below 1.
LOG_VALUE = FuncFormatter(lambda value, _pos: f"{value:,.0f}" if value >= 1 else f"{value:g}")
WIDE_Y = 10.0  # values that span this factor get a log y axis


def y_scale(ax: Axes, values: list[float]) -> bool:
    """A log y axis when the values drawn span WIDE_Y times or more (a peer 10x away from the
    models, latencies from milliseconds to seconds), ticks at 1, 2 and 5 of each power of
    ten; else a linear one from 0. Whether the axis is a log one."""
    positive = [v for v in values if v > 0]
    if not positive or max(positive) / min(positive) < WIDE_Y:
        ax.set_ylim(bottom=0)
        if positive and max(positive) >= 1000:
            ax.yaxis.set_major_formatter(THOUSANDS)
        return False
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(LOG_VALUE)
    ax.yaxis.set_minor_formatter(NullFormatter())
    return True
