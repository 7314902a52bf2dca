"""The charts read at a glance: each model against the best per workload, and each claim
against its rule's band."""

from __future__ import annotations

import math

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import NullLocator

from bench.report import captions
from bench.report.answer import Workload, workloads
from bench.report.chart_kit import Chart, fitted_legend, new_figure, no_data, rows_height
from bench.report.palette import model_order
from bench.report.verdicts import CONTRADICTED, FROM_ONE_RUN, INCONCLUSIVE, REPRODUCED, Ruling
from bench.report.verdicts.base import CLAIMS
from bench.results import Results
from c10k.words import UNITS, Entry, names, standing

HEADLINE, VERDICT_CHART = captions.HEADLINE, captions.VERDICT_CHART
SHARE_MAP = "Blues"  # sequential, readable in grey: darker is closer to the best
MISSING_GREY = "#EEEEEE"
BAND_GREEN = "#2CA25F"
VERDICT_COLOURS = {
    REPRODUCED: "#0B5D1E",
    CONTRADICTED: "#B2182B",
    INCONCLUSIVE: "#8C6D00",
    FROM_ONE_RUN: "#8C6D00",
}
NOT_JUDGED = "#777777"
DARK_SHARE = 0.62  # a cell this close to the best is dark: its text is white


def _cell(
    ax: Axes, workload: Workload, model: str, at: tuple[int, int], leaders: set[str]
) -> float:
    """One cell of the headline: the model's share of the best with its interval, its figure
    under it, framed when it leads; the share (nan when the model has no figure here)."""
    row, col = at
    entry = next((e for e in workload.entries if e.name == model), None)
    if entry is None:
        ax.text(col, row, "–", ha="center", va="center", color="#777777")
        return math.nan
    share, interval = workload.share(entry)
    spread = "1 run" if interval is None else f"{interval.low:.0%}–{interval.high:.0%}"
    ink = "white" if share > DARK_SHARE else "black"
    weight = "bold" if model in leaders else "normal"
    ax.text(col, row - 0.14, f"{share:.0%} ({spread})", ha="center", va="center", fontsize=8.5,
            fontweight=weight, color=ink)  # fmt: skip
    ax.text(col, row + 0.2, f"{workload.shown(entry.value)} {workload.measure}", ha="center",
            va="center", fontsize=7, color=ink)  # fmt: skip
    if model in leaders:
        frame = Rectangle((col - 0.48, row - 0.48), 0.96, 0.96, fill=False, linewidth=2)
        ax.add_patch(frame)
    return share


def chart_headline(document: Results) -> Chart:
    """Models by workloads, each cell the model's figure as a share of the best model's, with
    its interval on the same scale; the best and the models tied with it framed in bold."""
    columns = workloads(document)
    models = model_order(list({e.name for w in columns for e in w.entries}))
    figure, (ax,) = new_figure(HEADLINE, height=rows_height(len(models), 2.2))
    if not models:
        no_data(ax, "no workload was measured")
        return Chart(HEADLINE, figure, "Not measured.")
    ax.set_yticks(range(len(models)), models)
    shares = np.full((len(models), len(columns)), math.nan)
    for col, workload in enumerate(columns):
        leaders = {e.name for e in _ranked_leaders(workload)}
        for row, model in enumerate(models):
            shares[row, col] = _cell(ax, workload, model, (row, col), leaders)
    ax.imshow(np.ma.masked_invalid(shares), cmap=SHARE_MAP, vmin=0.2, vmax=1.05, aspect="auto")
    ax.set_facecolor(MISSING_GREY)
    ax.set_xticks(range(len(columns)), [_column_head(w) for w in columns], fontsize=8)
    ax.xaxis.tick_top()
    ax.tick_params(length=0)
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    return Chart(HEADLINE, figure, headline_caption(columns))


def _ranked_leaders(workload: Workload) -> list[Entry]:
    """The best and the models tied with it; none when the best is one run without an
    interval, as a single run cannot tell models apart (the column is then not ranked)."""
    leaders = standing(workload.entries, workload.higher_is_better).leaders
    return leaders if leaders and leaders[0].interval is not None else []


def _column_head(workload: Workload) -> str:
    better = "higher" if workload.higher_is_better else "lower"
    return f"{workload.title}\n{workload.measure}, {better} is better\n{workload.where}"


