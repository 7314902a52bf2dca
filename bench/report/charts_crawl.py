"""The crawl charts, each a list of panels of lines through medians; instructions per page."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from operator import attrgetter, itemgetter
from typing import NamedTuple

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.transforms import offset_copy

from bench import results
from bench.report import captions
from bench.report import chart_kit as kit
from bench.report.palette import model_order, style
from bench.results import Point, Results
from c10k import catalog, words
from c10k.durations import Latency
from c10k.quantity import Interval, Quantity

FEW_ACTIVE, SLEEPY = catalog.FEW_ACTIVE.name, catalog.SLEEPY.name
LATENCY_SWEEP = catalog.LATENCY_SWEEP.name
NO_COUNTED_RUN = "has no run that counted (see the runs that did not count)"
BAR_DODGE_POINTS = 2.5  # how far apart the models' error bars at one x are drawn


@dataclass(frozen=True)
class Panel:
    """One axes of a crawl chart: scale times figure(point) of a scenario's points, against
    concurrency or, in the latency sweep, the server's latency; the runs that did not count
    crossed at crossed_at(run) (not at all without it)."""

    scenario: str
    figure: Callable[[Point], Quantity | None]
    crossed_at: Callable[[results.NotCounted], float | None] | None
    title: str
    ylabel: str = ""
    scale: float = 1.0
    latency: Latency | None = None  # only the points (and runs) at this latency
    ideal: bool = False  # the ideal C/L drawn with the lines


def speed_and_cpu(scenario: str, cpu: str, ideal: bool = False) -> list[Panel]:
    """Pages/s on the left (with the ideal C/L, ideal), CPU per page (its axis labelled cpu)
    on the right."""
    return [
        Panel(scenario, itemgetter("pages_per_s"), attrgetter("pages_per_s"),
              "pages/s (higher is better)", "pages/s", ideal=ideal),
        Panel(scenario, itemgetter("cpu_us_per_page"), attrgetter("cpu_us_per_page"),
              "CPU per page (lower is better)", cpu),
    ]  # fmt: skip


class Lines(NamedTuple):
    """What a panel drew: every x and y, and whether any point was server-bound or had a bar."""

    xs: list[float]
    ys: list[float]
    saturated: bool
    bars: bool


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


def _x(point: Point, sweep: bool) -> float:
    """A point's x: its concurrency, or in the sweep its server latency in ms."""
    return point["latency"].mean_s * 1000.0 if sweep else float(point["concurrency"])


def crawl_lines(ax: Axes, document: Results, panel: Panel, sweep: bool) -> Lines:
    """One line per model (then each peer, as a reference line) through the panel's medians,
    with their 95% intervals as bars; hollow server-bound points; crossed runs that did not
    count. Only the points at the panel's latency, so that no line joins two latencies."""

    def at_latency(found: Latency | None) -> bool:
        return panel.latency is None or found == panel.latency

    xs_all: list[float] = []
    ys_all: list[float] = []
    saturated_any = bars = False
    derived = document["derived"]
    lines = results.scenario_points(derived, panel.scenario) | results.peer_points(
        derived, panel.scenario
    )
    for model in model_order(list(lines)):
        medians = [
            (p, q)
            for p in lines[model]
            if (q := panel.figure(p)) is not None
            and q.value is not None
            and at_latency(p["latency"])
        ]
        xs = [_x(p, sweep) for p, _ in medians]
        ys = [float(q.value or 0.0) * panel.scale for _, q in medians]
        xs_all += xs
        ys_all += ys
        if xs:
            ax.plot(xs, ys, linewidth=1.6, label=model, **style(model).line)
            intervals = [q.interval and q.interval.scaled(panel.scale) for _, q in medians]
            bars = error_bars(ax, model, xs, ys, intervals) or bars
        saturated = [
            (x, y)
            for x, y, (p, _) in zip(xs, ys, medians, strict=True)
            if p["server_saturated_runs"]
        ]
        if saturated:
            saturated_any = True
            kit.hollow(ax, model, [x for x, _ in saturated], [y for _, y in saturated])
    crossed_at = panel.crossed_at or (lambda _: None)
    for run in results.crossed_runs(derived, panel.scenario) if panel.crossed_at else []:
        if run.concurrency is None or not at_latency(run.latency):
            continue
        x = run.latency.mean_s * 1000.0 if sweep and run.latency else float(run.concurrency)
        kit.crossed(ax, run.model, [x], [crossed_at(run)])
        xs_all.append(x)
    return Lines(xs_all, ys_all, saturated_any, bars)


