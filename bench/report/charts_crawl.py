"""The crawl charts: sleepy throughput, few active connections, latency, the latency sweep, and
instructions per page split into the shared core and each model's own."""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter

from matplotlib.axes import Axes
from matplotlib.patches import Patch

from bench.report import captions
from bench.report import chart_kit as kit
from bench.report.chart_lines import Lines, crawl_lines, plot_ideal
from bench.report.palette import model_order, style
from bench.results import (
    LatencySweepHighlights,
    Point,
    Results,
    SleepyHighlights,
    crossed_runs,
    highlights,
    instructions_table,
    scenario_points,
)
from c10k import catalog, words
from c10k.durations import Latency

FEW_ACTIVE, SLEEPY = catalog.FEW_ACTIVE.name, catalog.SLEEPY.name
FEW_ACTIVE_KEEP_ALIVE = catalog.FEW_ACTIVE_KEEP_ALIVE.name
SLEEPY_KEEP_ALIVE = catalog.SLEEPY_KEEP_ALIVE.name
LATENCY_SWEEP = catalog.LATENCY_SWEEP.name


NO_COUNTED_RUN = "has no run that counted (see the runs that did not count)"


def _concurrency(point: Point) -> float:
    return float(point["concurrency"])


def _latency_ms(point: Point) -> float:
    return point["latency"].mean_s * 1000.0


def _latencies(table: dict[str, list[Point]]) -> list[Latency]:
    """The server latencies a scenario ran at, shortest first ('2s' before '10s')."""
    return sorted({p["latency"] for e in table.values() for p in e}, key=lambda k: k.mean_s)


def chart_sleepy_throughput(document: Results, scenario: str = SLEEPY) -> kit.Chart:
    """Plateau pages/s against concurrency in a sleepy scenario, with the ideal C/L: one panel
    per server latency, so that no line joins points of two latencies."""
    name = f"{scenario}-throughput"
    table = scenario_points(document["derived"], scenario)
    latencies = _latencies(table)
    title, figure, axes = kit.new_figure(name, 1, max(len(latencies), 1))
    found = crossed_runs(document["derived"], scenario)
    if not table:
        return kit.not_run(name, title, figure, axes, scenario)
    if not latencies:  # it ran, and no run counted: every round noisy, or every run failed
        return kit.not_run(name, title, figure, axes, scenario, NO_COUNTED_RUN)
    highlighted = highlights(document["derived"], scenario, SleepyHighlights)
    judged = highlighted.get("judged_latency") if highlighted else None
    saturated = bars = False
    for ax, latency in zip(axes, latencies, strict=True):
        drawn = crawl_lines(
            ax,
            document,
            scenario,
            lambda p: p.get("plateau_pages_per_s") or p.get("pages_per_s"),
            _concurrency,
            lambda p: p.pages_per_s,
            latency=latency,
        )
        at = {m: [p for p in e if p["latency"] == latency] for m, e in table.items()}
        ideal = plot_ideal(ax, at, _concurrency)
        kit.log_if_wide(ax, drawn.xs)
        kit.ticks_at(ax, sorted({float(p["concurrency"]) for e in at.values() for p in e}))
        kit.y_scale(ax, drawn.ys + [y for _, y in ideal])
        judged_here = len(latencies) > 1 and latency == judged
        ax.set_title(f"L = {latency.text}" + (" (the answer is read here)" if judged_here else ""),
                     fontsize=10)  # fmt: skip
        ax.set_xlabel("concurrency C")
        ax.xaxis.set_major_formatter(kit.THOUSANDS)
        saturated, bars = saturated or drawn.saturated, bars or drawn.bars
    axes[0].set_ylabel("pages/s after the root page")
    kit.legend(figure, axes, kit.marker_keys(found, saturated, bars))
    caption = captions.sleepy_throughput_caption(document, scenario)
    return kit.Chart(name, title, figure, caption + captions.bars_note(bars))


def _speed_and_cpu(
    document: Results,
    scenario: str,
    axes: tuple[Axes, Axes],
    x_of: Callable[[Point], float],
    ideal: list[tuple[float, float]] | None = None,
) -> Lines:
    """Pages/s on the left axes, CPU per page on the right, one line per model; each axis
    linear from 0, or log where its values (and the ideal's, on the left) span 10x."""
    left, right = axes
    speed = crawl_lines(
        left, document, scenario, lambda p: p["pages_per_s"], x_of, lambda p: p.pages_per_s
    )
    cpu = crawl_lines(
        right,
        document,
        scenario,
        lambda p: p["cpu_us_per_page"],
        x_of,
        lambda p: p.cpu_us_per_page,
    )
    left.set_title("pages/s (higher is better)", fontsize=10)
    right.set_title("CPU per page (lower is better)", fontsize=10)
    kit.y_scale(left, speed.ys + [y for _, y in ideal or []])
    kit.y_scale(right, cpu.ys)
    return Lines(speed.xs, speed.saturated, speed.bars or cpu.bars, speed.ys)


