"""A measured quantity as one typed value: its value, interval, method, count and unit."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

# How each kind of interval is made, as the report names it beside the interval
# (docs/intervals.md): a level is always part of the name.
FIT = "fit, 95%"  # a least-squares slope's t-interval
T_95 = "t, 95%"  # a t-interval over runs (ratios: paired by round, over the points)
PAIRED_ROUNDS = "paired rounds, {:.2%}"  # the sequential look it stopped at
MEDIAN_OF = "median of {}, Bonferroni, 95%"  # the median of k figures' intervals

Unit = Literal[
    "pages/s",
    "us/page",
    "instructions/page",
    "s",
    "ms",
    "bytes",
    "KiB",
    "ratio",
    "share",
    "percent",
    "per-second",
]


@dataclass(frozen=True)
class Interval:
    """A closed interval [low, high]: where a figure lies with its method's confidence."""

    low: float
    high: float

    def as_list(self) -> list[float]:
        return [self.low, self.high]

    def scaled(self, factor: float) -> Interval:
        """The interval of the figure times a positive factor."""
        return Interval(self.low * factor, self.high * factor)


@dataclass(frozen=True)
class Spread:
    """How repeated measurements of a figure spread: range, IQR and coefficient of variation
    (noisy: the CV above c10k.stats.CV_FLAG)."""

    minimum: float | None
    maximum: float | None
    iqr: float | None
    cv: float | None
    noisy: bool


@dataclass(frozen=True)
class Quantity:
    """A figure as it goes from analysis through results.json to the report: its value (the
    median over runs, a slope, a ratio), its interval (None: from one run, or none could be
    made), the method that made the interval, the runs or rounds it rests on, and its unit;
    for a figure over repeated runs, their spread."""

    value: float | None
    interval: Interval | None
    method: str
    n: int
    unit: Unit
    spread: Spread | None = None

    def scaled(self, factor: float, unit: Unit) -> Quantity:
        """The same figure in another unit: value, interval and spread times factor."""
        spread = self.spread
        if spread is not None:
            spread = replace(
                spread,
                minimum=_times(spread.minimum, factor),
                maximum=_times(spread.maximum, factor),
                iqr=_times(spread.iqr, abs(factor)),
            )
        interval = None if self.interval is None else self.interval.scaled(factor)
        value = _times(self.value, factor)
        return replace(self, value=value, interval=interval, unit=unit, spread=spread)


def _times(value: float | None, factor: float) -> float | None:
    return None if value is None else value * factor


def value_of(found: Quantity | None) -> float | None:
    """A quantity's value; None without the quantity."""
    return None if found is None else found.value


def known(value: float) -> float | None:
    """A computed figure as a quantity holds it: NaN and infinities (undefined) as None."""
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class Fit:
    """A least-squares line as recorded: its slope (a quantity, its interval the fit's),
    intercept and R², and where a repeat run's slope should fall (docs/intervals.md)."""

    slope: Quantity
    intercept: float | None
    r2: float | None
    repeat: Interval | None
