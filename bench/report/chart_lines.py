"""Lines through medians: one per model, each point's 95% interval as a bar, qualified and
failed runs marked, and the ideal C/L beside them."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.transforms import offset_copy

from bench.report.chart_kit import crossed, model_line
from bench.report.palette import model_order, style
from bench.results import NotCounted, Point, Results, crossed_runs, peer_points, scenario_points
from c10k import catalog
from c10k.durations import Latency
from c10k.quantity import Interval, Quantity

LATENCY_SWEEP = catalog.LATENCY_SWEEP.name
BAR_DODGE_POINTS = 2.5  # how far apart the models' error bars at one x are drawn


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


class Lines(NamedTuple):
    """What crawl_lines drew: every x and y, and whether any point was server-bound or had a
    bar."""

    xs: list[float]
    saturated: bool
    bars: bool
    ys: list[float]


def crawl_lines(
    ax: Axes,
    document: Results,
    scenario: str,
    summary: Callable[[Point], Quantity | None],
    x: Callable[[Point], float],
    problem_value: Callable[[NotCounted], float | None] | None,
    scale: float = 1.0,
    latency: Latency | None = None,
) -> Lines:
    """One line per model through the medians of summary(point) times scale, with their 95%
    intervals as bars; hollow server-bound points; crossed runs that did not count. latency:
    only the
    points (and runs) at that server latency, so that no line joins two latencies."""

    def at_latency(found: Latency | None) -> bool:
        return latency is None or found == latency

    def value(point: Point) -> float | None:
        found = summary(point)
        return None if found is None else found.value

    xs_all: list[float] = []
    ys_all: list[float] = []
    saturated_any = bars = False
    # The models, then each peer as a reference line (its own marker and label).
    derived = document["derived"]
    lines = scenario_points(derived, scenario) | peer_points(derived, scenario)
    for model in model_order(list(lines)):
        entries = [p for p in lines[model] if value(p) is not None and at_latency(p["latency"])]
        xs = [x(p) for p in entries]
        ys = [float(value(p) or 0.0) * scale for p in entries]
        xs_all += xs
        ys_all += ys
        if xs:
            model_line(ax, model, xs, ys)
            intervals = [found.interval if (found := summary(p)) else None for p in entries]
            scaled = [None if i is None else i.scaled(scale) for i in intervals]
            bars = error_bars(ax, model, xs, ys, scaled) or bars
        saturated = [
            (a, b) for a, b, p in zip(xs, ys, entries, strict=True) if p["server_saturated_runs"]
        ]
        if saturated:
            saturated_any = True
            hollow(ax, model, [a for a, _ in saturated], [b for _, b in saturated])
    if problem_value is not None:
        for p in crossed_runs(derived, scenario):
            if p.concurrency is None or not at_latency(p.latency):
                continue
            sweep = scenario == LATENCY_SWEEP and p.latency is not None
            px = p.latency.mean_s * 1000.0 if sweep and p.latency else float(p.concurrency)
            crossed(ax, p.model, [px], [problem_value(p)])
            xs_all.append(px)
    return Lines(xs_all, saturated_any, bars, ys_all)


def plot_ideal(
    ax: Axes, table: dict[str, list[Point]], x_of: Callable[[Point], float]
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
