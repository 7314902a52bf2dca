"""The report's charts (matplotlib, Agg) and the short interpretation under each one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # no display: files only, before pyplot is imported

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, NullFormatter

from c10k import catalog
from report.figures import (
    COROUTINE_KINDS,
    KIB,
    Problem,
    idle_run_counts,
    idle_units,
    kib,
    latency_seconds,
    med,
    memory_per_connection,
    number,
    points,
    problems,
    scenario_ran,
)
from report.palette import idle_order, model_order, style
from report.verdicts import THREAD_LIMITS

FEW_ACTIVE, SLEEPY = catalog.FEW_ACTIVE.name, catalog.SLEEPY.name
LATENCY_SWEEP = catalog.LATENCY_SWEEP.name

CHAPTER_THREAD_KIB = 50.0
CHAPTER_COROUTINE_KIB = 3.0
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
    """A drawn chart: its file stem, title, figure, and what it shows in words."""

    name: str
    title: str
    figure: Figure
    interpretation: str


# -- helpers ---------------------------------------------------------------------------------


def _figure(rows: int = 1, cols: int = 1, height: float = HEIGHT) -> tuple[Figure, list[Axes]]:
    figure, axes = plt.subplots(
        rows, cols, figsize=(WIDTH, height), squeeze=False, layout="constrained"
    )
    return figure, [ax for row in axes for ax in row]


def _no_data(ax: Axes, reason: str) -> None:
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


def _line(ax: Axes, model: str, xs: list[float], ys: list[float], **extra: Any) -> None:
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


def _hollow(ax: Axes, model: str, xs: list[float], ys: list[float]) -> None:
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


def _crossed(ax: Axes, model: str, xs: list[float], ys: list[float | None]) -> None:
    """Runs that did not count: a big X at their value, or on the x axis when they have none."""
    s = style(model)
    known = [(x, y) for x, y in zip(xs, ys, strict=True) if y is not None and y > 0]
    unknown = [x for x, y in zip(xs, ys, strict=True) if y is None or y <= 0]
    if known:
        ax.plot(
            [x for x, _ in known],
            [y for _, y in known],
            linestyle="none",
            marker="X",
            markersize=11,
            markerfacecolor="white",
            markeredgecolor=s.colour,
            markeredgewidth=2.0,
        )
    if unknown:
        ax.plot(
            unknown,
            [0.03] * len(unknown),
            linestyle="none",
            marker="X",
            markersize=11,
            markerfacecolor="white",
            markeredgecolor=s.colour,
            markeredgewidth=2.0,
            transform=ax.get_xaxis_transform(),
            clip_on=False,
        )


def _model_key(model: str) -> Line2D:
    s = style(model)
    return Line2D(
        [], [], color=s.colour, marker=s.marker, linestyle=s.linestyle, markersize=7, label=model
    )


def _legend(figure: Figure, axes: list[Axes], extra: list[Line2D] | None = None) -> None:
    """One legend per figure: every model drawn (marker and line as in the palette)."""
    handles: dict[str, Any] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    labels = model_order([h for h in handles if not h.startswith("ideal")])
    ordered: list[Any] = [_model_key(m) for m in labels]
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


def _marker_key(kind: str) -> Line2D:
    if kind == "crossed":
        return Line2D(
            [],
            [],
            linestyle="none",
            marker="X",
            markersize=10,
            markerfacecolor="white",
            markeredgecolor="#333333",
            markeredgewidth=2.0,
            label="run that did not count (reason below)",
        )
    return Line2D(
        [],
        [],
        linestyle="none",
        marker="o",
        markersize=8,
        markerfacecolor="white",
        markeredgecolor="#333333",
        markeredgewidth=1.6,
        label="server CPU-bound (pages/s is the server's)",
    )


def _problem_lines(found: list[Problem]) -> str:
    if not found:
        return ""
    shown = "; ".join(
        f"{p.model} at C {p.concurrency:,}: {p.status} ({p.reason})"
        if p.concurrency is not None
        else f"{p.model}: {p.status} ({p.reason})"
        for p in found[:6]
    )
    more = f" and {len(found) - 6} more" if len(found) > 6 else ""
    return f" Runs that did not count (crossed): {shown}{more}."


def _rank(values: dict[str, float], unit: str, higher_is_better: bool, digits: int = 0) -> str:
    """'asyncio is highest with 950 pages/s; threads lowest with 400 (2.38x less)'."""
    if not values:
        return ""
    ordered = sorted(values, key=lambda m: values[m], reverse=higher_is_better)
    best, worst = ordered[0], ordered[-1]
    top, bottom = ("highest", "lowest") if higher_is_better else ("lowest", "highest")
    text = f"{best} is {top} with {number(values[best], digits)} {unit}"
    if worst != best:
        text += f"; {worst} {bottom} with {number(values[worst], digits)} {unit}"
        if values[best] > 0 and values[worst] > 0:
            factor = max(values[best], values[worst]) / min(values[best], values[worst])
            text += f" ({factor:.2f}x {'less' if higher_is_better else 'more'})"
    return text


def _log_if_wide(ax: Axes, values: list[float]) -> None:
    """A log x axis when the points span 20x or more; ticks at the measured values."""
    positive = sorted({v for v in values if v > 0})
    if positive and positive[-1] / positive[0] >= 20:
        ax.set_xscale("log")
    _ticks_at(ax, sorted(set(values)))


def _ticks_at(ax: Axes, values: list[float]) -> None:
    if not values:
        return
    shown = values if len(values) <= 9 else values[:: max(1, len(values) // 8)]
    ax.set_xticks(shown, [f"{v:,.0f}" if v >= 1 or v == 0 else f"{v:g}" for v in shown])
    ax.xaxis.set_minor_formatter(NullFormatter())


_THOUSANDS = FuncFormatter(lambda value, _pos: f"{value:,.0f}")


# -- the charts ------------------------------------------------------------------------------


def chart_memory_per_connection(document: dict[str, Any]) -> Chart:
    """Bytes per connection by model: RSS slope and kernel slope stacked, 50 and 3 KiB marked."""
    title = "Memory per connection (sleepy plateau, fitted slope)"
    figure, (ax,) = _figure()
    figure.suptitle(title)
    memory = memory_per_connection(document)
    models = model_order(list(memory))
    if not memory:
        _no_data(ax, "the sleepy scenario did not run")
        return Chart("memory-per-connection", title, figure, "Not measured: sleepy did not run.")
    notes = []
    for index, model in enumerate(models):
        m = memory[model]
        s = style(model)
        if m.rss_bytes is None:
            ax.bar(index, 0.0, color="none")
            ax.text(index, 1.0, "no fit", ha="center", va="bottom", rotation=90, fontsize=9)
            notes.append(f"{model} has no fit (fewer than 2 verified points)")
            continue
        rss = max(0.0, m.rss_bytes) / KIB
        kernel = max(0.0, m.kernel_bytes or 0.0) / KIB
        ax.bar(index, rss, color=s.colour, edgecolor="black", hatch=s.hatch, label=model)
        ax.bar(index, kernel, bottom=rss, color="white", edgecolor=s.colour, hatch=s.hatch)
        ax.text(index, rss + kernel, f"{rss + kernel:,.1f}", ha="center", va="bottom", fontsize=9)
        if (m.rss_r2 or 0) < 0.98:
            notes.append(f"{model} R² {number(m.rss_r2, 2)}")
        for part, value in (("RSS", m.rss_bytes), ("kernel", m.kernel_bytes or 0.0)):
            if value < 0:
                notes.append(f"{model}'s {part} slope is negative (noise), drawn as 0")
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
    ax.set_ylim(top=max(CHAPTER_THREAD_KIB * 1.15, ax.get_ylim()[1]))
    ax.set_xticks(range(len(models)), models, rotation=20)
    ax.set_ylabel("KiB per connection")
    ax.set_title("filled: process RSS slope; white with the same hatch: kernel slope stacked")
    fitted = [memory[m] for m in models if memory[m].rss_bytes is not None]
    fit_range = sorted({c for m in fitted for c in m.concurrencies})
    figure.supxlabel(
        f"model (fitted over C = {', '.join(f'{c:,}' for c in fit_range) or '-'}; kernel: "
        "stacks + slab + page tables + TCP buffers, machine-wide, both ends of the connection)",
        fontsize=8,
    )
    # A negative RSS slope is noise (tiny scale, or a point that did not count): no ranking.
    totals = {
        m.model: (m.total_bytes or 0.0) / KIB
        for m in fitted
        if m.rss_bytes is not None and m.rss_bytes > 0
    }
    text = (
        f"Memory per connection (RSS + kernel): {_rank(totals, 'KiB', False, 1)}."
        if totals
        else "No model has a memory fit."
    )
    if catalog.THREADS.name in totals:
        text += (
            f" Threads cost {totals['threads']:,.1f} KiB per connection against the chapter's "
            f"50 KiB per thread."
        )
    if notes:
        text += " Caveats: " + "; ".join(notes) + "."
    return Chart(
        "memory-per-connection", title, figure, text + _problem_lines(problems(document, SLEEPY))
    )


def chart_plateau_rss(document: dict[str, Any]) -> Chart:
    """Plateau RSS against concurrency per model, with the fitted straight lines."""
    title = "Plateau RSS against concurrency (sleepy), with the least-squares fits"
    figure, (ax,) = _figure()
    figure.suptitle(title)
    memory = memory_per_connection(document)
    found = problems(document, SLEEPY)
    if not memory:
        _no_data(ax, "the sleepy scenario did not run")
        return Chart("plateau-rss", title, figure, "Not measured: sleepy did not run.")
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
            _crossed(ax, p.model, [float(p.concurrency)], [rss])
            all_x.append(float(p.concurrency))
    _log_if_wide(ax, all_x)
    ax.set_xlabel("concurrency C (connections open at once)")
    ax.set_ylabel("plateau RSS (MiB)")
    ax.xaxis.set_major_formatter(_THOUSANDS)
    _legend(figure, [ax], [_marker_key("crossed")] if found else None)
    slopes = {
        m: f"{kib(memory[m].rss_bytes)}/conn (R² {number(memory[m].rss_r2, 3)})"
        for m in model_order(list(memory))
        if memory[m].rss_bytes is not None
    }
    largest = {
        model: memory[model].points_rss_kib[-1][1] / KIB
        for model in memory
        if memory[model].points_rss_kib
    }
    text = "Fitted RSS slopes: " + ", ".join(f"{m} {v}" for m, v in slopes.items()) + "."
    if largest:
        top = max(largest, key=lambda m: largest[m])
        low = min(largest, key=lambda m: largest[m])
        text += (
            f" At its largest verified C, {top} holds the most RSS ({largest[top]:,.1f} MiB) "
            f"and {low} the least ({largest[low]:,.1f} MiB)."
        )
    return Chart("plateau-rss", title, figure, text + _problem_lines(found))


def chart_idle_units(document: dict[str, Any]) -> Chart:
    """Idle memory per unit by kind (RSS + kernel, log scale) and how many units each reached."""
    title = "Idle units: memory per unit, and how many were started"
    figure, (left, right) = _figure(1, 2, height=5.6)
    figure.suptitle(title)
    units = idle_units(document)
    runs = idle_run_counts(document)
    if not units and not runs:
        _no_data(left, "the idle scenario did not run")
        _no_data(right, "")
        return Chart("idle-units", title, figure, "Not measured: idle did not run.")
    kinds = idle_order(list(set(units) | set(runs)))
    for row, kind in enumerate(kinds):
        s = style(kind)
        unit = units.get(kind)
        if unit is None or unit.rss_bytes is None:
            left.text(0.02, row, " not measured", va="center", transform=left.get_yaxis_transform())
            continue
        rss = max(unit.rss_bytes, 1.0) / KIB
        kernel = (unit.kernel_bytes or 0.0) / KIB
        left.barh(row, rss, color=s.colour, edgecolor="black", hatch=s.hatch)
        if kernel > 0:
            left.barh(row, kernel, left=rss, color="white", edgecolor=s.colour, hatch=s.hatch)
        left.text(rss + kernel, row, f" {rss + kernel:,.2f}", va="center", fontsize=8)
    left.set_xscale("log")
    left.axvline(CHAPTER_THREAD_KIB, color="black", linestyle="--", linewidth=1.2)
    left.axvline(CHAPTER_COROUTINE_KIB, color="black", linestyle=":", linewidth=1.2)
    for value, text in ((CHAPTER_THREAD_KIB, "chapter 50"), (CHAPTER_COROUTINE_KIB, "chapter 3")):
        left.text(
            value,
            -0.9,
            text,
            ha="center",
            fontsize=8,
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.0},
        )
    left.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    left.set_yticks(range(len(kinds)), kinds)
    left.set_ylim(len(kinds) - 0.4, -1.2)
    left.set_xlabel("KiB per unit (log): filled RSS, white kernel")
    left.set_title("memory per idle unit", fontsize=10)

    for row, kind in enumerate(kinds):
        s = style(kind)
        unit = units.get(kind)
        reached = unit.count if unit and unit.count else 0
        bad = [(c, st, r) for c, st, r in runs.get(kind, []) if st != "ok"]
        if reached:
            right.barh(row, reached, color=s.colour, edgecolor="black", hatch=s.hatch)
            right.text(reached, row, f" {reached:,}", va="center", fontsize=8)
        for count, status, _reason in bad:
            right.plot(
                [count],
                [row],
                marker="X",
                markersize=11,
                markerfacecolor="white",
                markeredgecolor=s.colour,
                markeredgewidth=2.0,
                linestyle="none",
            )
            right.text(count, row + 0.35, f" {status}", fontsize=8)
        ceiling = unit.max_threads if unit else None
        if ceiling:
            count = int(ceiling["count"])
            real_limit = ceiling["stopped_by"] in THREAD_LIMITS
            right.plot(
                [count],
                [row],
                marker="|",
                markersize=18,
                markeredgewidth=3,
                color="black",
                linestyle="none",
            )
            right.text(
                count,
                row - 0.3,
                f" until failure: {count:,}, stopped by {ceiling['stopped_by']}"
                + ("" if real_limit else " (no failure)"),
                fontsize=8,
                va="bottom",
            )
    right.set_xscale("log")
    right.set_yticks(range(len(kinds)), [])
    right.set_ylim(len(kinds) - 0.4, -1.2)
    right.set_xlabel("units started (log); | = threads started until failure")
    right.set_title("units reached", fontsize=10)
    right.xaxis.set_major_formatter(_THOUSANDS)

    thread, task = units.get(catalog.THREAD.name), units.get(catalog.ASYNCIO_TASK.name)
    parts = []
    if thread and thread.total_bytes:
        parts.append(
            f"An idle thread costs {kib(thread.total_bytes)} (RSS {kib(thread.rss_bytes)} + "
            f"kernel {kib(thread.kernel_bytes)})"
        )
        if task and task.total_bytes:
            parts[-1] += (
                f", {thread.total_bytes / task.total_bytes:,.0f}x an asyncio task "
                f"({kib(task.total_bytes, 2)})"
            )
    coroutines = {k: units[k] for k in COROUTINE_KINDS if k in units and units[k].rss_bytes}
    if coroutines:
        cheapest = min(coroutines.values(), key=lambda u: u.total_bytes or 0.0)
        parts.append(f"the cheapest unit is a {cheapest.kind} at {kib(cheapest.total_bytes, 2)}")
        most = max(coroutines.values(), key=lambda u: u.count or 0)
        parts.append(
            f"{most.count or 0:,} {most.kind}s started in {number(most.seconds_to_start_all, 2)} s"
        )
    if thread and thread.max_threads:
        ceiling = thread.max_threads
        parts.append(
            f"threads started until failure reached {int(ceiling['count']):,}, stopped by "
            f"{ceiling['stopped_by']}"
            + ("" if ceiling["stopped_by"] in THREAD_LIMITS else " (the harness's cap, no failure)")
        )
    failed = [f"{k} ({c:,}): {st}, {r}" for k, rs in runs.items() for c, st, r in rs if st != "ok"]
    text = "; ".join(parts) + "." if parts else "No idle unit was measured."
    if failed:
        text += " Runs that did not count (crossed): " + "; ".join(failed) + "."
    return Chart("idle-units", title, figure, text[0].upper() + text[1:])


def _crawl_lines(
    ax: Axes,
    document: dict[str, Any],
    scenario: str,
    value: Callable[[dict[str, Any]], float | None],
    x: Callable[[dict[str, Any]], float],
    problem_value: Callable[[Problem], float | None] | None,
) -> tuple[list[float], bool]:
    """One line per model; hollow server-bound points; crossed runs that did not count."""
    xs_all: list[float] = []
    saturated_any = False
    for model in model_order(list(points(document, scenario))):
        entries = [p for p in points(document, scenario)[model] if value(p) is not None]
        xs = [x(p) for p in entries]
        ys = [float(value(p) or 0.0) for p in entries]
        xs_all += xs
        if xs:
            _line(ax, model, xs, ys)
        saturated = [(x(p), float(value(p) or 0.0)) for p in entries if p["server_saturated_runs"]]
        if saturated:
            saturated_any = True
            _hollow(ax, model, [a for a, _ in saturated], [b for _, b in saturated])
    if problem_value is not None:
        for p in problems(document, scenario):
            if p.concurrency is None:
                continue
            px = float(p.concurrency) if scenario != LATENCY_SWEEP else _sweep_x(p.latency)
            _crossed(ax, p.model, [px], [problem_value(p)])
            xs_all.append(px)
    return xs_all, saturated_any


def _sweep_x(latency: str | None) -> float:
    return latency_seconds(latency or "0") * 1000.0


def _keys(found: list[Problem], saturated: bool) -> list[Line2D]:
    keys = []
    if found:
        keys.append(_marker_key("crossed"))
    if saturated:
        keys.append(_marker_key("hollow"))
    return keys


def _plot_ideal(
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


def chart_sleepy_throughput(document: dict[str, Any]) -> Chart:
    """Plateau pages/s against concurrency in sleepy, with the ideal C/L."""
    title = "Throughput with sleepy connections against the ideal C/L"
    figure, (ax,) = _figure()
    figure.suptitle(title)
    table = points(document, SLEEPY)
    found = problems(document, SLEEPY)
    if not table:
        _no_data(ax, "the sleepy scenario did not run")
        return Chart("sleepy-throughput", title, figure, "Not measured: sleepy did not run.")
    xs, saturated = _crawl_lines(
        ax,
        document,
        SLEEPY,
        lambda p: med(p.get("plateau_pages_per_s")) or med(p.get("pages_per_s")),
        lambda p: float(p["concurrency"]),
        lambda p: p.pages_per_s,
    )
    ideal = _plot_ideal(ax, table, lambda p: float(p["concurrency"]))
    latencies = sorted({str(p["latency"]) for e in table.values() for p in e})
    _log_if_wide(ax, xs)
    if ideal and ideal[-1][0] / ideal[0][0] >= 20:
        ax.set_yscale("log")
    ax.set_xlabel(f"concurrency C (latency L = {', '.join(latencies)})")
    ax.set_ylabel("pages/s after the root page")
    ax.xaxis.set_major_formatter(_THOUSANDS)
    ax.yaxis.set_major_formatter(_THOUSANDS)
    handles = _keys(found, saturated)
    _legend(figure, [ax], handles)
    top_c = max((p["concurrency"] for e in table.values() for p in e), default=0)
    fractions = {
        m: 100.0 * p["fraction_of_ideal"]
        for m, entries in table.items()
        for p in entries
        if p["concurrency"] == top_c and p.get("fraction_of_ideal") is not None
    }
    text = (
        f"At C = {top_c:,}, share of the ideal C/L: {_rank(fractions, '%', True)}."
        if fractions
        else "No verified sleepy point has a throughput."
    )
    missing = sorted(set(table) - set(fractions))
    if missing and fractions:
        text += f" No verified run at C = {top_c:,} for {', '.join(missing)}."
    return Chart("sleepy-throughput", title, figure, text + _problem_lines(found))


def chart_few_active(document: dict[str, Any]) -> Chart:
    """Pages/s and CPU per page against concurrency at latency 0."""
    title = "A few very active connections (latency 0): speed and CPU per page"
    figure, (left, right) = _figure(1, 2)
    figure.suptitle(title)
    table = points(document, FEW_ACTIVE)
    found = problems(document, FEW_ACTIVE)
    if not table:
        _no_data(left, "the few-active scenario did not run")
        _no_data(right, "")
        return Chart(FEW_ACTIVE, title, figure, "Not measured: few-active did not run.")
    xs, saturated = _crawl_lines(
        left,
        document,
        FEW_ACTIVE,
        lambda p: med(p["pages_per_s"]),
        lambda p: float(p["concurrency"]),
        lambda p: p.pages_per_s,
    )
    _crawl_lines(
        right,
        document,
        FEW_ACTIVE,
        lambda p: med(p["cpu_us_per_page"]),
        lambda p: float(p["concurrency"]),
        lambda p: p.cpu_us_per_page,
    )
    for ax in (left, right):
        _log_if_wide(ax, xs)
        ax.set_xlabel("concurrency C")
        ax.xaxis.set_major_formatter(_THOUSANDS)
        ax.set_ylim(bottom=0)
    left.set_ylabel("pages/s")
    right.set_ylabel("crawler CPU per page (µs, user + sys)")
    left.set_title("pages/s (higher is better)", fontsize=10)
    right.set_title("CPU per page (lower is better)", fontsize=10)
    _legend(figure, [left, right], _keys(found, saturated))
    top_c = max((p["concurrency"] for e in table.values() for p in e), default=0)
    rate = {
        m: med(p["pages_per_s"]) or 0.0
        for m, e in table.items()
        for p in e
        if p["concurrency"] == top_c
    }
    cpu = {
        m: med(p["cpu_us_per_page"]) or 0.0
        for m, e in table.items()
        for p in e
        if p["concurrency"] == top_c
    }
    text = (
        f"At C = {top_c:,}: {_rank(rate, 'pages/s', True)}. "
        f"CPU per page: {_rank(cpu, 'µs', False)}."
    )
    if saturated:
        text += " Hollow points: the test server was CPU-bound, so pages/s there is its limit."
    return Chart(FEW_ACTIVE, title, figure, text + _problem_lines(found))


def _latency_ms(quantile: str) -> Callable[[dict[str, Any]], float]:
    def value(point: dict[str, Any]) -> float:
        return (med(point[f"latency_{quantile}_s"]) or 0.0) * 1000.0

    return value


def _latency_x(point: dict[str, Any]) -> float:
    return latency_seconds(point["latency"]) * 1000.0


def chart_latency(document: dict[str, Any]) -> Chart:
    """Fetch latency p50 and p99 against concurrency, in few-active and sleepy."""
    title = "Fetch latency (connect to last byte) against concurrency"
    figure, axes = _figure(2, 2, height=8.0)
    figure.suptitle(title)
    texts = []
    for row, scenario in enumerate((FEW_ACTIVE, SLEEPY)):
        table = points(document, scenario)
        for col, quantile in enumerate(("p50", "p99")):
            ax = axes[row * 2 + col]
            if not table:
                _no_data(ax, f"{scenario} did not run")
                continue
            xs, _ = _crawl_lines(
                ax,
                document,
                scenario,
                _latency_ms(quantile),
                lambda p: float(p["concurrency"]),
                None,
            )
            _log_if_wide(ax, xs)
            ax.set_ylim(bottom=0)
            ax.set_title(f"{scenario}: {quantile}", fontsize=10)
            ax.set_xlabel("concurrency C")
            ax.set_ylabel(f"{quantile} latency (ms)")
            ax.xaxis.set_major_formatter(_THOUSANDS)
        if table:
            top_c = max((p["concurrency"] for e in table.values() for p in e), default=0)
            p99 = {
                m: (med(p["latency_p99_s"]) or 0.0) * 1000.0
                for m, e in table.items()
                for p in e
                if p["concurrency"] == top_c
            }
            texts.append(f"{scenario} at C = {top_c:,}, p99: {_rank(p99, 'ms', False, 1)}")
        else:
            texts.append(f"{scenario} did not run")
    _legend(figure, axes)
    return Chart("latency", title, figure, "; ".join(texts) + ".")


def chart_latency_sweep(document: dict[str, Any]) -> Chart:
    """Pages/s and CPU per page against the server's latency, at a fixed concurrency."""
    title = "Latency sweep: where each model stops being CPU-bound"
    figure, (left, right) = _figure(1, 2)
    figure.suptitle(title)
    table = points(document, LATENCY_SWEEP)
    found = problems(document, LATENCY_SWEEP)
    if not table:
        _no_data(left, "the latency-sweep scenario did not run")
        _no_data(right, "")
        return Chart(LATENCY_SWEEP, title, figure, "Not measured: latency-sweep did not run.")
    x_of = _latency_x
    xs, saturated = _crawl_lines(
        left,
        document,
        LATENCY_SWEEP,
        lambda p: med(p["pages_per_s"]),
        x_of,
        lambda p: p.pages_per_s,
    )
    _crawl_lines(
        right,
        document,
        LATENCY_SWEEP,
        lambda p: med(p["cpu_us_per_page"]),
        x_of,
        lambda p: p.cpu_us_per_page,
    )
    _plot_ideal(left, table, x_of)
    concurrency = sorted({p["concurrency"] for e in table.values() for p in e})
    for ax in (left, right):
        if any(v > 0 for v in xs):
            ax.set_xscale("symlog", linthresh=1.0)
        _ticks_at(ax, sorted(set(xs)))
        ax.set_xlabel(f"server latency (ms), C = {', '.join(f'{c:,}' for c in concurrency)}")
        ax.set_ylim(bottom=0)
    left.set_ylabel("pages/s")
    right.set_ylabel("crawler CPU per page (µs)")
    left.set_title("pages/s (higher is better)", fontsize=10)
    right.set_title("CPU per page (lower is better)", fontsize=10)
    _legend(figure, [left, right], _keys(found, saturated))
    latencies = sorted({p["latency"] for e in table.values() for p in e}, key=latency_seconds)
    texts = []
    for latency in (latencies[0], latencies[-1]) if len(latencies) > 1 else latencies:
        rate = {
            m: med(p["pages_per_s"]) or 0.0
            for m, e in table.items()
            for p in e
            if p["latency"] == latency
        }
        fraction = [
            float(p["fraction_of_ideal"])
            for e in table.values()
            for p in e
            if p["latency"] == latency and p.get("fraction_of_ideal")
        ]
        line = f"at latency {latency}: {_rank(rate, 'pages/s', True)}"
        if fraction:
            line += f" (best {max(fraction):.0%} of the ideal C/L)"
        texts.append(line)
    text = "; ".join(texts)
    return Chart(
        LATENCY_SWEEP, title, figure, text[0].upper() + text[1:] + "." + _problem_lines(found)
    )


