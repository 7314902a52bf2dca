"""The memory charts: per connection in sleepy, plateau RSS against concurrency, idle units."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter

from bench import results
from bench.report import captions
from bench.report import chart_kit as kit
from bench.report.palette import idle_order, model_order, style
from bench.report.verdicts.base import COROUTINE_CLAIM_BYTES, THREAD_CLAIM_BYTES
from bench.results import MemoryFit, Results
from c10k import catalog
from c10k.quantity import Interval, value_of
from c10k.words import KIB

SLEEPY, IDLE = catalog.SLEEPY.name, catalog.IDLE.name
# The chapter's numbers, as the verdicts hold them.
CHAPTER_THREAD_KIB = THREAD_CLAIM_BYTES / KIB
CHAPTER_COROUTINE_KIB = COROUTINE_CLAIM_BYTES / KIB
BAR = 0.36  # the height of a bar; held and peak side by side in one row
PALE = 0.45  # the peak bar: the model's colour, paler
KERNEL_GREY = "#BBBBBB"
FIT_SAMPLES = 64  # points a fitted straight line is drawn through, so it bends on a log axis


def _value(ax: Axes, x: float, y: float, text: str) -> None:
    ax.text(x, y, f" {text}", va="center", fontsize=8)


def _measured(ax: Axes, y: float, value: float, interval: Interval | None) -> None:
    """A bar's end in KiB: its 95% interval around it in black (none without one), and its
    value past both."""
    if interval is not None:
        low, high = max(0.0, interval.low) / KIB, max(0.0, interval.high) / KIB
        ax.errorbar(value, y, xerr=[[max(0.0, value - low)], [max(0.0, high - value)]],
                    fmt="none", ecolor="black", capsize=3, linewidth=1, zorder=4)  # fmt: skip
    _value(ax, max(value, (interval.high / KIB) if interval else 0), y, f"{value:,.1f}")


def _rss_row(ax: Axes, row: int, model: str, m: MemoryFit) -> None:
    """Held and peak RSS per connection of one model: the same definition, side by side."""
    for fit, y, alpha in (
        (m.rss_bytes.slope, row - BAR / 2, None),
        (m.peak_rss_bytes.slope, row + BAR / 2, PALE),
    ):
        if fit.value is not None:
            value = max(0.0, fit.value) / KIB
            ax.barh(y, value, BAR, color=style(model).colour, alpha=alpha, edgecolor="black",
                    linewidth=0.6)  # fmt: skip
            _measured(ax, y, value, fit.interval)


def _total_row(ax: Axes, row: int, model: str, m: MemoryFit) -> None:
    """Held per connection with the kernel's share: the RSS slope and the kernel slope on it."""
    rss = max(0.0, m.rss_bytes.slope.value or 0.0) / KIB
    kernel = max(0.0, m.kernel_bytes.slope.value or 0.0) / KIB
    for left, width, colour in ((0.0, rss, style(model).colour), (rss, kernel, KERNEL_GREY)):
        ax.barh(row, width, 2 * BAR, left=left, color=colour, edgecolor="black", linewidth=0.6)
    _measured(ax, row, rss + kernel, m.total_bytes.interval)


def chart_memory_per_connection(document: Results) -> kit.Chart:
    """Per model, left: held and peak RSS per connection (the same definition, RSS slopes);
    right: held with the kernel's share (RSS + kernel slopes), each with its 95% interval."""
    name = "memory-per-connection"
    memory = results.memory_fits(document["derived"], SLEEPY)
    if not memory:
        return kit.not_run(name, SLEEPY, 2, height=kit.rows_height(0), sharey=True)
    models = model_order(list(memory))
    figure, (left, right) = kit.new_figure(name, 1, 2, kit.rows_height(len(models)), sharey=True)
    for row, model in enumerate(models):
        m = memory[model]
        if m is None or m.rss_bytes.slope.value is None:
            left.text(0, row, " no fit (fewer than 2 verified points)", va="center", fontsize=8)
            continue
        _rss_row(left, row, model, m)
        _total_row(right, row, model, m)
    left.set_yticks(range(len(models)), models)
    left.invert_yaxis()
    left.set_title("RSS per connection: held and peak", fontsize=10)
    right.set_title("held, with the kernel's share", fontsize=10)
    for ax in (left, right):
        ax.set_xlabel(captions.memory_fit_label(document))
        ax.margins(x=0.18)
    keys = [
        Patch(facecolor="#777777", edgecolor="black", label="held: plateau RSS slope"),
        Patch(facecolor="#777777", alpha=PALE, edgecolor="black", label="peak: peak-RSS slope"),
        Patch(facecolor=KERNEL_GREY, edgecolor="black", label="kernel slope (both ends)"),
        kit.key("bar: 95% interval", color="black", marker="|", linestyle="none"),
    ]
    kit.fitted_legend(figure, keys)
    return kit.Chart(name, figure, captions.memory_per_connection_caption(document))


