"""Pure least-squares fits: a line and a plane, with the intervals of their slopes."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from c10k.quantity import FIT, Fit, Interval, Quantity, Unit, known
from c10k.stats import CONFIDENCE, mean, stdev, t_factor, welch_satterthwaite_df


@dataclass(frozen=True)
class LinearFit:
    """y = slope * x + intercept by ordinary least squares, with R² and the slope's interval."""

    n: int
    slope: float
    intercept: float
    r2: float
    slope_ci95: Interval | None = None  # slope ± t(n-2) x its standard error; None below 3 points
    # Where the slope of a second, independent run of the same design should fall, 95% of
    # the time: slope ± t(n-2) x √2 x its standard error (the two estimates' difference
    # has twice the variance of either). The confidence interval above is meant to hold the
    # true slope, and holds another run's estimate only about 88% of the time (4 degrees of
    # freedom): what "does the next run agree?" asks is this one.
    slope_repeat95: Interval | None = None

    def recorded(self, unit: Unit = "bytes") -> Fit:
        """The fit as the results document holds it: its slope a quantity over n points."""
        slope = Quantity(known(self.slope), self.slope_ci95, FIT, self.n, unit)
        return Fit(slope, known(self.intercept), known(self.r2), self.slope_repeat95)


def linear_fit(xs: Sequence[float], ys: Sequence[float]) -> LinearFit:
    """Least-squares line through (x, y) points; NaNs when fewer than 2 distinct x values.
    R² is 1 - SS_res / SS_tot; for constant y (SS_tot = 0) it is 1 if the fit is exact."""
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
    interval = repeat = None
    if n > 2:
        half = t_factor(n - 2, CONFIDENCE) * math.sqrt(ss_res / (n - 2) / sxx)
        interval, repeat = _slope_intervals(slope, half)
    return LinearFit(n, slope, intercept, r2, interval, repeat)


def _slope_intervals(slope: float, half: float) -> tuple[Interval, Interval]:
    """A slope's confidence interval (± half) and where a repeat run's falls (± √2 half)."""
    return (
        Interval(slope - half, slope + half),
        Interval(slope - math.sqrt(2) * half, slope + math.sqrt(2) * half),
    )


def replicated_fit(xs: Sequence[float], ys: Sequence[float]) -> LinearFit:
    """The least-squares line of linear_fit, its slope's intervals taken from each x's own
    spread when every x was measured at least twice. The slope is a weighted sum of the
    points' means, so its variance is the sum of theirs times the weights squared: sum n_i
    (x_i - mean x)² s_i² / Sxx², each s_i² from the repeats of x_i, with Welch-Satterthwaite
    degrees of freedom. linear_fit pools the scatter of every point, which assumes that it is
    the same at every x; when the largest x, which weighs most on the slope, scatters more
    than the others, the pooled interval is too narrow. Falls back to linear_fit's intervals
    when some x has a single value."""
    fit = linear_fit(xs, ys)
    groups: dict[float, list[float]] = {}
    for x, y in zip(xs, ys, strict=True):
        groups.setdefault(x, []).append(y)
    if not math.isfinite(fit.slope) or min(len(g) for g in groups.values()) < 2:
        return fit
    mx = mean(xs)
    sxx = math.fsum(len(g) * (x - mx) ** 2 for x, g in groups.items())
    # Each point's share of the slope's variance, and its degrees of freedom.
    parts = [
        (len(g) * (x - mx) ** 2 * stdev(g) ** 2 / sxx**2, len(g) - 1) for x, g in groups.items()
    ]
    variance = math.fsum(v for v, _ in parts)
    half = 0.0
    if variance > 0:
        half = t_factor(welch_satterthwaite_df(parts), CONFIDENCE) * math.sqrt(variance)
    interval, repeat = _slope_intervals(fit.slope, half)
    return replace(fit, slope_ci95=interval, slope_repeat95=repeat)


@dataclass(frozen=True)
class PlaneFit:
    """y = slope_x * x + slope_z * z + intercept by least squares, each slope with its 95%
    interval (± t(n-3) x its standard error; None below 4 points)."""

    n: int
    slope_x: float
    slope_z: float
    intercept: float
    slope_x_ci95: Interval | None = None
    slope_z_ci95: Interval | None = None


def plane_fit(xs: Sequence[float], zs: Sequence[float], ys: Sequence[float]) -> PlaneFit:
    """Least squares of y on two variables: how y grows with x at a fixed z and with z at a
    fixed x. NaNs when x and z do not vary independently (collinear, or too few points)."""
    if not len(xs) == len(zs) == len(ys):
        raise ValueError(f"xs, zs and ys differ in length: {len(xs)}, {len(zs)}, {len(ys)}")
    n = len(xs)
    nan = PlaneFit(n, math.nan, math.nan, math.nan)
    if n < 3:
        return nan
    mx, mz, my = mean(xs), mean(zs), mean(ys)
    dx = [x - mx for x in xs]
    dz = [z - mz for z in zs]
    dy = [y - my for y in ys]
    sxx = math.fsum(a * a for a in dx)
    szz = math.fsum(b * b for b in dz)
    sxz = math.fsum(a * b for a, b in zip(dx, dz, strict=True))
    sxy = math.fsum(a * c for a, c in zip(dx, dy, strict=True))
    szy = math.fsum(b * c for b, c in zip(dz, dy, strict=True))
    det = sxx * szz - sxz * sxz
    # Relative to the variances: x and z that move together leave nothing to tell them apart.
    if sxx == 0 or szz == 0 or det <= 1e-12 * sxx * szz:
        return nan
    slope_x = (szz * sxy - sxz * szy) / det
    slope_z = (sxx * szy - sxz * sxy) / det
    intercept = my - slope_x * mx - slope_z * mz
    if n < 4:
        return PlaneFit(n, slope_x, slope_z, intercept)
    residuals = [c - slope_x * a - slope_z * b for a, b, c in zip(dx, dz, dy, strict=True)]
    variance = math.fsum(r * r for r in residuals) / (n - 3)
    factor = t_factor(n - 3, CONFIDENCE)
    half_x = factor * math.sqrt(variance * szz / det)
    half_z = factor * math.sqrt(variance * sxx / det)
    return PlaneFit(
        n,
        slope_x,
        slope_z,
        intercept,
        Interval(slope_x - half_x, slope_x + half_x),
        Interval(slope_z - half_z, slope_z + half_z),
    )
