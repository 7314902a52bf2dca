"""The drawing kit every chart shares: figure settings, model lines, markers, legends, axes."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import matplotlib

matplotlib.use("Agg")  # no display: files only, before pyplot is imported

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, NullFormatter
from matplotlib.transforms import offset_copy

from bench.report import captions
from bench.report.figures import Problem, peer_points, points, problems
from bench.report.palette import label, model_order, style
from c10k import catalog
from c10k.stats import Interval, recorded_interval, recorded_median

LATENCY_SWEEP = catalog.LATENCY_SWEEP.name

WIDTH, HEIGHT = 10.0, 5.2
BAR_DODGE_POINTS = 2.5  # how far apart the models' error bars at one x are drawn
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
    """A drawn chart: its file stem, title, figure, and what it shows in words."""

    name: str
    title: str
    figure: Figure
    interpretation: str


def new_figure(
    name: str, rows: int = 1, cols: int = 1, height: float = HEIGHT
) -> tuple[str, Figure, list[Axes]]:
    """The chart's title (from its name) and a figure of rows x cols axes under it."""
    title = captions.TITLES[name]
    figure, axes = plt.subplots(
        rows, cols, figsize=(WIDTH, height), squeeze=False, layout="constrained"
    )
    figure.suptitle(title)
    return title, figure, [ax for row in axes for ax in row]


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


def model_line(ax: Axes, model: str, xs: list[float], ys: list[float], **extra: Any) -> None:
    s = style(model)
    ax.plot(
        xs,
        ys,
        color=s.colour,
        marker=s.marker,
        linestyle=s.linestyle,
        markersize=7,
        linewidth=1.6,
        label=model,
        **extra,
    )


def error_bars(
    ax: Axes, model: str, xs: list[float], ys: list[float], intervals: list[Interval | None]
) -> bool:
    """The 95% interval of each point as a bar in the model's colour (none for a point of
    one run); whether any bar was drawn. A median outside its interval gets no bar on that
    side rather than a bar pointing the wrong way. Each model's bars sit a few points to the
    side of its markers, in the catalog's order, so that the models' bars at one x do not
    hide each other."""
    drawn = [(x, y, i) for x, y, i in zip(xs, ys, intervals, strict=True) if i is not None]
    if not drawn:
        return False
    order = list(catalog.MODELS)
    slot = order.index(model) - (len(order) - 1) / 2 if model in order else 0.0
    figure = ax.figure  # the charts' axes sit on a Figure, never a SubFigure
    shifted = offset_copy(
        ax.transData,
        fig=figure if isinstance(figure, Figure) else None,
        x=slot * BAR_DODGE_POINTS,
        units="points",
    )
    ax.errorbar(
        [x for x, _, _ in drawn],
        [y for _, y, _ in drawn],
        yerr=[
            [max(0.0, y - i.low) for _, y, i in drawn],
            [max(0.0, i.high - y) for _, y, i in drawn],
        ],
        fmt="none",
        ecolor=style(model).colour,
        elinewidth=1.0,
        capsize=2,
        alpha=0.8,
        transform=shifted,
    )
    # Bars drawn with a shifted transform do not count for autoscaling: their ends are added
    # by hand, so no bar is cut off (a bound at or below 0 would break a log axis: left out).
    ends = [(x, end) for x, _, i in drawn for end in (i.low, i.high) if end > 0]
    ax.update_datalim(ends)
    ax.autoscale_view()
    return True


def hollow(ax: Axes, model: str, xs: list[float], ys: list[float]) -> None:
    """Points that count but are qualified (server-bound): white-filled markers on top."""
    s = style(model)
    ax.plot(
        xs,
        ys,
        linestyle="none",
        marker=s.marker,
        markersize=7,
        markerfacecolor="white",
        markeredgecolor=s.colour,
        markeredgewidth=1.6,
    )


def cross_marker(colour: str) -> dict[str, Any]:
    """The big X of a run that did not count, as every chart draws it."""
    return {
        "linestyle": "none",
        "marker": "X",
        "markersize": 11,
        "markerfacecolor": "white",
        "markeredgecolor": colour,
        "markeredgewidth": 2.0,
    }


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


def model_key(model: str) -> Line2D:
    s = style(model)
    return Line2D(
        [],
        [],
        color=s.colour,
        marker=s.marker,
        linestyle=s.linestyle,
        markersize=7,
        label=label(model),
    )


def legend(figure: Figure, axes: list[Axes], extra: list[Line2D] | None = None) -> None:
    """One legend per figure: every model drawn (marker and line as in the palette)."""
    handles: dict[str, Any] = {}
    for ax in axes:
        for handle, name in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(name, handle)
    labels = model_order([h for h in handles if not h.startswith("ideal")])
    ordered: list[Any] = [model_key(m) for m in labels]
    labels = [label(m) for m in labels]
    labels += [h for h in handles if h.startswith("ideal")]
    ordered += [handles[h] for h in handles if h.startswith("ideal")]
    for marker in extra or []:
        ordered.append(marker)
        labels.append(str(marker.get_label()))
    if ordered:
        figure.legend(
            ordered,
            labels,
            loc="outside lower center",
            ncol=min(5, len(ordered)),
            frameon=False,
            fontsize=9,
        )