def plot_ideal(ax: Axes, document: Results, panel: Panel, sweep: bool) -> list[float]:
    """Draw the ideal C/L of every point of the panel that has one, in one style on every
    chart (under the lines in the sweep, over them elsewhere); its values."""
    ideal = sorted(
        {
            (_x(p, sweep), float(p["ideal_pages_per_s"]))
            for p in _at(document, panel)
            if p.get("ideal_pages_per_s")
        }
    )
    if ideal:
        ax.plot([x for x, _ in ideal], [y for _, y in ideal], color="black", linestyle="--",
                linewidth=1.2, marker="_", markersize=18, markeredgewidth=2, label="ideal C/L",
                zorder=1.9 if sweep else 2)  # fmt: skip
    return [y for _, y in ideal]


def _at(document: Results, panel: Panel) -> list[Point]:
    """The models' points of the panel's scenario at its latency (all without one)."""
    table = results.scenario_points(document["derived"], panel.scenario)
    return [p for e in table.values() for p in e if panel.latency in (None, p["latency"])]


def line_chart(
    document: Results,
    name: str,
    panels: list[Panel],
    caption: Callable[[bool], str],
    rows: int = 1,
    sweep: bool = False,
) -> kit.Chart:
    """Panels in rows, one legend, and caption(whether any point was server-bound) ended by
    what the bars are. A panel's x axis is log where its values span 20x (symlog in the
    sweep), its y axis as kit.y_scale says."""
    cols = len(panels) // rows
    figure, axes = kit.new_figure(name, rows, cols, kit.HEIGHT if rows == 1 else 8.0)
    saturated = bars = False
    for ax, panel in zip(axes, panels, strict=True):
        if not results.scenario_points(document["derived"], panel.scenario):
            kit.no_data(ax, f"{panel.scenario} did not run")
            continue
        drawn = crawl_lines(ax, document, panel, sweep)
        ideal = plot_ideal(ax, document, panel, sweep) if panel.ideal else []
        saturated, bars = saturated or drawn.saturated, bars or drawn.bars
        kit.y_scale(ax, drawn.ys + ideal)
        if sweep:
            if any(v > 0 for v in drawn.xs):
                ax.set_xscale("symlog", linthresh=1.0)
            kit.ticks_at(ax, sorted(set(drawn.xs)))
            found = results.highlights(
                document["derived"], LATENCY_SWEEP, results.LatencySweepHighlights
            )
            at = words.counts(found["concurrencies"] if found else [])
            ax.set_xlabel(f"server latency (ms), C = {at}")
        else:
            kit.log_if_wide(ax, drawn.xs)
            if panel.latency is not None:  # ticks at the concurrencies run at its latency
                kit.ticks_at(ax, sorted({_x(p, False) for p in _at(document, panel)}))
            ax.set_xlabel("concurrency C")
            ax.xaxis.set_major_formatter(kit.THOUSANDS)
        ax.set_title(panel.title, fontsize=10)
        if panel.ylabel:
            ax.set_ylabel(panel.ylabel)
    # The legend keys the marks of the panels that cross runs; the latency chart's, its bars.
    marked = [p.scenario for p in panels if p.crossed_at]
    crossed = any(results.crossed_runs(document["derived"], scenario) for scenario in marked)
    kit.legend(figure, axes, kit.marker_keys(crossed, saturated and bool(marked), bars))
    return kit.Chart(name, figure, caption(saturated) + captions.bars_note(bars))


def chart_sleepy_throughput(document: Results, scenario: str = SLEEPY) -> kit.Chart:
    """Plateau pages/s against concurrency in a sleepy scenario, with the ideal C/L: one panel
    per server latency, so that no line joins points of two latencies."""
    name = f"{scenario}-throughput"
    table = results.scenario_points(document["derived"], scenario)
    # The latencies it ran at, shortest first ('2s' before '10s').
    latencies = sorted({p["latency"] for e in table.values() for p in e}, key=lambda k: k.mean_s)
    if not table:
        return kit.not_run(name, scenario)
    if not latencies:  # it ran, and no run counted: every round noisy, or every run failed
        return kit.not_run(name, scenario, why=NO_COUNTED_RUN)
    found = results.highlights(document["derived"], scenario, results.SleepyHighlights)
    # The panel the answer is read from, marked where there are several.
    read = found.get("judged_latency") if found and len(latencies) > 1 else None
    panels = [
        Panel(
            scenario,
            lambda p: p.get("plateau_pages_per_s") or p.get("pages_per_s"),
            attrgetter("pages_per_s"),
            f"L = {latency.text}" + (" (the answer is read here)" if latency == read else ""),
            "" if i else "pages/s after the root page",
            latency=latency,
            ideal=True,
        )
        for i, latency in enumerate(latencies)
    ]
    caption = captions.sleepy_throughput_caption(document, scenario)
    return line_chart(document, name, panels, lambda _: caption)


