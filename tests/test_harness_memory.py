"""Memory per connection in derived figures: the slope over every run with its interval, the
per-URL share apart, and the independent check's gap.

No crawl runs here: every plateau below is a crafted input of a recorded run, with a known
cost per connection and per URL, and the assertions check what derive() finds from them.
"""

from __future__ import annotations

from typing import Any

import pytest

from bench.results import LeftOut, MemoryFit
from c10k import catalog, probes
from c10k.fits import replicated_fit
from c10k.quantity import Fit
from tests.recorded import crawl_record, derive

SLEEPY, ASYNCIO = catalog.SLEEPY.name, catalog.ASYNCIO.name
KIB = 1024.0
PER_CONNECTION, PER_URL, BASE = 9000.0, 1500.0, 20e6


def sleepy_run(
    concurrency: int,
    waves: int,
    rep: int = 0,
    noise: float = 0.0,
    anon_offset: float = 0.0,
    kernel_kib: float = 0.0,
) -> dict[str, Any]:
    """A sleepy run whose plateau RSS is BASE + PER_CONNECTION x C + PER_URL x pages (+ noise)
    and whose kernel memory grew by kernel_kib (slab), as the harness records it, reduced to
    what derive reads."""
    pages = waves * concurrency
    rss = (BASE + PER_CONNECTION * concurrency + PER_URL * pages + noise) / KIB
    run = crawl_record(
        SLEEPY,
        ASYNCIO,
        concurrency,
        {"pages": pages, "latency": "2s"},
        {
            "pages": pages + 1,
            "wall_s": 2.0 * (waves + 1),
            "pages_per_s": 1000.0,
            "cpu_us_per_page": 100.0,
            "latency_s": {"p50": 2.0, "p99": 2.1},
            "max_rss_kib": rss * 1.2,
        },
        rep=rep,
        waves=waves,
    )
    kernel_before = dict.fromkeys(probes.KERNEL_GROWTH_FIELDS, 50_000)
    kernel = {sampled: 50_000.0 for sampled in probes.KERNEL_GROWTH_FIELDS.values()}
    kernel["slab_kib"] += kernel_kib
    return run | {
        "round": rep,
        "kernel_before": {"meminfo_kib": kernel_before, "sockstat": {}},
        "plateau": {
            "rss_kib": rss,
            "anon_kib": rss - 9000.0 + anon_offset * concurrency / KIB,
            **kernel,
        },
    }


def memory(runs: list[dict[str, Any]]) -> MemoryFit:
    found = derive(runs, {SLEEPY: 1000})
    fit: MemoryFit = found[SLEEPY][ASYNCIO]["memory_per_connection"]
    return fit


BASE_POINTS = (1000, 3000, 10_000)


def test_the_slope_is_fitted_over_every_run_with_an_interval_that_holds_the_scatter() -> None:
    scatter = {0: 2e5, 1: -3e5, 2: 1e5}
    runs = [
        sleepy_run(c, 2, rep, noise=scatter[rep] * (1 if c != 3000 else -1))
        for rep in range(3)
        for c in BASE_POINTS
    ]
    fit = memory(runs)
    gross = PER_CONNECTION + 2 * PER_URL
    slope = fit.rss_bytes.slope
    assert fit.runs == 9 and slope.n == 9 and slope.interval is not None
    low, high = slope.interval.low, slope.interval.high
    assert low < gross < high and low < (slope.value or 0.0) < high
    assert high - low < 0.05 * gross  # 9 runs with 0.3 MB of scatter: a narrow interval
    assert fit.total_bytes.interval == slope.interval  # no kernel memory in these runs


def test_a_kernel_that_freed_memory_lowers_the_total_fitted_as_one_over_the_same_runs() -> None:
    # Kernel memory falls 2 KiB per connection (the machine freed some as the runs held
    # theirs), with a scatter of its own that the total's interval must hold.
    scatter = {0: 300.0, 1: -200.0, 2: -100.0}
    runs = [
        sleepy_run(c, 2, rep, noise=1e5 * (rep - 1), kernel_kib=-2 * c + scatter[rep])
        for rep in range(3)
        for c in BASE_POINTS
    ]
    fit = memory(runs)
    kernel = fit.kernel_bytes.slope
    assert kernel.value == pytest.approx(-2 * KIB)
    assert kernel.interval is not None and kernel.interval.high < 0  # recorded as measured
    held = replicated_fit(
        [float(r["params"]["concurrency"]) for r in runs],
        [KIB * (r["plateau"]["rss_kib"] + r["plateau"]["slab_kib"] - 50_000) for r in runs],
    )
    total, rss = fit.total_bytes, fit.rss_bytes.slope
    assert total.value == pytest.approx((rss.value or 0.0) + (kernel.value or 0.0))
    assert total.value == pytest.approx(held.slope)
    assert total.interval == held.slope_ci95 and total.interval is not None
    assert rss.interval is not None
    assert total.interval.high - total.interval.low > rss.interval.high - rss.interval.low


