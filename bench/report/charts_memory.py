"""The memory charts: per connection in sleepy, plateau RSS against concurrency, idle units."""

from __future__ import annotations

from typing import Any

from matplotlib.axes import Axes
from matplotlib.ticker import FuncFormatter

from bench.report import captions
from bench.report.chart_kit import (
    THOUSANDS,
    Chart,
    cross_marker,
    crossed,
    legend,
    log_if_wide,
    marker_key,
    new_figure,
    no_data,
)
from bench.report.figures import (
    KIB,
    IdleUnit,
    failed_slope_runs,
    idle_units,
    memory_per_connection,
    problems,
    stopped_by_a_limit,
)
from bench.report.palette import idle_order, model_order, style
from bench.report.verdicts.base import COROUTINE_CLAIM_BYTES, THREAD_CLAIM_BYTES
from c10k import catalog

SLEEPY, IDLE = catalog.SLEEPY.name, catalog.IDLE.name
CHAPTER_THREAD_KIB = THREAD_CLAIM_BYTES / KIB  # the chapter's numbers, as the verdicts hold them
CHAPTER_COROUTINE_KIB = COROUTINE_CLAIM_BYTES / KIB
BAR_WIDTH = 0.4  # held and peak side by side at each model
PEAK_ALPHA = 0.45  # the peak bar: the model's colour, paler


def _chapter_lines(ax: Axes) -> None:
    """The chapter's 50 KiB per thread and 3 KiB per coroutine, labelled right of the axes."""
    for value, text, dash in (
        (CHAPTER_THREAD_KIB, "chapter:\nthread ~50 KiB", "--"),
        (CHAPTER_COROUTINE_KIB, "chapter:\ncoroutine ~3 KiB", ":"),
    ):
        ax.axhline(value, color="black", linestyle=dash, linewidth=1.2, zorder=3)
        # Beside the axes, right: inside it a label would hide a bar's value.
        ax.text(
            1.01,
            value,
            text,
            ha="left",
            va="center",
            fontsize=9,
            transform=ax.get_yaxis_transform(),
        )


def chart_memory_per_connection(document: dict[str, Any]) -> Chart:
    """Bytes per connection by model, held and peak side by side: held is the RSS slope with
    the kernel slope stacked, peak the slope of the runs' peak RSS; 50 and 3 KiB marked."""
    name = "memory-per-connection"
    title, figure, (ax,) = new_figure(name)
    memory = memory_per_connection(document)
    models = model_order(list(memory))
    if not memory:
        no_data(ax, captions.no_data(SLEEPY))
        return Chart(name, title, figure, captions.not_run(SLEEPY))
    for index, model in enumerate(models):
        m = memory[model]
        s = style(model)
        if m.rss_bytes is None:
            ax.bar(index, 0.0, color="none")
            ax.text(index, 1.0, "no fit", ha="center", va="bottom", rotation=90, fontsize=9)
            continue
        held_x, peak_x = index - BAR_WIDTH / 2, index + BAR_WIDTH / 2
        rss = max(0.0, m.rss_bytes) / KIB
        kernel = max(0.0, m.kernel_bytes or 0.0) / KIB
        bar: dict[str, Any] = {"width": BAR_WIDTH, "hatch": s.hatch}
        ax.bar(held_x, rss, color=s.colour, edgecolor="black", label=model, **bar)
        ax.bar(held_x, kernel, bottom=rss, color="white", edgecolor=s.colour, **bar)
        top = rss + kernel
        if m.total_ci95 is not None:
            # The 95% interval of the held total, over the runs: the RSS slope's interval
            # with the kernel slope added.
            low, high = (max(0.0, v) / KIB for v in (m.total_ci95.low, m.total_ci95.high))
            ax.errorbar(
                held_x,
                top,
                yerr=[[max(0.0, top - low)], [max(0.0, high - top)]],
                fmt="none",
                ecolor="black",
                capsize=3,
                linewidth=1,
                zorder=4,
            )
            top = max(top, high)
        ax.text(held_x, top, f"{rss + kernel:,.1f}", ha="center", va="bottom", fontsize=8)
        if m.peak_bytes is not None:
            peak = max(0.0, m.peak_bytes) / KIB
            ax.bar(peak_x, peak, color=s.colour, alpha=PEAK_ALPHA, edgecolor="black", **bar)
            ax.text(peak_x, peak, f"{peak:,.1f}", ha="center", va="bottom", fontsize=8)
    _chapter_lines(ax)
    ax.set_ylim(top=max(CHAPTER_THREAD_KIB * 1.15, ax.get_ylim()[1] * 1.05))
    ax.set_xticks(range(len(models)), models, rotation=20)
    ax.set_ylabel("KiB per connection")
    ax.set_title(
        "left: held (plateau RSS slope, filled; kernel slope, white; bar: 95% interval); "
        "right, pale: peak (runs' peak RSS)",
        fontsize=10,
    )
    figure.supxlabel(captions.memory_fit_label(document), fontsize=8)
    return Chart(name, title, figure, captions.memory_per_connection_caption(document))


