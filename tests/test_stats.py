"""The pure statistics every stage shares (c10k/stats.py): medians, spread, variation, fits."""

from __future__ import annotations

import math
import random

import pytest

from c10k import fits, stats
from c10k.quantity import T_95, Interval, Spread


def test_median_odd_even_and_empty() -> None:
    assert stats.median([3.0, 1.0, 2.0]) == 2.0
    assert stats.median([4.0, 1.0, 2.0, 3.0]) == 2.5
    assert math.isnan(stats.median([]))


def test_percentile_interpolates_like_numpy() -> None:
    values = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert stats.percentile(values, 25) == 2.0
    assert stats.percentile(values, 90) == pytest.approx(4.6)


def test_iqr_and_single_value() -> None:
    assert stats.iqr([1.0, 2.0, 3.0, 4.0, 5.0]) == 2.0
    assert stats.iqr([7.0]) == 0.0


def spread(values: list[float]) -> Spread:
    found = stats.summarize(values, "s").spread
    assert found is not None
    return found


def test_cv_and_noisy_flag() -> None:
    steady = spread([100.0, 101.0, 99.0])
    assert steady.cv == pytest.approx(0.01)
    assert not steady.noisy
    noisy = spread([100.0, 150.0, 60.0])
    assert noisy.cv is not None and noisy.cv > stats.CV_FLAG
    assert noisy.noisy
    single = spread([5.0])
    assert single.cv == 0.0 and not single.noisy
    assert math.isnan(stats.coefficient_of_variation([0.0, 0.0]))


def test_summarize_ignores_non_finite_and_holds_nan_as_none() -> None:
    summary = stats.summarize([1.0, math.nan, 3.0], "s")
    assert summary.n == 2 and summary.value == 2.0 and summary.unit == "s"
    empty = stats.summarize([], "s")
    assert empty.value is None and empty.n == 0 and empty.interval is None
    assert empty.spread == Spread(None, None, None, None, False)


def test_linear_fit_exact_line() -> None:
    fit = fits.linear_fit([1.0, 2.0, 3.0, 4.0], [12.0, 14.0, 16.0, 18.0])
    assert fit.slope == pytest.approx(2.0)
    assert fit.intercept == pytest.approx(10.0)
    assert fit.r2 == pytest.approx(1.0)


def test_linear_fit_noisy_line_has_r2_below_one() -> None:
    fit = fits.linear_fit([0.0, 1.0, 2.0, 3.0], [0.0, 1.5, 1.5, 3.0])
    assert fit.slope == pytest.approx(0.9)
    assert 0.8 < fit.r2 < 1.0


def test_linear_fit_degenerate_cases() -> None:
    assert math.isnan(fits.linear_fit([1.0], [2.0]).slope)
    assert math.isnan(fits.linear_fit([2.0, 2.0], [1.0, 3.0]).slope)
    flat = fits.linear_fit([1.0, 2.0, 3.0], [5.0, 5.0, 5.0])
    assert flat.slope == 0.0 and flat.r2 == 1.0
    assert fits.linear_fit([1.0], [2.0]).recorded().slope.value is None
    with pytest.raises(ValueError):
        fits.linear_fit([1.0, 2.0], [1.0])


# -- 95% intervals ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("df", "expected"),
    [
        (1, 12.706204736174698),
        (2, 4.302652729911275),
        (3, 3.182446305284263),
        (4, 2.7764451051977987),
        (30, 2.0422724563012373),
        (math.inf, 1.959963984540054),
    ],
)
def test_t_quantile_matches_the_tables(df: float, expected: float) -> None:
    assert stats.t_quantile(0.975, df) == pytest.approx(expected, rel=1e-9)
    assert stats.t_quantile(0.025, df) == pytest.approx(-expected, rel=1e-9)


def test_t_quantile_takes_fractional_degrees_of_freedom_and_refuses_nonsense() -> None:
    between = stats.t_quantile(0.975, 2.5)
    assert stats.t_quantile(0.975, 3) < between < stats.t_quantile(0.975, 2)
    assert stats.t_cdf(between, 2.5) == pytest.approx(0.975, abs=1e-12)
    assert stats.t_quantile(0.5, 7) == pytest.approx(0.0, abs=1e-9)
    for p, df in ((0.0, 3), (1.0, 3), (0.9, 0)):
        with pytest.raises(ValueError):
            stats.t_quantile(p, df)


