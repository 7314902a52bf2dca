"""The option parsers: durations, sizes, latency distributions and fault specs."""

from __future__ import annotations

import statistics

import pytest

from c10k.durations import duration_text, parse_duration, parse_latency
from server.specs import parse_faults, parse_size


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("0", 0.0), ("50ms", 0.05), ("2s", 2.0), ("1.5s", 1.5), ("250us", 250e-6), ("3", 3.0)],
)
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize(
    ("text", "size"),
    [("2048", 2048), ("64k", 64_000), ("64KiB", 65_536), ("1MB", 1_000_000), ("1MiB/s", 1 << 20)],
)
def test_sizes(text: str, size: int) -> None:
    assert parse_size(text) == size


def test_fixed_latency() -> None:
    assert parse_latency("0").is_zero
    assert parse_latency("50ms").delay("/p/1/", 3) == pytest.approx(0.05)


def test_latency_draws_are_deterministic_per_path_and_try() -> None:
    lat = parse_latency("exp:50ms")
    assert lat.delay("/p/1/", 0, 1) == parse_latency("exp:50ms").delay("/p/1/", 0, 1)
    assert lat.delay("/p/1/", 0, 1) != lat.delay("/p/1/", 1, 1)
    assert lat.delay("/p/1/", 0, 1) != lat.delay("/p/1/", 0, 2)


@pytest.mark.parametrize(
    ("spec", "mean"),
    [("uniform:10ms..100ms", 0.055), ("exp:50ms", 0.05), ("lognormal:50ms,0.5", 0.05 * 1.1331)],
)
def test_latency_distributions(spec: str, mean: float) -> None:
    lat = parse_latency(spec)
    draws = [lat.delay(f"/p/{i}/", 0, 3) for i in range(20_000)]
    assert statistics.fmean(draws) == pytest.approx(mean, rel=0.05)
    assert lat.mean_s == pytest.approx(mean, rel=0.001)
    assert min(draws) >= 0
    if spec.startswith("uniform"):
        assert min(draws) >= 0.01 and max(draws) <= 0.1
    if spec.startswith("lognormal"):
        assert statistics.median(draws) == pytest.approx(0.05, rel=0.05)


@pytest.mark.parametrize(
    "spec", ["0", "10ms", "100ms", "1s", "2s", "60s", "uniform:10ms..100ms", "lognormal:50ms,0.5"]
)
def test_a_latency_is_written_as_it_was_given(spec: str) -> None:
    assert parse_latency(spec).text == spec
    assert parse_duration(duration_text(0.25)) == 0.25


def test_faults() -> None:
    rates = parse_faults("reset=0.01,hang=0.01,500=0.02,truncate=0.01,garbage=0.01")
    assert rates == {
        "reset": 0.01,
        "hang": 0.01,
        "error500": 0.02,
        "truncate": 0.01,
        "garbage": 0.01,
    }
    assert set(parse_faults("none").values()) == {0.0}


@pytest.mark.parametrize(
    ("parser", "text"),
    [
        (parse_duration, "fast"),
        (parse_duration, "-1s"),
        (parse_size, "lots"),
        (parse_latency, "uniform:100ms"),
        (parse_latency, "uniform:100ms..10ms"),
        (parse_latency, "gamma:1s"),
        (parse_latency, "lognormal:50ms"),
        (parse_faults, "reset"),
        (parse_faults, "explode=0.1"),
        (parse_faults, "reset=2"),
        (parse_faults, "reset=0.6,hang=0.6"),
    ],
)
def test_bad_specs_raise_one_line_value_errors(parser: object, text: str) -> None:
    with pytest.raises(ValueError) as info:
        parser(text)  # type: ignore[operator]
    assert "\n" not in str(info.value) and text in str(info.value)