def test_more_scatter_between_runs_gives_a_wider_interval() -> None:
    def width(scale: float) -> float:
        runs = [
            sleepy_run(c, 2, rep, noise=scale * (rep - 1) * (c % 7000))
            for rep in range(3)
            for c in BASE_POINTS
        ]
        fit: Fit = memory(runs).rss_bytes
        assert fit.slope.interval is not None
        return fit.slope.interval.high - fit.slope.interval.low

    assert width(10.0) == pytest.approx(10 * width(1.0))


def failed(run: dict[str, Any], status: str = "timeout") -> dict[str, Any]:
    return run | {"status": status, "reason": "stalled"}


def test_a_point_most_of_whose_runs_failed_is_left_out_of_the_fit_and_named() -> None:
    # C 10,000 held once in three runs, 5 MB above the line: a survivor, not the point.
    runs = [sleepy_run(c, 2, rep) for rep in range(2) for c in (1000, 3000)]
    runs += [sleepy_run(10_000, 2, 0, noise=5e6), failed(sleepy_run(10_000, 2, 1))]
    runs += [failed(sleepy_run(10_000, 2, 2), "failed-verification")]
    fit = memory(runs)
    assert fit.concurrencies == [1000, 3000] and fit.runs == 4
    assert fit.rss_bytes.slope.value == pytest.approx(PER_CONNECTION + 2 * PER_URL)
    assert fit.left_out == [LeftOut(10_000, 20_000, 1, 3, 0)]


def test_a_point_none_of_whose_runs_verified_is_named_as_left_out_too() -> None:
    # threads at C 10,000 in the default profile: every run timed out or fell short.
    runs = [sleepy_run(c, 2, rep) for rep in range(2) for c in (1000, 3000)]
    runs += [failed(sleepy_run(10_000, 2, rep)) for rep in range(4)]
    runs += [failed(sleepy_run(10_000, 2, 4), "failed-verification")]
    fit = memory(runs)
    assert fit.concurrencies == [1000, 3000] and fit.runs == 4
    assert fit.left_out == [LeftOut(10_000, 20_000, 0, 5, 0)]


def test_a_point_whose_runs_all_ran_in_noisy_rounds_is_named_with_them() -> None:
    # threads at C 10,000 in the committed sample: both runs that ran were in noisy rounds.
    runs = [sleepy_run(c, 2, rep) for rep in range(2) for c in (1000, 3000)]
    runs += [failed(sleepy_run(10_000, 2, rep)) | {"noisy": True} for rep in range(2)]
    fit = memory(runs)
    assert fit.left_out == [LeftOut(10_000, 20_000, 0, 0, 2)]


def test_a_point_that_held_in_most_of_its_runs_stays_in_the_fit() -> None:
    runs = [sleepy_run(c, 2, rep) for rep in range(2) for c in (1000, 3000)]
    runs += [sleepy_run(10_000, 2, rep) for rep in range(2)]
    runs += [failed(sleepy_run(10_000, 2, 2)), sleepy_run(100, 2, 0) | {"status": "skipped"}]
    fit = memory(runs)
    assert fit.concurrencies == [1000, 3000, 10_000] and fit.runs == 6
    assert fit.left_out == []


def test_the_per_url_share_is_told_apart_by_a_point_with_more_pages_per_connection() -> None:
    runs = [sleepy_run(c, 2, rep) for rep in range(2) for c in BASE_POINTS]
    runs += [sleepy_run(3000, 4, rep) for rep in range(2)]
    found = derive(runs, {SLEEPY: 1000})[SLEEPY][ASYNCIO]
    # The point with more pages per connection only measures the per-URL share: it is not
    # one of the scenario's points and not in the gross slope.
    assert [p["pages"] for p in found["points"]] == [2001, 6001, 20_001]
    assert [p["pages"] for p in found["url_points"]] == [12_001]
    fit = found["memory_per_connection"]
    assert fit.rss_bytes.slope.value == pytest.approx(PER_CONNECTION + 2 * PER_URL)
    per_url = fit.per_url
    assert per_url.bytes_per_url.value == pytest.approx(PER_URL)
    assert per_url.net_rss_bytes.value == pytest.approx(PER_CONNECTION)
    assert per_url.urls_per_connection == 2
    assert per_url.runs == 8


