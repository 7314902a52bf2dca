"""Per-figure verdicts between two suite runs: the rules, the judging, and reading the files."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.regress.environment import ENVIRONMENT_KEY
from bench.regress.significance import mann_whitney_u
from c10k import catalog
from c10k.stats import median

ALPHA = 0.05  # two-sided significance level of the Mann-Whitney U test
MIN_SAMPLES_FOR_TEST = 3  # per side; fewer and a figure is judged by its size alone
REFERENCE_MODEL = catalog.THREADS.name  # ratios between models are taken against this one
# A figure's gate is at least this many of its spreads wide: a clean run, which moves the
# figure by at most about one spread, stays well inside it.
SPREAD_FACTOR = 3.0
# Clean runs `tox -e baseline` measures by default; fewer give a spread that is only a guess.
BASELINE_RUNS = 5
SPREAD_KEY = "spread"  # where a baseline keeps each figure's spread: extra_info[SPREAD_KEY]


@dataclass(frozen=True)
class Spread:
    """How far one figure moved over clean runs of one tree: spread, (max - min) / median of
    the runs' medians; threshold, the regression past which it fails the gate."""

    runs: int
    spread: float
    threshold: float
    run_medians: tuple[float, ...] = ()


def relative_spread(values: Sequence[float]) -> float:
    """(max - min) / median: 0 for fewer than two values; infinite around a zero median."""
    if len(values) < 2:
        return 0.0
    width = max(values) - min(values)
    centre = abs(median(values))
    if centre == 0:
        return 0.0 if width == 0 else float("inf")
    return width / centre


def gate_threshold(fixed_gate: float, spread: float) -> float:
    """A figure's gate: its fixed gate, or SPREAD_FACTOR times its spread if that is wider."""
    return max(fixed_gate, SPREAD_FACTOR * spread)


def spread_of(run_medians: Sequence[float], fixed_gate: float) -> Spread:
    """The spread of one figure over the medians of its clean runs, and its threshold."""
    spread = relative_spread(run_medians)
    threshold = gate_threshold(fixed_gate, spread)
    return Spread(len(run_medians), spread, threshold, tuple(run_medians))


def read_spread(record: Any, fixed_gate: float) -> Spread | None:
    """A spread as a baseline records it, or None when it is not one. A record without a
    threshold gets the one its spread sets; one below the figure's fixed gate is raised to
    it: a recorded spread only ever widens a gate."""
    if not isinstance(record, Mapping):
        return None
    try:
        runs, spread = int(record["runs"]), float(record["spread"])
        threshold = float(record.get("threshold", gate_threshold(fixed_gate, spread)))
        medians = tuple(float(v) for v in record.get("run_medians", ()))
    except (KeyError, TypeError, ValueError):
        return None
    return Spread(runs, spread, max(threshold, fixed_gate), medians)


@dataclass(frozen=True)
class FigureRule:
    """How one figure is judged. noise: a relative change this small is never called a change
    (its measured spread, docs/regression.md). gate: a regression larger than this fails the
    run (a baseline's recorded Spread may widen it); None: reported, never gated (it does not
    hold still here). deterministic: it repeats to 0.1% from run to run on one environment,
    so its size alone is the evidence (no significance test), and CI gates it."""

    higher_is_better: bool
    noise: float
    gate: float | None
    better: str = "faster"
    worse: str = "slower"
    deterministic: bool = False


# Chosen from five runs of one tree on the development machine (docs/regression.md):
# instruction counts and memory per idle unit moved by 0.2% or less between runs, so they
# gate. CPU and wall time moved by 13-18% (median) and 35-50% (90th percentile) between
# runs of the same tree, so they never gate, and their noise floor is that 90th percentile:
# smaller changes are not called changes here (rounds within one run share the machine's
# state, so the U test alone would call a drift between runs significant).
FIGURE_RULES: dict[str, FigureRule] = {
    "instructions_per_page": FigureRule(False, noise=0.01, gate=0.03, deterministic=True),
    # A ratio moves when either model moves, so it explains a change but never gates one.
    "ratio_instructions_per_page": FigureRule(False, noise=0.01, gate=None, deterministic=True),
    "tracemalloc_bytes_per_unit": FigureRule(
        False, 0.01, 0.03, "smaller", "larger", deterministic=True
    ),
    "rss_bytes_per_unit": FigureRule(False, 0.02, 0.05, "smaller", "larger", deterministic=True),
    "max_rss_kib": FigureRule(False, 0.02, 0.10, "smaller", "larger"),
    "cpu_us_per_page": FigureRule(False, noise=0.35, gate=None),
    "ratio_cpu_us_per_page": FigureRule(False, noise=0.40, gate=None),
    "pages_per_s": FigureRule(True, noise=0.40, gate=None),
    "crawl_wall_s": FigureRule(False, noise=0.40, gate=None),
    "time": FigureRule(False, noise=0.35, gate=None),
}