def test_t_interval_of_one_two_three() -> None:
    interval = stats.t_interval([1.0, 2.0, 3.0])
    assert interval is not None
    half = 4.302652729911275 * 1.0 / math.sqrt(3)
    assert interval.low == pytest.approx(2 - half, rel=1e-9)
    assert interval.high == pytest.approx(2 + half, rel=1e-9)


def test_t_interval_needs_two_values_and_zero_spread_is_a_point() -> None:
    assert stats.t_interval([5.0]) is None
    assert stats.t_interval([]) is None
    assert stats.t_interval([5.0, math.nan]) is None
    assert stats.t_interval([4.0, 4.0, 4.0]) == Interval(4.0, 4.0)


def test_a_summary_is_the_median_with_the_t_interval_of_the_mean() -> None:
    found = stats.summarize([1.0, 2.0, 4.0], "pages/s")
    assert found.value == 2.0 and found.method == T_95 and found.n == 3
    assert found.interval is not None
    assert found.interval.low == pytest.approx(
        7 / 3 - 4.302652729911275 * math.sqrt(7 / 3) / math.sqrt(3)
    )
    assert found.interval.high == pytest.approx(
        7 / 3 + 4.302652729911275 * math.sqrt(7 / 3) / math.sqrt(3)
    )
    assert stats.summarize([7.0], "pages/s").interval is None


def test_noisy_flag_is_five_percent() -> None:
    assert stats.CV_FLAG == 0.05
    assert spread([100.0, 106.0, 94.0]).noisy  # CV 6%
    assert not spread([100.0, 104.0, 96.0]).noisy  # CV 4%


def test_paired_ratio_pairs_by_round() -> None:
    ratio = stats.paired_ratio({0: 2.0, 1: 4.0, 2: 8.0}, {0: 1.0, 1: 2.0, 3: 100.0})
    assert ratio is not None
    assert ratio.n == 2  # rounds 0 and 1; 2 and 3 have no partner
    assert ratio.value == pytest.approx(2.0)
    interval = ratio.quantity().interval
    assert interval is not None and interval.as_list() == pytest.approx([2.0, 2.0])
    assert stats.paired_ratio({0: 1.0}, {1: 1.0}) is None
    assert stats.paired_ratio({0: 0.0}, {0: 1.0}) is None


def test_paired_ratio_interval_is_the_t_interval_of_the_log_ratios() -> None:
    ratio = stats.paired_ratio({0: 2.0, 1: 3.0, 2: 4.0}, {0: 1.0, 1: 1.0, 2: 1.0})
    assert ratio is not None
    logs = [math.log(2.0), math.log(3.0), math.log(4.0)]
    expected = stats.t_interval(logs)
    assert expected is not None
    interval = ratio.quantity().interval
    assert interval is not None
    assert ratio.value == pytest.approx(math.exp(stats.mean(logs)))  # geometric mean: 24^(1/3)
    assert interval.low == pytest.approx(math.exp(expected.low))
    assert interval.high == pytest.approx(math.exp(expected.high))
    assert interval.low > 0


def test_one_round_has_a_value_and_no_interval() -> None:
    ratio = stats.paired_ratio({0: 3.0}, {0: 2.0})
    assert ratio is not None and ratio.value == pytest.approx(1.5)
    assert ratio.quantity().interval is None
    single = stats.single_ratio(3.0, 2.0)
    assert single is not None and single.value == pytest.approx(1.5)
    assert single.quantity().interval is None
    assert stats.single_ratio(3.0, 0.0) is None


def test_combined_ratio_is_the_geometric_mean_with_welch_degrees_of_freedom() -> None:
    a = stats.Ratio(math.log(2.0), 0.01, 3)
    b = stats.Ratio(math.log(8.0), 0.04, 3)
    value, interval = stats.combined_ratio([a, b])
    assert value == pytest.approx(4.0)
    parts = [0.01 / 3, 0.04 / 3]
    variance = sum(parts) / 4
    df = sum(parts) ** 2 / sum(v * v / 2 for v in parts)  # 2 < df < 4
    half = stats.t_quantile(0.975, df) * math.sqrt(variance)
    assert interval is not None
    assert interval.low == pytest.approx(4.0 * math.exp(-half))
    assert interval.high == pytest.approx(4.0 * math.exp(half))
    # One ratio from one round: its variance is unknown, so no interval at all.
    assert stats.combined_ratio([a, stats.Ratio(0.0, math.nan, 1)])[1] is None
    with pytest.raises(ValueError):
        stats.combined_ratio([])