def chart_plateau_rss(document: dict[str, Any]) -> Chart:
    """Plateau RSS against concurrency per model, with the fitted straight lines."""
    name = "plateau-rss"
    title, figure, (ax,) = new_figure(name)
    memory = memory_per_connection(document)
    found = problems(document, SLEEPY)
    if not memory:
        no_data(ax, captions.no_data(SLEEPY))
        return Chart(name, title, figure, captions.not_run(SLEEPY))
    all_x: list[float] = []
    for model in model_order(list(memory)):
        m = memory[model]
        xs = [float(c) for c, _ in m.points_rss_kib]
        ys = [r / KIB for _, r in m.points_rss_kib]
        all_x += xs
        s = style(model)
        ax.plot(
            xs, ys, linestyle="none", marker=s.marker, color=s.colour, markersize=7, label=model
        )
        if m.rss_bytes is not None and m.rss_intercept is not None and m.concurrencies:
            fit_x = [float(min(m.concurrencies)), float(max(m.concurrencies))]
            fit_y = [(m.rss_intercept + m.rss_bytes * x) / KIB / KIB for x in fit_x]
            ax.plot(fit_x, fit_y, color=s.colour, linestyle=s.linestyle, linewidth=1.4)
    for p in found:
        if p.concurrency is not None:
            rss = p.plateau_rss_kib / KIB if p.plateau_rss_kib else None
            crossed(ax, p.model, [float(p.concurrency)], [rss])
            all_x.append(float(p.concurrency))
    log_if_wide(ax, all_x)
    ax.set_xlabel("concurrency C (connections open at once)")
    ax.set_ylabel("plateau RSS (MiB)")
    ax.xaxis.set_major_formatter(THOUSANDS)
    legend(figure, [ax], [marker_key("crossed")] if found else None)
    return Chart(name, title, figure, captions.plateau_rss_caption(document))


def _idle_memory(ax: Axes, kinds: list[str], units: dict[str, IdleUnit]) -> None:
    """Left: memory per idle unit by kind, RSS filled and kernel white, log scale."""
    for row, kind in enumerate(kinds):
        s = style(kind)
        unit = units.get(kind)
        if unit is None or unit.rss_bytes is None:
            ax.text(0.02, row, " not measured", va="center", transform=ax.get_yaxis_transform())
            continue
        rss = max(unit.rss_bytes, 1.0) / KIB
        kernel = (unit.kernel_bytes or 0.0) / KIB
        ax.barh(row, rss, color=s.colour, edgecolor="black", hatch=s.hatch)
        if kernel > 0:
            ax.barh(row, kernel, left=rss, color="white", edgecolor=s.colour, hatch=s.hatch)
        ax.text(rss + kernel, row, f" {rss + kernel:,.2f}", va="center", fontsize=8)
    ax.set_xscale("log")
    ax.axvline(CHAPTER_THREAD_KIB, color="black", linestyle="--", linewidth=1.2)
    ax.axvline(CHAPTER_COROUTINE_KIB, color="black", linestyle=":", linewidth=1.2)
    for value, text in ((CHAPTER_THREAD_KIB, "chapter 50"), (CHAPTER_COROUTINE_KIB, "chapter 3")):
        ax.text(
            value,
            -0.9,
            text,
            ha="center",
            fontsize=8,
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.0},
        )
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    ax.set_yticks(range(len(kinds)), kinds)
    ax.set_ylim(len(kinds) - 0.4, -1.2)
    ax.set_xlabel("KiB per unit (log): filled RSS, white kernel")
    ax.set_title("memory per idle unit", fontsize=10)


def _thread_ceiling(ax: Axes, row: int, ceiling: dict[str, Any]) -> None:
    """The threads started until failure: a bar end, with what stopped them."""
    count = int(ceiling["count"])
    real_limit = stopped_by_a_limit(ceiling)
    ax.plot(
        [count],
        [row],
        marker="|",
        markersize=18,
        markeredgewidth=3,
        color="black",
        linestyle="none",
    )
    ax.text(
        count,
        row - 0.3,
        f" until failure: {count:,}, stopped by {ceiling['stopped_by']}"
        + ("" if real_limit else " (no failure)"),
        fontsize=8,
        va="bottom",
    )


def _idle_reached(ax: Axes, kinds: list[str], document: dict[str, Any]) -> None:
    """Right: units started per kind, failed runs crossed, the thread ceiling marked."""
    units, failed = idle_units(document), failed_slope_runs(document)
    for row, kind in enumerate(kinds):
        s = style(kind)
        unit = units.get(kind)
        reached = unit.count if unit and unit.count else 0
        if reached:
            ax.barh(row, reached, color=s.colour, edgecolor="black", hatch=s.hatch)
            ax.text(reached, row, f" {reached:,}", va="center", fontsize=8)
        for count, status, _reason in failed.get(kind, []):
            ax.plot([count], [row], **cross_marker(s.colour))
            ax.text(count, row + 0.35, f" {status}", fontsize=8)
        if unit and unit.max_threads:
            _thread_ceiling(ax, row, unit.max_threads)
    ax.set_xscale("log")
    ax.set_yticks(range(len(kinds)), [])
    ax.set_ylim(len(kinds) - 0.4, -1.2)
    ax.set_xlabel("units started (log); | = threads started until failure")
    ax.set_title("units reached", fontsize=10)
    ax.xaxis.set_major_formatter(THOUSANDS)


def chart_idle_units(document: dict[str, Any]) -> Chart:
    """Idle memory per unit by kind (RSS + kernel, log scale) and how many units each reached."""
    name = "idle-units"
    title, figure, (left, right) = new_figure(name, 1, 2, height=5.6)
    units = idle_units(document)
    if not units:
        no_data(left, captions.no_data(IDLE))
        no_data(right, "")
        return Chart(name, title, figure, captions.not_run(IDLE))
    kinds = idle_order(list(units))
    _idle_memory(left, kinds, units)
    _idle_reached(right, kinds, document)
    return Chart(name, title, figure, captions.idle_units_caption(document))