def test_without_a_point_of_more_pages_the_per_url_share_is_not_claimed() -> None:
    fit = memory([sleepy_run(c, 2) for c in BASE_POINTS])
    assert fit.per_url is None
    assert fit.rss_bytes.slope.value == pytest.approx(PER_CONNECTION + 2 * PER_URL)


def test_the_check_reports_its_gap_from_the_slope() -> None:
    agree = memory([sleepy_run(c, 2) for c in BASE_POINTS])
    assert agree.check_anon_bytes.slope.value == pytest.approx(agree.rss_bytes.slope.value)
    assert agree.check_gap == pytest.approx(0.0, abs=1e-9)
    gross = PER_CONNECTION + 2 * PER_URL
    apart = memory([sleepy_run(c, 2, anon_offset=-0.2 * gross) for c in BASE_POINTS])
    assert apart.check_gap == pytest.approx(-0.2)


def partitioned(run: dict[str, Any], processes: int, extra_per_connection: float) -> dict[str, Any]:
    """run as a c100k run: crawled by `processes` processes, each connection costing
    extra_per_connection more bytes across them."""
    c = run["params"]["concurrency"]
    run["scenario"] = catalog.C100K.name
    run["params"]["processes"] = processes
    run["plateau"]["rss_kib"] += (extra_per_connection * c + 30e6 * processes) / KIB
    return run


def test_c100k_fits_one_process_and_several_apart_and_compares_them() -> None:
    """c100k's points in one process give memory_per_connection; those of six processes a
    fit of their own (their intercept holds six interpreters), and the highlights give the
    ratio of the two slopes and the largest verified peak."""
    c100k = catalog.C100K.name
    one = [partitioned(sleepy_run(c, 2, rep), 1, 0.0) for rep in range(2) for c in BASE_POINTS]
    six = [partitioned(sleepy_run(c, 2), 6, 900.0) for c in (10_000, 30_000, 60_000, 100_000)]
    # Each fit's per-URL share from a point of its own process count with twice the pages.
    one.append(partitioned(sleepy_run(3000, 4), 1, 0.0))
    six.append(partitioned(sleepy_run(30_000, 4), 6, 900.0))
    found = derive(one + six, {c100k: 1000})
    entry = found[c100k][ASYNCIO]
    gross = PER_CONNECTION + 2 * PER_URL
    assert entry["memory_per_connection"].rss_bytes.slope.value == pytest.approx(gross)
    assert entry["memory_per_connection"].concurrencies == list(BASE_POINTS)
    [across] = entry["memory_across_processes"]
    assert across.processes == 6
    assert across.concurrencies == [10_000, 30_000, 60_000, 100_000]
    assert across.rss_bytes.slope.value == pytest.approx(gross + 900.0)
    assert across.per_url.bytes_per_url.value == pytest.approx(PER_URL)
    assert across.per_url.net_rss_bytes.value == pytest.approx(PER_CONNECTION + 900.0)
    per_url = entry["memory_per_connection"].per_url
    assert per_url.net_rss_bytes.value == pytest.approx(PER_CONNECTION)
    assert [(p["concurrency"], p["processes"]) for p in entry["url_points"]] == [
        (3000, 1),
        (30_000, 6),
    ]
    # C 10,000 ran both ways: two points, told apart by their processes.
    assert [(p["concurrency"], p["processes"]) for p in entry["points"]] == [
        (1000, 1),
        (3000, 1),
        (10_000, 1),
        (10_000, 6),
        (30_000, 6),
        (60_000, 6),
        (100_000, 6),
    ]
    highlights = found["highlights"][c100k]
    assert highlights["largest_peak_in_flight"] == 100_000
    model = highlights["models"][ASYNCIO]
    assert (model["held"], model["held_processes"]) == (100_000, 6)
    assert model["ratio"] == pytest.approx((gross + 900.0) / gross)