def test_median_interval_takes_the_median_of_each_bound() -> None:
    found = stats.median_interval([Interval(0.7, 0.9), Interval(0.8, 1.2), Interval(0.5, 1.0)])
    assert found == Interval(0.7, 1.0)
    assert stats.median_interval([Interval(0.7, 0.9), None]) is None
    assert stats.median_interval([]) is None


def test_linear_fit_slope_interval() -> None:
    exact = fits.linear_fit([1.0, 2.0, 3.0, 4.0], [12.0, 14.0, 16.0, 18.0])
    assert exact.slope_ci95 is not None
    assert exact.slope_ci95.as_list() == pytest.approx([2.0, 2.0])
    noisy = fits.linear_fit([0.0, 1.0, 2.0, 3.0], [0.0, 1.5, 1.5, 3.0])
    # residuals -0.15, 0.45, -0.45, 0.15: SS 0.45; se = sqrt(0.45 / 2 / 5)
    half = 4.302652729911275 * math.sqrt(0.45 / 2 / 5)
    assert noisy.slope_ci95 is not None
    assert noisy.slope_ci95.low == pytest.approx(0.9 - half)
    assert noisy.slope_ci95.high == pytest.approx(0.9 + half)
    assert fits.linear_fit([1.0, 2.0], [1.0, 3.0]).recorded().slope.interval is None
    # Where a second run's slope should fall: √2 times as wide, about the same slope.
    assert noisy.slope_repeat95 is not None
    assert noisy.slope_repeat95.as_list() == pytest.approx(
        [0.9 - math.sqrt(2) * half, 0.9 + math.sqrt(2) * half]
    )
    assert fits.linear_fit([1.0, 2.0], [1.0, 3.0]).recorded().repeat is None


def test_a_repeat_runs_slope_falls_in_the_repeat_interval_95_percent_of_the_time() -> None:
    # Pairs of runs of the default's design (three C, two runs each) drawn from one line
    # with noise: the first run's confidence interval holds the second run's slope ~88% of
    # the time (t with 4 degrees of freedom), its repeat interval 95%.
    draw = random.Random(16)
    cs = [1000.0, 1000.0, 3000.0, 3000.0, 10_000.0, 10_000.0]

    def run() -> fits.LinearFit:
        return fits.linear_fit(cs, [20e6 + 9000 * c + draw.gauss(0, 300e3) for c in cs])

    pairs = [(run(), run()) for _ in range(4000)]
    held = {"ci": 0, "repeat": 0}
    for first, second in pairs:
        assert first.slope_ci95 is not None and first.slope_repeat95 is not None
        held["ci"] += first.slope_ci95.low <= second.slope <= first.slope_ci95.high
        held["repeat"] += first.slope_repeat95.low <= second.slope <= first.slope_repeat95.high
    assert 0.85 < held["ci"] / len(pairs) < 0.91
    assert 0.93 < held["repeat"] / len(pairs) < 0.97


# -- memory per connection: a plane over concurrency and URLs, and the check's gap ---------------


def test_plane_fit_separates_two_causes_exactly() -> None:
    # 9,000 B per connection and 1,500 B per URL over a 20 MiB base; one point with more
    # URLs per connection at C = 3,000 tells the two apart.
    cs = [1000.0, 3000.0, 10_000.0, 3000.0, 5000.0]
    urls = [2000.0, 6000.0, 20_000.0, 12_000.0, 10_000.0]
    ys = [20e6 + 9000 * c + 1500 * u for c, u in zip(cs, urls, strict=True)]
    fit = fits.plane_fit(cs, urls, ys)
    assert fit.slope_x == pytest.approx(9000.0) and fit.slope_z == pytest.approx(1500.0)
    assert fit.intercept == pytest.approx(20e6)
    assert fit.slope_x_ci95 is not None and fit.slope_z_ci95 is not None
    assert fit.slope_x_ci95.low == pytest.approx(9000.0)
    assert fit.slope_z_ci95.high == pytest.approx(1500.0)


def test_plane_fit_interval_holds_the_slopes_and_grows_with_the_scatter() -> None:
    cs = [1000.0, 3000.0, 10_000.0, 3000.0, 5000.0, 2000.0]
    urls = [2000.0, 6000.0, 20_000.0, 12_000.0, 10_000.0, 4000.0]
    noise = [3e5, -2e5, 1e5, -4e5, 2e5, 0.0]

    def fitted(scale: float) -> fits.PlaneFit:
        ys = [
            20e6 + 9000 * c + 1500 * u + scale * e for c, u, e in zip(cs, urls, noise, strict=True)
        ]
        return fits.plane_fit(cs, urls, ys)

    small, large = fitted(1.0), fitted(10.0)
    assert small.slope_x_ci95 is not None and small.slope_z_ci95 is not None
    assert large.slope_x_ci95 is not None and large.slope_z_ci95 is not None
    assert small.slope_x_ci95.low < 9000.0 < small.slope_x_ci95.high
    assert small.slope_z_ci95.low < 1500.0 < small.slope_z_ci95.high
    width = small.slope_z_ci95.high - small.slope_z_ci95.low
    assert large.slope_z_ci95.high - large.slope_z_ci95.low == pytest.approx(10 * width)