GATED = frozenset(figure for figure, rule in FIGURE_RULES.items() if rule.gate is not None)
DETERMINISTIC = frozenset(figure for figure, rule in FIGURE_RULES.items() if rule.deterministic)
DEFAULT_RULE = FigureRule(False, noise=0.05, gate=None)  # a figure this module does not know yet
NO_CHANGE = "no significant change"


class BadFile(Exception):
    """A file that is not a readable pytest-benchmark result of this suite."""


# -- reading the files --------------------------------------------------------------------

Figures = dict[tuple[str, str], list[float]]  # (benchmark name, figure) -> per-round samples
Spreads = dict[tuple[str, str], Spread]  # (benchmark name, figure) -> spread over clean runs


@dataclass(frozen=True)
class Run:
    """One suite run: its figures, the environment it recorded (None in older files), its
    JSON, and the spreads a baseline recorded (none in a plain run or an older baseline)."""

    figures: Figures
    environment: dict[str, Any] | None
    document: dict[str, Any]
    spreads: Spreads = field(default_factory=dict)


def load_run(path: Path) -> Run:
    """A saved pytest-benchmark file of this suite, read and checked."""
    try:
        document = json.loads(path.read_text())
    except FileNotFoundError:
        raise BadFile(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadFile(f"{path}: cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise BadFile(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    return read_run(document, str(path))


def read_run(document: Any, source: str) -> Run:
    """A pytest-benchmark document of this suite, checked (source names it in the errors)."""
    benchmarks = document.get("benchmarks") if isinstance(document, dict) else None
    if not isinstance(benchmarks, list):
        raise BadFile(f"{source}: not a pytest-benchmark file (no 'benchmarks' list)")
    figures: Figures = {}
    spreads: Spreads = {}
    for entry in benchmarks:
        try:
            name = entry["name"]
            samples = entry.get("extra_info", {}).get("samples", {})
            for figure, values in samples.items():
                if values:
                    figures[(name, figure)] = [float(v) for v in values]
            spreads.update(recorded_spreads(name, entry.get("extra_info", {})))
            data = entry["stats"].get("data")
            if data and not name.startswith("test_instructions"):  # valgrind's time: no use
                figures[(name, "time")] = [float(v) for v in data]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise BadFile(f"{source}: malformed benchmark entry ({exc!r})") from None
    if not figures:
        raise BadFile(f"{source}: no figures (was it written by `pytest bench/regress/suites`?)")
    figures.update(model_ratios(benchmarks, figures))
    machine_info = document.get("machine_info") or {}
    environment = machine_info.get(ENVIRONMENT_KEY) if isinstance(machine_info, dict) else None
    environment = environment if isinstance(environment, dict) else None
    return Run(figures, environment, document, spreads)


def recorded_spreads(name: str, extra_info: dict[str, Any]) -> Spreads:
    """The spreads of one benchmark's gated figures, as a baseline records them."""
    recorded = extra_info.get(SPREAD_KEY)
    found: Spreads = {}
    if not isinstance(recorded, dict):
        return found
    for figure, record in recorded.items():
        gate = FIGURE_RULES.get(figure, DEFAULT_RULE).gate
        spread = read_spread(record, gate) if gate is not None else None
        if spread is not None:
            found[(name, figure)] = spread
    return found


def model_ratios(benchmarks: list[dict[str, Any]], figures: Figures) -> Figures:
    """Each model's figure over the reference model's median in the same run: machine-wide
    drifts (a slower runner, a busier neighbour) cancel in these."""
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
    threshold: float | None = None  # the gate this figure was judged against (None: ungated)
    spread: Spread | None = None  # the baseline's spread of it, which set the threshold

    @property
    def gated(self) -> bool:
        return self.threshold is not None

    @property
    def changed(self) -> bool:
        return self.verdict != NO_CHANGE

    @property
    def improved(self) -> bool:
        return self.changed and self.verdict == FIGURE_RULES.get(self.figure, DEFAULT_RULE).better

    def headline(self) -> str:
        """'callbacks: instructions per page +5.1% (1,514,800 -> 1,592,000)': for a summary."""
        return (
            f"{subject(self.benchmark)}: {self.figure.replace('_', ' ')} {self.change:+.1%} "
            f"({format_value(self.base)} -> {format_value(self.new)})"
        )

    def gate_text(self) -> str:
        """'gate +3.0% (spread 0.42% over 5 runs)', or '(fixed)' where no spread was recorded."""
        if self.threshold is None:
            return "not gated"
        if self.spread is None:
            return f"gate {self.threshold:+.1%} (fixed)"
        spread = self.spread
        return f"gate {self.threshold:+.1%} (spread {spread.spread:.2%} over {spread.runs} runs)"

    def line(self) -> str:
        p_text = "n/a" if self.p_value is None else f"{self.p_value:.3f}"
        flag = "  REGRESSION" if self.regressed else ""
        if self.changed and not self.gated:  # time and CPU drift between identical runs
            flag = "  (not gated: a hint, not evidence)"
        gate = f"; {self.gate_text()}" if self.gated else ""
        return (
            f"{self.benchmark} {self.figure}: {self.verdict} ({self.change:+.1%}, "
            f"{format_value(self.base)} -> {format_value(self.new)}, p={p_text}){gate}{flag}"
        )


def subject(benchmark: str) -> str:
    """What a benchmark measures, from its name: 'test_idle[thread]' -> 'idle thread'."""
    test, _, parameters = benchmark.partition("[")
    parameters = parameters.rstrip("]")
    if not parameters:
        return benchmark
    return f"idle {parameters}" if test == "test_idle" else parameters


def format_value(value: float) -> str:
    return f"{value:.4g}" if abs(value) < 1000 else f"{value:,.0f}"


def judge(
    benchmark: str,
    figure: str,
    base: Sequence[float],
    new: Sequence[float],
    spread: Spread | None = None,
) -> FigureChange:
    """One figure's change, its significance and the gate. spread: its spread over the
    baseline's clean runs, if recorded: its threshold is then the gate, and a change inside
    the spread is no change (the fixed rule otherwise)."""
    rule = FIGURE_RULES.get(figure, DEFAULT_RULE)
    spread = spread if rule.gate is not None else None
    threshold = rule.gate if spread is None else spread.threshold
    noise = rule.noise if spread is None else max(rule.noise, spread.spread)
    base_median, new_median = median(base), median(new)
    if base_median:
        change = new_median / base_median - 1
    else:  # a figure that was zero: any growth is an infinite relative change
        change = 0.0 if new_median == 0 else math.copysign(math.inf, new_median)
    # A deterministic figure's rounds repeat to the last digit, so a U test of 3 against 3
    # could never reach p < 0.05: its size past the noise floor is the evidence.
    testable = not rule.deterministic and min(len(base), len(new)) >= MIN_SAMPLES_FOR_TEST
    p_value = mann_whitney_u(base, new).p_value if testable else None
    significant = abs(change) > noise and (p_value is None or p_value < ALPHA)
    worse = change < 0 if rule.higher_is_better else change > 0
    verdict = (rule.worse if worse else rule.better) if significant else NO_CHANGE
    regressed = significant and worse and threshold is not None and abs(change) > threshold
    return FigureChange(
        benchmark,
        figure,
        base_median,
        new_median,
        change,
        p_value,
        verdict,
        regressed,
        threshold,
        spread,
    )


def compare(
    base: Figures, new: Figures, spreads: Spreads | None = None
) -> tuple[list[FigureChange], list[str]]:
    """How each figure present in both runs changed (against the spreads BASE recorded, if
    any), and the names missing from one."""
    spreads = spreads or {}
    changes = [
        judge(name, figure, base[(name, figure)], new[(name, figure)], spreads.get((name, figure)))
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