def chart_few_active(document: Results, scenario: str = FEW_ACTIVE) -> kit.Chart:
    """Pages/s and CPU per page against concurrency at latency 0, in one connection mode."""
    if not results.scenario_points(document["derived"], scenario):
        return kit.not_run(scenario, scenario, 2)
    panels = speed_and_cpu(scenario, "crawler CPU per page (µs, user + sys)")
    caption = partial(captions.few_active_caption, document, scenario=scenario)
    return line_chart(document, scenario, panels, caption)


def chart_latency(document: Results) -> kit.Chart:
    """Fetch latency p50 and p99 against concurrency, in few-active and sleepy."""
    panels = [
        Panel(scenario, itemgetter(f"latency_{q}_s"), None, f"{scenario}: {q}",
              f"{q} latency (ms)", 1e3)
        for scenario in (FEW_ACTIVE, SLEEPY)
        for q in ("p50", "p99")
    ]  # fmt: skip
    caption = captions.latency_caption(document)
    return line_chart(document, "latency", panels, lambda _: caption, rows=2)


def chart_latency_sweep(document: Results) -> kit.Chart:
    """Pages/s and CPU per page against the server's latency, at a fixed concurrency."""
    if not results.scenario_points(document["derived"], LATENCY_SWEEP):
        return kit.not_run(LATENCY_SWEEP, LATENCY_SWEEP, 2)
    panels = speed_and_cpu(LATENCY_SWEEP, "crawler CPU per page (µs)", ideal=True)
    caption = captions.latency_sweep_caption(document)
    return line_chart(document, LATENCY_SWEEP, panels, lambda _: caption, sweep=True)


INSTRUCTIONS = captions.INSTRUCTIONS
CORE_GREY = "#9E9E9E"  # the shared core's part of a model's instructions


def chart_instructions(document: Results) -> kit.Chart:
    """Per model, instructions per page (callgrind) as the shared core (the core replay's
    count) and the rest, the model's own scheduling; the core replay alone on top."""
    counts = {
        name: float(median)
        for name, entry in results.instructions_table(document["derived"]).items()
        if (found := entry.get("instructions_per_page")) and (median := found.value) is not None
    }
    core = counts.pop(catalog.CORE_REPLAY, None)
    models = model_order(list(counts))
    figure, (ax,) = kit.new_figure(INSTRUCTIONS, height=kit.rows_height(len(models) + 1))
    if not counts:
        kit.no_data(ax, "no instructions were counted (valgrind absent, or quick)")
        return kit.Chart(INSTRUCTIONS, figure, "Not measured.")
    rows = [catalog.CORE_REPLAY, *models]
    for row, name in enumerate(rows):
        total = (core if name == catalog.CORE_REPLAY else counts[name]) or 0.0
        shared = min(core or 0.0, total)
        ax.barh(row, shared / 1e6, color=CORE_GREY, edgecolor="black", linewidth=0.6)
        if name != catalog.CORE_REPLAY:
            ax.barh(row, (total - shared) / 1e6, left=shared / 1e6, color=style(name).colour,
                    edgecolor="black", linewidth=0.6)  # fmt: skip
        share = f", core {shared / total:.0%}" if total and name != catalog.CORE_REPLAY else ""
        ax.text(total / 1e6, row, f" {total / 1e6:.2f} M{share}", va="center", fontsize=8)
    ax.set_yticks(range(len(rows)), rows)
    ax.invert_yaxis()
    ax.margins(x=0.22)
    ax.set_xlabel("instructions per page (millions), few-active site, callgrind")
    keys = [
        Patch(facecolor=CORE_GREY, edgecolor="black", label="the shared core (core replay)"),
        Patch(facecolor="white", edgecolor="black", label="the model's own (its colour)"),
    ]
    kit.fitted_legend(figure, keys)
    caption = captions.instructions_caption(document, with_cpu=False)
    return kit.Chart(INSTRUCTIONS, figure, caption)