def test_plane_fit_cannot_separate_causes_that_move_together() -> None:
    # Every point at 2 URLs per connection: per URL and per connection are one slope.
    cs = [1000.0, 3000.0, 10_000.0]
    collinear = fits.plane_fit(cs, [2 * c for c in cs], [5e6 + 12_000 * c for c in cs])
    assert math.isnan(collinear.slope_x) and math.isnan(collinear.slope_z)
    three = fits.plane_fit([1000.0, 3000.0, 3000.0], [2000.0, 6000.0, 12_000.0], [1.0, 2.0, 4.0])
    assert math.isfinite(three.slope_z) and three.slope_z_ci95 is None  # no degree of freedom
    with pytest.raises(ValueError):
        fits.plane_fit([1.0, 2.0], [1.0], [1.0, 2.0])


def test_relative_gap() -> None:
    assert stats.relative_gap(10_500.0, 10_000.0) == pytest.approx(0.05)
    assert stats.relative_gap(9_000.0, 10_000.0) == pytest.approx(-0.1)
    assert stats.relative_gap(None, 10_000.0) is None
    assert stats.relative_gap(1.0, 0.0) is None
    assert stats.relative_gap(math.nan, 1.0) is None


def test_a_replicated_fit_takes_each_points_own_spread() -> None:
    # Two points run twice: means 1 and 2 (slope 1); each point's variance 2, its share of
    # the slope's variance 2 x 0.25 x 2 / 1² = 1 with one degree of freedom, so the slope's
    # variance is 2 with (1 + 1)² / (1 + 1) = 2 degrees of freedom.
    fit = fits.replicated_fit([0.0, 0.0, 1.0, 1.0], [0.0, 2.0, 1.0, 3.0])
    half = 4.302652729911275 * math.sqrt(2)
    assert fit.slope == pytest.approx(1.0)
    assert fit.slope_ci95 is not None and fit.slope_repeat95 is not None
    assert fit.slope_ci95.as_list() == pytest.approx([1 - half, 1 + half])
    assert fit.slope_repeat95.as_list() == pytest.approx(
        [1 - math.sqrt(2) * half, 1 + math.sqrt(2) * half]
    )


def test_a_replicated_fit_falls_back_to_the_pooled_scatter_when_a_point_ran_once() -> None:
    xs, ys = [0.0, 1.0, 1.0, 2.0], [0.0, 1.5, 1.0, 2.2]
    assert fits.replicated_fit(xs, ys) == fits.linear_fit(xs, ys)
    # Repeats that agree exactly leave the slope with no scatter at all.
    exact = fits.replicated_fit([1.0, 1.0, 2.0, 2.0], [3.0, 3.0, 5.0, 5.0])
    assert exact.slope_ci95 is not None and exact.slope_ci95.as_list() == [2.0, 2.0]


def test_a_replicated_fit_holds_the_next_run_when_the_largest_point_scatters_most() -> None:
    # A design like the default's (C 1,000 and 3,000 twice; 10,000 four times here, three
    # in the default), with ten times the scatter at C 10,000: the pooled interval misses a
    # second run's slope more often than 1 in 20, the replicated one about 1 in 20.
    draw = random.Random(16)
    cs = [1000.0] * 2 + [3000.0] * 2 + [10_000.0] * 4

    def run() -> tuple[list[float], list[float]]:
        noise = [draw.gauss(0, 300e3 if c == 10_000 else 30e3) for c in cs]
        return cs, [20e6 + 9000 * c + e for c, e in zip(cs, noise, strict=True)]

    held = {"pooled": 0, "replicated": 0}
    trials = 4000
    for _ in range(trials):
        first, second = run(), run()
        slope = fits.linear_fit(*second).slope
        for name, fit in (("pooled", fits.linear_fit), ("replicated", fits.replicated_fit)):
            repeat = fit(*first).slope_repeat95
            assert repeat is not None
            held[name] += repeat.low <= slope <= repeat.high
    assert held["pooled"] / trials < 0.92
    assert 0.93 < held["replicated"] / trials < 0.97