def _fit_line(ax: Axes, model: str, m: MemoryFit | None, log_x: bool) -> None:
    """The least-squares line of plateau RSS against C over its fitted range, drawn through
    many x so that it is the fit on a log axis too (a straight line there bends)."""
    slope, intercept = (m.rss_bytes.slope.value, m.rss_bytes.intercept) if m else (None, None)
    if m is None or slope is None or intercept is None or not m.concurrencies:
        return
    low, high = float(min(m.concurrencies)), float(max(m.concurrencies))
    xs = np.geomspace(low, high, FIT_SAMPLES) if log_x else np.linspace(low, high, FIT_SAMPLES)
    ys = (intercept + slope * xs) / KIB / KIB
    s = style(model)
    ax.plot(xs, ys, color=s.colour, linestyle=s.linestyle, linewidth=1.4)


def chart_plateau_rss(document: Results) -> kit.Chart:
    """Plateau RSS against concurrency per model, with each fit drawn as the line it is."""
    name = "plateau-rss"
    memory = results.memory_fits(document["derived"], SLEEPY)
    found = results.crossed_runs(document["derived"], SLEEPY)
    if not memory:
        return kit.not_run(name, SLEEPY)
    figure, (ax,) = kit.new_figure(name)
    plateaus = {
        model: [
            (float(p["concurrency"]), plateau.value / KIB)
            for p in found_points
            if (plateau := p.get("plateau_rss_kib")) and plateau.value is not None
        ]
        for model, found_points in results.scenario_points(document["derived"], SLEEPY).items()
    }
    all_x = [c for xy in plateaus.values() for c, _ in xy]
    all_x += [float(p.concurrency) for p in found if p.concurrency is not None]
    kit.log_if_wide(ax, all_x)
    log_x = ax.get_xscale() == "log"
    for model in model_order(list(memory)):
        xs, ys = [c for c, _ in plateaus[model]], [mib for _, mib in plateaus[model]]
        ax.plot(xs, ys, label=model, **style(model).line | {"linestyle": "none"})
        _fit_line(ax, model, memory[model], log_x)
    for p in found:
        if p.concurrency is not None:
            rss = p.plateau_rss_kib / KIB if p.plateau_rss_kib else None
            kit.crossed(ax, p.model, [float(p.concurrency)], [rss])
    ax.set_xlabel("concurrency C (connections open at once; lines: the fits, over their C)")
    ax.set_ylabel("plateau RSS (MiB)")
    ax.xaxis.set_major_formatter(kit.THOUSANDS)
    kit.legend(figure, [ax], kit.marker_keys(bool(found), False))
    caption = captions.plateau_rss_caption(document)
    return kit.Chart(name, figure, caption)


VISIBLE_SHARE = 0.02  # a part of an idle unit's memory below this share of it is not drawn
# Each part of an idle unit's memory as Line2D's keywords, in the legend's order; a part with
# no face is filled with the kind's colour.
IDLE_MARKERS: dict[str, dict[str, Any]] = {
    "total": {"label": "RSS + kernel", "marker": "o", "markersize": 8},
    "RSS": {"label": "RSS", "marker": "o", "markersize": 6, "markerfacecolor": "white"},
    "kernel": {"label": "kernel", "marker": "s", "markersize": 5, "markerfacecolor": "white"},
}