def error_bar_key() -> Line2D:
    """The legend entry of the bars: what they are, on every chart that has them."""
    return Line2D(
        [],
        [],
        color="#333333",
        marker="|",
        markersize=10,
        linestyle="none",
        label="bar: 95% interval over repetitions",
    )


def marker_key(kind: str) -> Line2D:
    """The legend entry of a marker that means the same on every chart: "crossed" or not."""
    if kind == "crossed":
        marker, size, width, label = "X", 10, 2.0, "run that did not count (reason below)"
    else:
        marker, size, width, label = "o", 8, 1.6, "server CPU-bound (pages/s is the server's)"
    return Line2D(
        [],
        [],
        linestyle="none",
        marker=marker,
        markersize=size,
        markerfacecolor="white",
        markeredgecolor="#333333",
        markeredgewidth=width,
        label=label,
    )


def spans_wide(values: list[float]) -> bool:
    """Whether the positive values span 20x or more: wide enough for a log axis."""
    positive = sorted({v for v in values if v > 0})
    return bool(positive) and positive[-1] / positive[0] >= 20


def log_if_wide(ax: Axes, values: list[float]) -> None:
    """A log x axis when the points span 20x or more; ticks at the measured values."""
    if spans_wide(values):
        ax.set_xscale("log")
    ticks_at(ax, sorted(set(values)))


def ticks_at(ax: Axes, values: list[float]) -> None:
    if not values:
        return
    shown = values if len(values) <= 9 else values[:: max(1, len(values) // 8)]
    ax.set_xticks(shown, [f"{v:,.0f}" if v >= 1 or v == 0 else f"{v:g}" for v in shown])
    ax.xaxis.set_minor_formatter(NullFormatter())


THOUSANDS = FuncFormatter(lambda value, _pos: f"{value:,.0f}")


class Lines(NamedTuple):
    """What crawl_lines drew: every x, and whether any point was server-bound or had a bar."""

    xs: list[float]
    saturated: bool
    bars: bool


def crawl_lines(
    ax: Axes,
    document: dict[str, Any],
    scenario: str,
    summary: Callable[[dict[str, Any]], dict[str, Any] | None],
    x: Callable[[dict[str, Any]], float],
    problem_value: Callable[[Problem], float | None] | None,
    scale: float = 1.0,
) -> Lines:
    """One line per model through the medians of summary(point) times scale, with their 95%
    intervals as bars; hollow server-bound points; crossed runs that did not count."""
    xs_all: list[float] = []
    saturated_any = bars = False
    # The models, then each peer as a reference line (its own marker and label).
    lines = points(document, scenario) | peer_points(document, scenario)
    for model in model_order(list(lines)):
        entries = [p for p in lines[model] if recorded_median(summary(p)) is not None]
        xs = [x(p) for p in entries]
        ys = [float(recorded_median(summary(p)) or 0.0) * scale for p in entries]
        xs_all += xs
        if xs:
            model_line(ax, model, xs, ys)
            intervals = [recorded_interval(summary(p)) for p in entries]
            scaled = [None if i is None else i.scaled(scale) for i in intervals]
            bars = error_bars(ax, model, xs, ys, scaled) or bars
        saturated = [
            (a, b) for a, b, p in zip(xs, ys, entries, strict=True) if p["server_saturated_runs"]
        ]
        if saturated:
            saturated_any = True
            hollow(ax, model, [a for a, _ in saturated], [b for _, b in saturated])
    if problem_value is not None:
        for p in problems(document, scenario):
            if p.concurrency is None:
                continue
            px = float(p.concurrency) if scenario != LATENCY_SWEEP else p.mean_latency_s * 1000.0
            crossed(ax, p.model, [px], [problem_value(p)])
            xs_all.append(px)
    return Lines(xs_all, saturated_any, bars)


def marker_keys(found: list[Problem], saturated: bool, bars: bool = False) -> list[Line2D]:
    keys = []
    if bars:
        keys.append(error_bar_key())
    if found:
        keys.append(marker_key("crossed"))
    if saturated:
        keys.append(marker_key("hollow"))
    return keys


def plot_ideal(
    ax: Axes, table: dict[str, list[dict[str, Any]]], x_of: Callable[[dict[str, Any]], float]
) -> list[tuple[float, float]]:
    """Draw the ideal C/L of every point that has one, in one style on every chart."""
    ideal = sorted(
        {
            (x_of(p), float(p["ideal_pages_per_s"]))
            for entries in table.values()
            for p in entries
            if p.get("ideal_pages_per_s")
        }
    )
    if ideal:
        ax.plot(
            [x for x, _ in ideal],
            [y for _, y in ideal],
            color="black",
            linestyle="--",
            linewidth=1.2,
            marker="_",
            markersize=18,
            markeredgewidth=2,
            label="ideal C/L",
        )
    return ideal


def drawing() -> AbstractContextManager[Any]:
    """The settings every chart is drawn and saved with."""
    return plt.rc_context(FIXED_RC)


def save_figure(figure: Figure, png: Path, svg: Path) -> None:
    """Write a figure as PNG and SVG without dates or versions (a redraw is the same file)."""
    with drawing():
        figure.savefig(png, dpi=110, metadata={"Software": None})
        figure.savefig(svg, metadata={"Date": None, "Creator": None})
    plt.close(figure)
