"""The pure statistics every stage shares (c10k/stats.py): medians, spread, variation, fits."""

from __future__ import annotations

import math

import pytest

from c10k import stats


def test_median_odd_even_and_empty() -> None:
    assert stats.median([3.0, 1.0, 2.0]) == 2.0
    assert stats.median([4.0, 1.0, 2.0, 3.0]) == 2.5
    assert math.isnan(stats.median([]))


def test_quantile_interpolates_like_numpy() -> None:
    values = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert stats.quantile(values, 0.25) == 2.0
    assert stats.quantile(values, 0.9) == pytest.approx(4.6)
    with pytest.raises(ValueError):
        stats.quantile(values, 1.5)


def test_iqr_and_single_value() -> None:
    assert stats.iqr([1.0, 2.0, 3.0, 4.0, 5.0]) == 2.0
    assert stats.iqr([7.0]) == 0.0


def test_cv_and_noisy_flag() -> None:
    steady = stats.summarize([100.0, 101.0, 99.0])
    assert steady.cv == pytest.approx(0.01)
    assert not steady.noisy
    noisy = stats.summarize([100.0, 150.0, 60.0])
    assert noisy.cv > stats.CV_FLAG
    assert noisy.noisy
    single = stats.summarize([5.0])
    assert single.cv == 0.0 and not single.noisy
    assert math.isnan(stats.coefficient_of_variation([0.0, 0.0]))


def test_summarize_ignores_non_finite_and_serialises_nan_as_none() -> None:
    summary = stats.summarize([1.0, math.nan, 3.0])
    assert summary.n == 2 and summary.median == 2.0
    empty = stats.summarize([]).as_dict()
    assert empty["median"] is None and empty["n"] == 0 and empty["noisy"] is False


def test_linear_fit_exact_line() -> None:
    fit = stats.linear_fit([1.0, 2.0, 3.0, 4.0], [12.0, 14.0, 16.0, 18.0])
    assert fit.slope == pytest.approx(2.0)
    assert fit.intercept == pytest.approx(10.0)
    assert fit.r2 == pytest.approx(1.0)


def test_linear_fit_noisy_line_has_r2_below_one() -> None:
    fit = stats.linear_fit([0.0, 1.0, 2.0, 3.0], [0.0, 1.5, 1.5, 3.0])
    assert fit.slope == pytest.approx(0.9)
    assert 0.8 < fit.r2 < 1.0


def test_linear_fit_degenerate_cases() -> None:
    assert math.isnan(stats.linear_fit([1.0], [2.0]).slope)
    assert math.isnan(stats.linear_fit([2.0, 2.0], [1.0, 3.0]).slope)
    flat = stats.linear_fit([1.0, 2.0, 3.0], [5.0, 5.0, 5.0])
    assert flat.slope == 0.0 and flat.r2 == 1.0
    assert stats.linear_fit([1.0], [2.0]).as_dict()["slope"] is None
    with pytest.raises(ValueError):
        stats.linear_fit([1.0, 2.0], [1.0])