def _idle_memory(ax: Axes, kinds: list[str], units: results.IdleTable) -> None:
    """Left: per idle kind, RSS + kernel per unit (filled) and each part (hollow), on a log
    axis: dots, not bars, so no length is read off a log scale."""
    for row, kind in enumerate(kinds):
        unit = units[kind]
        if unit.rss_bytes_per_unit is None:
            ax.text(0.02, row, " not measured", va="center", transform=ax.get_yaxis_transform())
            continue
        s = style(kind)
        total = (value_of(unit.total_bytes_per_unit) or unit.rss_bytes_per_unit) / KIB
        kernel = unit.kernel_total_bytes_per_unit or 0.0
        # The total drawn last, over a part of the same size.
        parts = {"RSS": unit.rss_bytes_per_unit / KIB, "kernel": kernel / KIB, "total": total}
        drawn = {"linestyle": "none", "color": s.colour, "markerfacecolor": s.colour}
        for part, value in parts.items():
            if value < total * VISIBLE_SHARE:  # a part too small to matter (kernel: noise)
                continue
            ax.plot([value], [row], markeredgewidth=1.4, **drawn | IDLE_MARKERS[part])
        _value(ax, total * 1.15, row, f"{total:,.2f}")
    ax.set_xscale("log")
    for value, dash, text in ((CHAPTER_THREAD_KIB, "--", "50"), (CHAPTER_COROUTINE_KIB, ":", "3")):
        ax.axvline(value, color="black", linestyle=dash, linewidth=1.2)
        ax.text(value, -0.75, f"chapter {text}", ha="center", fontsize=8, va="bottom")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    ax.set_yticks(range(len(kinds)), kinds)
    ax.set_ylim(len(kinds) - 0.5, -1.0)
    ax.set_xlabel("KiB per unit (log)")
    ax.set_title("memory per idle unit", fontsize=10)


def _idle_reached(ax: Axes, kinds: list[str], units: results.IdleTable) -> None:
    """Right: the units each kind parked (measured), failed runs crossed at the count they
    were asked for, and the threads started until failure in one process and on the machine."""
    for row, kind in enumerate(kinds):
        s, unit = style(kind), units[kind]
        if unit.parked:
            ax.plot(
                [unit.parked], [row], marker="o", markersize=8, color=s.colour, linestyle="none"
            )
            _value(ax, unit.parked * 1.1, row, f"{unit.parked:,}")
        for p in unit.failed_slopes:
            count = p["count"] or 0
            ax.plot([count], [row], **kit.cross_marker(s.colour))
            _value(ax, count * 1.1, row + 0.3, f"asked {count:,}: {p['status']}")
        # The threads started until failure: in one process (label above) and by several at
        # once on the machine (label below), as bar ends.
        for ceiling, where, at in (
            (unit.max_threads, "1 process", -0.3),
            (unit.max_threads_machine, "machine", 0.45),
        ):
            if ceiling:
                count = int(ceiling["count"])
                ax.plot([count], [row], marker="|", markersize=16, markeredgewidth=3, color="black")
                ax.text(count, row + at, f"{where}: {count:,}", fontsize=7.5, ha="center")
    ax.set_xscale("log")
    ax.tick_params(labelleft=False)
    ax.set_xlabel("units parked (log); | threads started until failure")
    ax.set_title("units reached", fontsize=10)
    ax.xaxis.set_major_formatter(kit.THOUSANDS)
    ax.margins(x=0.25)


def chart_idle_units(document: Results) -> kit.Chart:
    """Idle memory per unit by kind (dots on a log axis) and how many units each reached."""
    name = "idle-units"
    units = results.idle_table(document["derived"])
    if not units:
        return kit.not_run(name, IDLE, 2, height=kit.rows_height(1), sharey=True)
    kinds = idle_order(list(units))
    figure, (left, right) = kit.new_figure(name, 1, 2, kit.rows_height(len(kinds) + 1), sharey=True)
    _idle_memory(left, kinds, units)
    _idle_reached(right, kinds, units)
    grey = {"linestyle": "none", "color": "#555555", "markerfacecolor": "#555555"}
    kit.fitted_legend(figure, [kit.key(**grey | m) for m in IDLE_MARKERS.values()])
    return kit.Chart(name, figure, captions.idle_units_caption(document))
