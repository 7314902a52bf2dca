"""`c10k compare BASE.json NEW.json`: per-figure verdicts between two suite runs, and the gate."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from c10k import catalog
from c10k.stats import median

ALPHA = 0.05  # two-sided significance level of the Mann-Whitney U test
MIN_SAMPLES_FOR_TEST = 3  # per side; fewer and a figure is judged by its size alone
REFERENCE_MODEL = catalog.THREADS.name  # ratios between models are taken against this one
EXACT_LIMIT = 50  # exact U distribution up to this many samples in all, without ties


@dataclass(frozen=True)
class FigureRule:
    """How one figure is judged.

    noise: a relative change this small is never called a change (the figure's measured
    spread, see docs/regression.md). gate: a regression larger than this fails the run;
    None means the figure is reported but never gates (it does not hold still here).
    """

    higher_is_better: bool
    noise: float
    gate: float | None
    better: str = "faster"
    worse: str = "slower"


# Chosen from five runs of one tree on the development machine (docs/regression.md):
# instruction counts and memory per idle unit moved by 0.2% or less between runs, so they
# gate. CPU and wall time moved by 13-18% (median) and 35-50% (90th percentile) between
# runs of the same tree, so they never gate, and their noise floor is that 90th percentile:
# smaller changes are not called changes here (rounds within one run share the machine's
# state, so the U test alone would call a drift between runs significant).
FIGURE_RULES: dict[str, FigureRule] = {
    "instructions_per_page": FigureRule(False, noise=0.01, gate=0.03),
    # A ratio moves when either model moves, so it explains a change but never gates one.
    "ratio_instructions_per_page": FigureRule(False, noise=0.01, gate=None),
    "tracemalloc_bytes_per_unit": FigureRule(False, 0.01, 0.03, "smaller", "larger"),
    "rss_bytes_per_unit": FigureRule(False, 0.02, 0.05, "smaller", "larger"),
    "max_rss_kib": FigureRule(False, 0.02, 0.10, "smaller", "larger"),
    "cpu_us_per_page": FigureRule(False, noise=0.35, gate=None),
    "ratio_cpu_us_per_page": FigureRule(False, noise=0.40, gate=None),
    "pages_per_s": FigureRule(True, noise=0.40, gate=None),
    "crawl_wall_s": FigureRule(False, noise=0.40, gate=None),
    "time": FigureRule(False, noise=0.35, gate=None),
}


GATED = frozenset(figure for figure, rule in FIGURE_RULES.items() if rule.gate is not None)
DEFAULT_RULE = FigureRule(False, noise=0.05, gate=None)  # a figure this module does not know yet
NO_CHANGE = "no significant change"


class BadFile(Exception):
    """A file that is not a readable pytest-benchmark result of this suite."""


# -- the significance test ----------------------------------------------------------------


@dataclass(frozen=True)
class MannWhitney:
    """U of the first sample and the two-sided p-value; method says how p was computed."""

    u: float
    p_value: float
    method: str  # "exact" or "normal"


def average_ranks(values: Sequence[float]) -> list[float]:
    """Ranks from 1, ties given the mean of the ranks they span."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in range(start, end + 1):
            ranks[order[position]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


@cache
def u_counts(m: int, n: int) -> tuple[int, ...]:
    """How many of the C(m+n, m) orderings give U = 0, 1, ..., m*n (no ties)."""
    if m == 0 or n == 0:
        return (1,)
    # The largest value belongs to the first sample (adding n to U) or to the second.
    with_first = u_counts(m - 1, n)
    with_second = u_counts(m, n - 1)
    counts = [0] * (m * n + 1)
    for u, ways in enumerate(with_first):
        counts[u + n] += ways
    for u, ways in enumerate(with_second):
        counts[u] += ways
    return tuple(counts)


def mann_whitney_u(xs: Sequence[float], ys: Sequence[float]) -> MannWhitney:
    """Two-sided Mann-Whitney U test of xs against ys.

    Exact p-value when there are no ties and few samples; otherwise the normal
    approximation with the tie correction and a continuity correction.
    """
    m, n = len(xs), len(ys)
    if m == 0 or n == 0:
        raise ValueError("the Mann-Whitney U test needs at least one value on each side")
    ranks = average_ranks([*xs, *ys])
    u = sum(ranks[:m]) - m * (m + 1) / 2
    has_ties = len(set(ranks)) < len(ranks)
    if not has_ties and m + n <= EXACT_LIMIT:
        counts = u_counts(m, n)
        total = math.comb(m + n, m)
        low = sum(counts[: int(u) + 1]) / total
        high = sum(counts[int(u) :]) / total
        return MannWhitney(u, min(1.0, 2 * min(low, high)), "exact")
    total_n = m + n
    tie_sizes: dict[float, int] = {}
    for rank in ranks:
        tie_sizes[rank] = tie_sizes.get(rank, 0) + 1
    tie_term = sum(t**3 - t for t in tie_sizes.values()) / (total_n * (total_n - 1))
    variance = m * n / 12 * ((total_n + 1) - tie_term)
    if variance == 0:  # every value equal: nothing tells the samples apart
        return MannWhitney(u, 1.0, "normal")
    z = (abs(u - m * n / 2) - 0.5) / math.sqrt(variance)
    p_value = math.erfc(max(z, 0.0) / math.sqrt(2))
    return MannWhitney(u, min(1.0, p_value), "normal")


# -- reading the files --------------------------------------------------------------------

Figures = dict[tuple[str, str], list[float]]  # (benchmark name, figure) -> per-round samples


def load_figures(path: Path) -> Figures:
    """Every figure of a saved pytest-benchmark file, with ratios between models added."""
    try:
        document = json.loads(path.read_text())
    except FileNotFoundError:
        raise BadFile(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadFile(f"{path}: cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise BadFile(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    benchmarks = document.get("benchmarks") if isinstance(document, dict) else None
    if not isinstance(benchmarks, list):
        raise BadFile(f"{path}: not a pytest-benchmark file (no 'benchmarks' list)")
    figures: Figures = {}
    for entry in benchmarks:
        try:
            name = entry["name"]
            samples = entry.get("extra_info", {}).get("samples", {})
            for figure, values in samples.items():
                if values:
                    figures[(name, figure)] = [float(v) for v in values]
            data = entry["stats"].get("data")
            if data and not name.startswith("test_instructions"):  # valgrind's time: no use
                figures[(name, "time")] = [float(v) for v in data]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise BadFile(f"{path}: malformed benchmark entry ({exc!r})") from None
    if not figures:
        raise BadFile(f"{path}: no figures (was it written by `pytest bench/regress/suites`?)")
    figures.update(model_ratios(benchmarks, figures))
    return figures


def model_ratios(benchmarks: list[dict[str, Any]], figures: Figures) -> Figures:
    """Each model's figure divided by the reference model's median in the same run.

    Machine-wide drifts (a slower runner, a busier neighbour) cancel in these.
    """
    by_group: dict[tuple[str, str], dict[str, str]] = {}  # (group, figure) -> model -> name
    for entry in benchmarks:
        model = entry.get("extra_info", {}).get("model")
        if model is None:
            continue
        for figure in ("cpu_us_per_page", "instructions_per_page"):
            if (entry["name"], figure) in figures:
                by_group.setdefault((entry.get("group") or "", figure), {})[model] = entry["name"]
    ratios: Figures = {}
    for (_, figure), names in by_group.items():
        reference = names.get(REFERENCE_MODEL)
        if reference is None:
            continue
        denominator = median(figures[(reference, figure)])
        for model, name in names.items():
            if model != REFERENCE_MODEL and denominator > 0:
                values = [v / denominator for v in figures[(name, figure)]]
                ratios[(name, f"ratio_{figure}")] = values
    return ratios


# -- verdicts -----------------------------------------------------------------------------


@dataclass(frozen=True)
class FigureChange:
    """One figure of one benchmark, BASE against NEW: its medians, change and verdict."""

    benchmark: str
    figure: str
    base: float  # medians
    new: float
    change: float  # relative: new / base - 1
    p_value: float | None  # None: too few samples for the test
    verdict: str  # rule.better, rule.worse or "no significant change"
    regressed: bool  # a gated figure got worse past its gate
    gated: bool

    @property
    def changed(self) -> bool:
        return self.verdict != NO_CHANGE

    def line(self) -> str:
        p_text = "n/a" if self.p_value is None else f"{self.p_value:.3f}"
        flag = "  REGRESSION" if self.regressed else ""
        if self.changed and not self.gated:  # time and CPU drift between identical runs
            flag = "  (not gated: a hint, not evidence)"
        return (
            f"{self.benchmark} {self.figure}: {self.verdict} ({self.change:+.1%}, "
            f"{format_value(self.base)} -> {format_value(self.new)}, p={p_text}){flag}"
        )


def format_value(value: float) -> str:
    return f"{value:.4g}" if abs(value) < 1000 else f"{value:,.0f}"


def judge(benchmark: str, figure: str, base: Sequence[float], new: Sequence[float]) -> FigureChange:
    """Compare one figure: size of the change, its significance, and the gate."""
    rule = FIGURE_RULES.get(figure, DEFAULT_RULE)
    base_median, new_median = median(base), median(new)
    if base_median:
        change = new_median / base_median - 1
    else:  # a figure that was zero: any growth is an infinite relative change
        change = 0.0 if new_median == 0 else math.copysign(math.inf, new_median)
    testable = min(len(base), len(new)) >= MIN_SAMPLES_FOR_TEST
    p_value = mann_whitney_u(base, new).p_value if testable else None
    significant = abs(change) > rule.noise and (p_value is None or p_value < ALPHA)
    worse = change < 0 if rule.higher_is_better else change > 0
    verdict = (rule.worse if worse else rule.better) if significant else NO_CHANGE
    gated = rule.gate is not None
    regressed = significant and worse and rule.gate is not None and abs(change) > rule.gate
    return FigureChange(
        benchmark, figure, base_median, new_median, change, p_value, verdict, regressed, gated
    )


def compare(base: Figures, new: Figures) -> tuple[list[FigureChange], list[str]]:
    """How each figure present in both runs changed, and the names missing from one."""
    changes = [
        judge(name, figure, base[(name, figure)], new[(name, figure)])
        for name, figure in base
        if (name, figure) in new
    ]
    missing = [
        f"{name} {figure}: only in BASE" for name, figure in base if (name, figure) not in new
    ]
    missing += [
        f"{name} {figure}: only in NEW" for name, figure in new if (name, figure) not in base
    ]
    return changes, missing


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="c10k compare",
        description="Compare two runs of the benchmark suite (pytest-benchmark JSON files) "
        "and fail when a gated figure regresses past its threshold.",
    )
    p.add_argument(
        "base", type=Path, help="the baseline run (e.g. bench/regress/baselines/default.json)"
    )
    p.add_argument("new", type=Path, help="the run to judge")
    p.add_argument(
        "--all", action="store_true", help="print every figure, not only the changed and gated"
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Exit 0 when no gated figure regressed, 1 when one did, 2 for a bad file or option."""
    args = parser().parse_args(argv)
    try:
        base, new = load_figures(args.base), load_figures(args.new)
    except BadFile as exc:
        sys.stderr.write(f"c10k compare: error: {exc}\n")
        return 2
    changes, missing = compare(base, new)
    if not changes:
        sys.stderr.write(f"c10k compare: error: {args.base} and {args.new} share no figure\n")
        return 2
    for change in changes:
        if args.all or change.gated or change.changed:
            print(change.line())
    if args.all:
        for name in missing:
            print(f"{name}, not compared")
    elif missing:
        print(f"{len(missing)} figures are in one run only, not compared (--all lists them)")
    unjudged = [key for key in base if key not in new and key[1] in GATED]
    if unjudged:  # a skipped benchmark (no valgrind, `-k`) must not pass for a clean one
        print(f"warning: {len(unjudged)} gated figures of BASE are missing from NEW, not judged")
    regressions = [v for v in changes if v.regressed]
    gated = [v for v in changes if v.gated]
    print(
        f"compared {len(changes)} figures: {len(gated)} gated, "
        f"{sum(v.changed for v in gated)} of them changed, {len(regressions)} regressed; "
        f"{sum(v.changed for v in changes if not v.gated)} ungated figures changed"
    )
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
