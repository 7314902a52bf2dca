"""Pure statistics for benchmark results: medians, spread, intervals and ratios."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from c10k.quantity import T_95, Interval, Quantity, Spread, Unit, known

# A coefficient of variation above this marks a figure as noisy (design: 5%; docs/results.md).
CV_FLAG = 0.05
# Every interval the suite reports is a 95% confidence interval.
CONFIDENCE = 0.95


def median(values: Sequence[float]) -> float:
    """The median; NaN for no values."""
    return percentile(values, 50)


def percentile(values: Sequence[float], pct: float) -> float:
    """The pct-th percentile (0 to 100), linear-interpolated like numpy; NaN for no values. The
    rank, (n - 1) * pct / 100, is what `c10k crawl --json` has always reported p90 and p99 at."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    rank = (len(ordered) - 1) * pct / 100
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def iqr(values: Sequence[float]) -> float:
    """Interquartile range (q3 - q1); 0 for one value, NaN for none."""
    return percentile(values, 75) - percentile(values, 25)


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


def summarize(values: Sequence[float], unit: Unit) -> Quantity:
    """The median of the finite values with the 95% t-interval of their mean, and their
    spread (min, max, IQR, CV; noisy if CV > CV_FLAG)."""
    finite = [v for v in values if math.isfinite(v)]
    cv = coefficient_of_variation(finite)
    spread = Spread(
        minimum=min(finite) if finite else None,
        maximum=max(finite) if finite else None,
        iqr=known(iqr(finite)),
        cv=known(cv),
        noisy=bool(len(finite) > 1 and math.isfinite(cv) and cv > CV_FLAG),
    )
    return Quantity(known(median(finite)), t_interval(finite), T_95, len(finite), unit, spread)


# -- 95% intervals ------------------------------------------------------------------------------
#
# The method (docs/intervals.md): Student's t-interval, as pyperf uses. With 3-5
# repetitions a percentile bootstrap of the median can only return values it was given (for 3
# runs, their range, which holds the true median 75% of the time, not 95%); the t-interval is
# as wide as few runs deserve (t = 4.30 for 3 runs, 2.78 for 5). It is the interval of the
# mean; the median is shown as the figure because one slow run moves it less. Ratios of two
# models use the runs paired by round (rep k of both ran next to each other) on a log scale,
# so the interval of a ratio is never negative and a drift shared by the pair cancels.


def _continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, eps = 1e-300, 1e-15
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 1000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1.0) < eps:
            break
    return result