def chart_few_active(document: Results, scenario: str = FEW_ACTIVE) -> kit.Chart:
    """Pages/s and CPU per page against concurrency at latency 0, in one connection mode."""
    title, figure, (left, right) = kit.new_figure(scenario, 1, 2)
    if not scenario_points(document["derived"], scenario):
        return kit.not_run(scenario, title, figure, [left, right], scenario)
    drawn = _speed_and_cpu(document, scenario, (left, right), _concurrency)
    for ax in (left, right):
        kit.log_if_wide(ax, drawn.xs)
        ax.set_xlabel("concurrency C")
        ax.xaxis.set_major_formatter(kit.THOUSANDS)
    left.set_ylabel("pages/s")
    right.set_ylabel("crawler CPU per page (µs, user + sys)")
    found = crossed_runs(document["derived"], scenario)
    kit.legend(figure, [left, right], kit.marker_keys(found, drawn.saturated, drawn.bars))
    caption = captions.few_active_caption(document, drawn.saturated, scenario)
    return kit.Chart(scenario, title, figure, caption + captions.bars_note(drawn.bars))


def chart_latency(document: Results) -> kit.Chart:
    """Fetch latency p50 and p99 against concurrency, in few-active and sleepy."""
    name = "latency"
    title, figure, axes = kit.new_figure(name, 2, 2, height=8.0)
    bars = False
    for row, scenario in enumerate((FEW_ACTIVE, SLEEPY)):
        table = scenario_points(document["derived"], scenario)
        for col, quantile in enumerate(("p50", "p99")):
            ax = axes[row * 2 + col]
            if not table:
                kit.no_data(ax, f"{scenario} did not run")
                continue
            median = itemgetter(f"latency_{quantile}_s")
            drawn = crawl_lines(ax, document, scenario, median, _concurrency, None, 1e3)
            bars = drawn.bars or bars
            kit.log_if_wide(ax, drawn.xs)
            kit.y_scale(ax, drawn.ys)
            ax.set_title(f"{scenario}: {quantile}", fontsize=10)
            ax.set_xlabel("concurrency C")
            ax.set_ylabel(f"{quantile} latency (ms)")
            ax.xaxis.set_major_formatter(kit.THOUSANDS)
    kit.legend(figure, axes, kit.marker_keys([], False, bars))
    caption = captions.latency_caption(document) + captions.bars_note(bars)
    return kit.Chart(name, title, figure, caption)


def chart_latency_sweep(document: Results) -> kit.Chart:
    """Pages/s and CPU per page against the server's latency, at a fixed concurrency."""
    title, figure, (left, right) = kit.new_figure(LATENCY_SWEEP, 1, 2)
    table = scenario_points(document["derived"], LATENCY_SWEEP)
    if not table:
        return kit.not_run(LATENCY_SWEEP, title, figure, [left, right], LATENCY_SWEEP)
    ideal = plot_ideal(left, table, _latency_ms)
    drawn = _speed_and_cpu(document, LATENCY_SWEEP, (left, right), _latency_ms, ideal)
    sweep = highlights(document["derived"], LATENCY_SWEEP, LatencySweepHighlights)
    concurrency = sweep["concurrencies"] if sweep else []
    for ax in (left, right):
        if any(v > 0 for v in drawn.xs):
            ax.set_xscale("symlog", linthresh=1.0)
        kit.ticks_at(ax, sorted(set(drawn.xs)))
        ax.set_xlabel(f"server latency (ms), C = {words.counts(concurrency)}")
    left.set_ylabel("pages/s")
    right.set_ylabel("crawler CPU per page (µs)")
    found = crossed_runs(document["derived"], LATENCY_SWEEP)
    kit.legend(figure, [left, right], kit.marker_keys(found, drawn.saturated, drawn.bars))
    caption = captions.latency_sweep_caption(document) + captions.bars_note(drawn.bars)
    return kit.Chart(LATENCY_SWEEP, title, figure, caption)


def chart_sleepy_keep_alive_throughput(document: Results) -> kit.Chart:
    return chart_sleepy_throughput(document, SLEEPY_KEEP_ALIVE)


def chart_few_active_keep_alive(document: Results) -> kit.Chart:
    return chart_few_active(document, FEW_ACTIVE_KEEP_ALIVE)


INSTRUCTIONS = captions.INSTRUCTIONS
CORE_GREY = "#9E9E9E"  # the shared core's part of a model's instructions


def _instruction_counts(document: Results) -> tuple[float | None, dict[str, float]]:
    """The core replay's instructions per page, and each model's."""
    table = instructions_table(document["derived"])
    counts = {
        name: float(median)
        for name, entry in table.items()
        if (found := entry.get("instructions_per_page")) and (median := found.value) is not None
    }
    return counts.pop(catalog.CORE_REPLAY, None), counts


def chart_instructions(document: Results) -> kit.Chart:
    """Per model, instructions per page (callgrind) as the shared core (the core replay's
    count) and the rest, the model's own scheduling; the core replay alone on top."""
    core, counts = _instruction_counts(document)
    models = model_order(list(counts))
    title, figure, (ax,) = kit.new_figure(INSTRUCTIONS, height=kit.rows_height(len(models) + 1))
    if not counts:
        kit.no_data(ax, "no instructions were counted (valgrind absent, or quick)")
        return kit.Chart(INSTRUCTIONS, title, figure, "Not measured.")
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
    return kit.Chart(INSTRUCTIONS, title, figure, caption)