def headline_caption(columns: list[Workload]) -> str:
    """Per workload: where it was read, and the best with the models tied with it."""
    parts = []
    for w in columns:
        if not w.entries:
            parts.append(f"{w.title}: not measured")
            continue
        leaders = _ranked_leaders(w)
        if not leaders:
            parts.append(f"{w.title} ({w.where}): one run per model, not ranked")
            continue
        best = leaders[0]
        tied = f", tied within noise with {names(leaders[1:])}" if leaders[1:] else ""
        parts.append(f"{w.title} ({w.where}): best {best.name}, {w.figure(best)}{tied}")
    return (
        "Each cell: the model's figure as a share of the best model's (the best is 100%), with "
        "its 95% interval on the same scale; under it, the figure itself. Framed in bold: the "
        "best and every model whose interval overlaps the best's (tied within noise). "
        + "; ".join(parts)
        + "."
    )


def _claim_row(ax: Axes, ruling: Ruling) -> None:
    """One claim: the band that reproduces it (green), its judged figure and interval, the
    verdict at the right."""
    v = ruling.verdict
    ax.set_yticks([])
    ax.set_ylabel(CLAIMS[v.claim].short, rotation=0, ha="right", va="center", fontsize=9)
    colour = VERDICT_COLOURS.get(v.verdict, NOT_JUDGED)
    ax.text(1.01, 0.5, v.verdict, transform=ax.transAxes, va="center", fontsize=8.5, color=colour)
    if v.value is None or v.band is None or v.value <= 0:
        ax.set_xticks([])
        why = v.figure if v.missing else "no figure was judged"
        ax.text(0.5, 0.5, f"{why}: see its section", transform=ax.transAxes,
                ha="center", va="center", fontsize=8, color=NOT_JUDGED)  # fmt: skip
        return
    # The row's x range: the band's finite edges, the value and its interval, with room on
    # both sides (log scale).
    found = [x for x in (v.band.low, v.band.high) if 0 < x < math.inf] + [v.value]
    found += [x for x in (v.interval.low, v.interval.high) if x > 0] if v.interval else []
    low, high = min(found) / 2.2, max(found) * 2.2
    ax.set_xscale("log")
    ax.set_xlim(low, high)
    ax.axvspan(max(v.band.low, low), min(v.band.high, high), color=BAND_GREEN, alpha=0.22, lw=0)
    edges = [x for x in (v.band.low, v.band.high) if low < x < high]
    ax.set_xticks(edges, ["".join(v.band.bound(x, v.about.unit)) for x in edges], fontsize=7.5)
    ax.xaxis.set_minor_locator(NullLocator())
    if v.interval is not None:
        ax.plot([v.interval.low, v.interval.high], [0, 0], color="black", linewidth=2)
    ax.plot([v.value], [0], marker="o", markersize=8, color=colour, linestyle="none")
    ax.annotate(UNITS[v.about.unit].value(v.value), (v.value, 0), xytext=(0, 7),
                textcoords="offset points", ha="center", fontsize=8)  # fmt: skip
    ax.set_ylim(-1, 1.4)
    ax.grid(False)


def chart_verdicts(found: list[Ruling]) -> Chart:
    """Each claim in a row of its own scale: the band of its rule, the figure it was judged
    on with its interval, and the verdict."""
    figure, axes = new_figure(VERDICT_CHART, len(found), 1, rows_height(len(found), 1.4))
    for ax, ruling in zip(axes, found, strict=True):
        _claim_row(ax, ruling)
    keys = [
        Patch(facecolor=BAND_GREEN, alpha=0.22, label="reproduces the claim"),
        Line2D([], [], color="black", linewidth=2, label="interval (its method in the table)"),
        Line2D([], [], color="#555555", marker="o", linestyle="none", label="judged figure"),
    ]
    fitted_legend(figure, keys)
    return Chart(VERDICT_CHART, figure, verdicts_caption(found))


def verdicts_caption(found: list[Ruling]) -> str:
    """Per claim: its figure and the band it was judged against."""
    parts = [
        f"{r.verdict.claim} {r.verdict.figure} against {r.verdict.threshold}"
        for r in found
        if r.verdict.value is not None
    ]
    return (
        "Each row has its own log scale, the band of values that reproduces the claim shaded "
        "green; each interval is named by the method that made it. A count (C3, C5) needs no "
        "interval; any other figure without one decides nothing (inconclusive (one run)). "
        + "; ".join(parts)
        + "."
    )