def _regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    # The fraction converges fast on this side of the mean; the other side by symmetry.
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _continued_fraction(a, b, x) / a
    return 1.0 - front * _continued_fraction(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with df degrees of freedom (df may be fractional)."""
    tail = 0.5 * _regularized_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t with df > 0 degrees of freedom (the normal's for df = inf),
    by bisection on t_cdf: no SciPy needed, and exact to about 1e-12."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be between 0 and 1, got {p}")
    if not df > 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if math.isinf(df):
        return NormalDist().inv_cdf(p)
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        low, high = high, high * 2.0
    while high - low > 1e-12 * high:
        middle = (low + high) / 2.0
        if t_cdf(middle, df) < p:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


@functools.lru_cache(maxsize=64)  # a bisection: the stopping rule asks for a few, often
def t_factor(df: float, confidence: float) -> float:
    """The half-width, in standard errors, of a two-sided t-interval at `confidence`."""
    return t_quantile(0.5 + confidence / 2.0, df)


def welch_satterthwaite_df(shares: Sequence[tuple[float, float]]) -> float:
    """The degrees of freedom of a sum of independent variance estimates, each given as
    (its share of the sum, its own degrees of freedom); the shares must not all be 0."""
    return math.fsum(v for v, _ in shares) ** 2 / math.fsum(v * v / d for v, d in shares)


def t_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> Interval | None:
    """The t-interval of the mean of the finite values, mean ± t(n-1) s / sqrt(n); None for
    fewer than 2 values: one run has no interval."""
    finite = [v for v in values if math.isfinite(v)]
    n = len(finite)
    if n < 2:
        return None
    centre = mean(finite)
    half = t_factor(n - 1, confidence) * stdev(finite) / math.sqrt(n)
    return Interval(centre - half, centre + half)


@dataclass(frozen=True)
class Ratio:
    """A ratio of two figures from n rounds: the mean and sample variance of the per-round
    log ratios (NaN variance for one round). Its value is their geometric mean."""

    log_mean: float
    log_variance: float
    n: int

    @property
    def value(self) -> float:
        return math.exp(self.log_mean)

    def quantity(self) -> Quantity:
        """The ratio with its paired t-interval on the log scale, taken back (none for one
        round)."""
        return ratio_quantity([self])


def paired_ratio(numerator: Mapping[int, float], denominator: Mapping[int, float]) -> Ratio | None:
    """numerator / denominator paired by round (dict keys): rounds where both are finite and
    positive. None when no round pairs up."""
    logs = [
        math.log(numerator[k] / denominator[k])
        for k in sorted(set(numerator) & set(denominator))
        if _positive(numerator[k]) and _positive(denominator[k])
    ]
    if not logs:
        return None
    variance = stdev(logs) ** 2 if len(logs) > 1 else math.nan
    return Ratio(mean(logs), variance, len(logs))


def single_ratio(numerator: float, denominator: float) -> Ratio | None:
    """A ratio of two single figures (no rounds to pair): a value, no interval."""
    if not (_positive(numerator) and _positive(denominator)):
        return None
    return Ratio(math.log(numerator / denominator), math.nan, 1)


def _positive(value: float) -> bool:
    return math.isfinite(value) and value > 0


def combined_ratio(
    ratios: Sequence[Ratio], confidence: float = CONFIDENCE
) -> tuple[float, Interval | None]:
    """The geometric mean of several ratios (e.g. one per concurrency) and its interval. The
    log of the result is the mean of the ratios' log means; its variance is the sum of
    theirs (each s² / n) over the count squared, with Welch-Satterthwaite degrees of freedom.
    No interval when a ratio comes from one round (its variance is unknown)."""
    if not ratios:
        raise ValueError("combined_ratio needs at least one ratio")
    centre = mean([r.log_mean for r in ratios])
    value = math.exp(centre)
    if any(r.n < 2 or not math.isfinite(r.log_variance) for r in ratios):
        return value, None
    parts = [r.log_variance / r.n for r in ratios]
    variance = math.fsum(parts) / len(ratios) ** 2
    if variance == 0:
        return value, Interval(value, value)
    df = welch_satterthwaite_df([(v, r.n - 1) for v, r in zip(parts, ratios, strict=True)])
    half = t_factor(df, confidence) * math.sqrt(variance)
    return value, Interval(math.exp(centre - half), math.exp(centre + half))


def ratio_quantity(ratios: Sequence[Ratio], confidence: float = CONFIDENCE) -> Quantity:
    """combined_ratio as a quantity: over n rounds, the fewest any of its ratios had."""
    value, interval = combined_ratio(ratios, confidence)
    return Quantity(value, interval, T_95, min(r.n for r in ratios), "ratio")


def median_interval(intervals: Sequence[Interval | None]) -> Interval | None:
    """The interval of a median of k figures, from theirs: [median of the lows, median of the
    highs]. The median moves with each figure, so it lies inside whenever every interval
    holds its figure; with each interval at 1 - alpha/k (Bonferroni), all hold at once with
    at least 1 - alpha: give them at that level for a 1 - alpha interval of the median.
    None when one figure has no interval."""
    found = [i for i in intervals if i is not None]
    if not found or len(found) < len(intervals):
        return None
    return Interval(median([i.low for i in found]), median([i.high for i in found]))


def relative_gap(value: float | None, reference: float | None) -> float | None:
    """(value - reference) / reference: how far a check lies from the figure it checks."""
    if value is None or reference is None or reference == 0:
        return None
    if not (math.isfinite(value) and math.isfinite(reference)):
        return None
    return (value - reference) / abs(reference)
