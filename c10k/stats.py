"""Pure statistics for benchmark results: medians, spread, variation and least-squares fits."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# A coefficient of variation above this marks a figure as noisy (docs/results.md).
CV_FLAG = 0.10


def median(values: Sequence[float]) -> float:
    """The median; NaN for no values."""
    return quantile(values, 0.5)


def quantile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile (numpy's default method); NaN for no values."""
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"quantile must be between 0 and 1, got {q}")
    return percentile(values, q * 100)


def percentile(values: Sequence[float], pct: float) -> float:
    """The pct-th percentile (0 to 100), linear-interpolated like numpy; NaN for no values.

    The rank is (n - 1) * pct / 100: for the quartiles and the median that is exactly
    (n - 1) * q, and it is what `c10k crawl --json` has always reported for p90 and p99."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    rank = (len(ordered) - 1) * pct / 100
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def iqr(values: Sequence[float]) -> float:
    """Interquartile range (q3 - q1); 0 for one value, NaN for none."""
    return quantile(values, 0.75) - quantile(values, 0.25)


def mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else math.nan


def stdev(values: Sequence[float]) -> float:
    """Sample standard deviation (n - 1); 0 for a single value, NaN for none."""
    if not values:
        return math.nan
    if len(values) == 1:
        return 0.0
    centre = mean(values)
    return math.sqrt(math.fsum((v - centre) ** 2 for v in values) / (len(values) - 1))


def coefficient_of_variation(values: Sequence[float]) -> float:
    """stdev / mean; NaN when undefined (no values or a zero mean)."""
    centre = mean(values)
    if not values or centre == 0 or math.isnan(centre):
        return math.nan
    return stdev(values) / abs(centre)


@dataclass(frozen=True)
class Summary:
    """Median and spread of repeated measurements of one figure."""

    n: int
    median: float
    minimum: float
    maximum: float
    iqr: float
    cv: float
    noisy: bool  # cv above CV_FLAG

    def as_dict(self) -> dict[str, float | int | bool | None]:
        return {
            "n": self.n,
            "median": finite_or_none(self.median),
            "min": finite_or_none(self.minimum),
            "max": finite_or_none(self.maximum),
            "iqr": finite_or_none(self.iqr),
            "cv": finite_or_none(self.cv),
            "noisy": self.noisy,
        }


def summarize(values: Sequence[float]) -> Summary:
    """Median, min, max, IQR and CV of the finite values; noisy if CV > CV_FLAG."""
    finite = [v for v in values if math.isfinite(v)]
    cv = coefficient_of_variation(finite)
    return Summary(
        n=len(finite),
        median=median(finite),
        minimum=min(finite) if finite else math.nan,
        maximum=max(finite) if finite else math.nan,
        iqr=iqr(finite),
        cv=cv,
        noisy=bool(len(finite) > 1 and math.isfinite(cv) and cv > CV_FLAG),
    )


@dataclass(frozen=True)
class LinearFit:
    """y = slope * x + intercept by ordinary least squares, with R²."""

    n: int
    slope: float
    intercept: float
    r2: float

    def as_dict(self) -> dict[str, float | int | None]:
        return {
            "n": self.n,
            "slope": finite_or_none(self.slope),
            "intercept": finite_or_none(self.intercept),
            "r2": finite_or_none(self.r2),
        }


def linear_fit(xs: Sequence[float], ys: Sequence[float]) -> LinearFit:
    """Least-squares line through (x, y) points; NaNs when fewer than 2 distinct x values.

    R² is 1 - SS_res / SS_tot; for constant y (SS_tot = 0) it is 1 if the fit is exact.
    """
    if len(xs) != len(ys):
        raise ValueError(f"xs and ys differ in length: {len(xs)} != {len(ys)}")
    n = len(xs)
    if n < 2 or len(set(xs)) < 2:
        return LinearFit(n, math.nan, math.nan, math.nan)
    mx, my = mean(xs), mean(ys)
    sxx = math.fsum((x - mx) ** 2 for x in xs)
    sxy = math.fsum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    slope = sxy / sxx
    intercept = my - slope * mx
    ss_res = math.fsum((y - (slope * x + intercept)) ** 2 for x, y in zip(xs, ys, strict=True))
    ss_tot = math.fsum((y - my) ** 2 for y in ys)
    # A constant y is fitted exactly by a flat line (R² 1); otherwise the usual ratio.
    r2 = (1.0 if ss_res == 0 else 0.0) if ss_tot == 0 else 1.0 - ss_res / ss_tot
    return LinearFit(n, slope, intercept, r2)


def finite_or_none(value: float) -> float | None:
    """JSON has no NaN: undefined figures are written as null."""
    return value if math.isfinite(value) else None


def recorded_median(summary: dict[str, Any] | None) -> float | None:
    """The median of a Summary as results.json records it (`as_dict()`), or None."""
    if not summary or summary.get("median") is None:
        return None
    return float(summary["median"])


def geometric_mean(values: Sequence[float]) -> float | None:
    """The geometric mean of the finite positive values; None when there are none."""
    positive = [v for v in values if math.isfinite(v) and v > 0]
    if not positive:
        return None
    return math.exp(sum(math.log(v) for v in positive) / len(positive))