CHARTS: tuple[Callable[[dict[str, Any]], Chart], ...] = (
    chart_memory_per_connection,
    chart_plateau_rss,
    chart_idle_units,
    chart_sleepy_throughput,
    chart_few_active,
    chart_latency,
    chart_latency_sweep,
)
CHART_NAMES: tuple[str, ...] = (
    "memory-per-connection",
    "plateau-rss",
    "idle-units",
    "sleepy-throughput",
    FEW_ACTIVE,
    "latency",
    LATENCY_SWEEP,
)


def draw_all(document: dict[str, Any]) -> list[Chart]:
    """Every chart, drawn with the same settings; close each figure after saving it."""
    with plt.rc_context(FIXED_RC):
        return [draw(document) for draw in CHARTS]


def save(chart: Chart, directory: Path) -> tuple[Path, Path]:
    """Write CHART as PNG and SVG into directory; return both paths."""
    png = directory / f"{chart.name}.png"
    svg = directory / f"{chart.name}.svg"
    with plt.rc_context(FIXED_RC):
        chart.figure.savefig(png, dpi=110, metadata={"Software": None})
        chart.figure.savefig(svg, metadata={"Date": None, "Creator": None})
    plt.close(chart.figure)
    return png, svg


def unused_scenario_note(document: dict[str, Any]) -> list[str]:
    """Scenarios with no run at all, for the page's header."""
    return [s for s in catalog.SCENARIOS if not scenario_ran(document, s)]
