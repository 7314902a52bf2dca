"""A gated figure's spread over clean runs of one tree, and the gate threshold it sets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from c10k.stats import median

# A figure's gate is at least this many of its spreads wide: a clean run, which moves the
# figure by at most about one spread, stays well inside it.
SPREAD_FACTOR = 3.0
# Clean runs `tox -e baseline` measures by default; fewer give a spread that is only a guess.
BASELINE_RUNS = 5
SPREAD_KEY = "spread"  # where a baseline keeps each figure's spread: extra_info[SPREAD_KEY]


@dataclass(frozen=True)
class Spread:
    """How far one figure moved over clean runs of one tree, and the gate that follows.

    spread: (max - min) / median of the runs' medians. threshold: the relative regression
    past which the figure fails the gate, max(the figure's fixed gate, 3 x spread)."""

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
    """A spread as a baseline records it (its fields), or None when it is not one.

    A record without a threshold gets the one its spread sets; one whose threshold is below
    the figure's fixed gate is raised to it: a recorded spread only ever widens a gate."""
    if not isinstance(record, Mapping):
        return None
    try:
        runs, spread = int(record["runs"]), float(record["spread"])
        threshold = float(record.get("threshold", gate_threshold(fixed_gate, spread)))
        medians = tuple(float(v) for v in record.get("run_medians", ()))
    except (KeyError, TypeError, ValueError):
        return None
    return Spread(runs, spread, max(threshold, fixed_gate), medians)
