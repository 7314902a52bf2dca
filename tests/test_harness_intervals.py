"""Intervals in derived figures: per point from repetitions, per ratio from runs paired by round.

No crawl runs here and no clock is read: every pages/s below is a crafted input of a recorded
run, and the assertions check what derive() computes from it (medians, t-intervals, ratios
paired by round). Measured speeds are judged in benchmarks, never in tests.
"""

from __future__ import annotations

from typing import Any

import pytest

from bench import results
from bench.analysis import derive as analysis
from bench.analysis import ratios
from c10k import catalog, sequential, stats
from c10k.quantity import PAIRED_ROUNDS, Quantity
from tests.recorded import crawl_record, derive, latency, quantity

FEW_ACTIVE, SLEEPY = catalog.FEW_ACTIVE.name, catalog.SLEEPY.name
THREADS, ASYNCIO = catalog.THREADS.name, catalog.ASYNCIO.name


def interval_of(ratio: stats.Ratio | None) -> list[float]:
    """A ratio's interval as results.json lists it (the test fails when it has none)."""
    assert ratio is not None
    interval = ratio.quantity().interval
    assert interval is not None
    return interval.as_list()


def ci(found: Quantity | None) -> list[float] | None:
    """A quantity's interval as a list (None without one)."""
    assert found is not None
    return None if found.interval is None else found.interval.as_list()


def crawl_run(
    scenario: str,
    model: str,
    rep: int,
    pages_per_s: float,
    cpu_us: float = 500.0,
    concurrency: int = 4,
    latency: str = "0",
    wall_s: float = 1.0,
    kind: str = "measured",
    status: str = "ok",
    with_round: bool = True,
) -> dict[str, Any]:
    """A measured crawl run as the harness records it, reduced to what derive reads."""
    run = crawl_record(
        scenario,
        model,
        concurrency,
        {"pages": 300, "latency": latency},
        {
            "pages": 301,
            "wall_s": wall_s,
            "pages_per_s": pages_per_s,
            "cpu_us_per_page": cpu_us,
            "latency_s": {"p50": 0.001, "p99": 0.01},
            "max_rss_kib": 30_000,
        },
        kind,
        rep,
    )
    run["status"] = status
    if with_round:
        run["round"] = rep if kind == "measured" else None
    return run


def few_active_runs(threads: list[float], asyncio: list[float], **extra: Any) -> list[Any]:
    """Rounds interleaved as the plan runs them: threads then asyncio, round by round."""
    runs = [crawl_run(FEW_ACTIVE, THREADS, 0, 9999.0, kind="warmup", **extra)]
    for rep, (mine, theirs) in enumerate(zip(asyncio, threads, strict=True)):
        runs.append(crawl_run(FEW_ACTIVE, THREADS, rep, theirs, **extra))
        runs.append(crawl_run(FEW_ACTIVE, ASYNCIO, rep, mine, **extra))
    return runs


def test_each_point_has_its_median_interval_and_runs_by_round() -> None:
    # Crafted rounds of 1000, 1100 and 900 pages/s: derive must report their median and
    # t-interval, and keep each round's input as recorded.
    derived = derive(few_active_runs([1000.0, 1100.0, 900.0], [800.0, 880.0, 720.0]), {})
    point = derived[FEW_ACTIVE][THREADS]["points"][0]
    expected = stats.t_interval([1000.0, 1100.0, 900.0])
    assert expected is not None
    assert point["pages_per_s"].value == 1000.0
    assert ci(point["pages_per_s"]) == pytest.approx(expected.as_list())
    assert ci(point["cpu_us_per_page"]) == [500.0, 500.0]
    # The warm-up is not a round: only measured ok runs count.
    assert [r["round"] for r in point["rounds"]] == [0, 1, 2]
    assert [r["pages_per_s"] for r in point["rounds"]] == [1000.0, 1100.0, 900.0]


def test_pairing_by_round_cancels_a_drift_both_models_saw() -> None:
    # The machine slows down and speeds up; asyncio is 0.8x threads in every round.
    derived = derive(few_active_runs([1000.0, 1400.0, 700.0], [800.0, 1120.0, 560.0]), {})
    found = derived["comparisons"]["event_loop_vs_threads"]
    asyncio = found["models"][ASYNCIO]
    assert asyncio["pages_per_s"].value == pytest.approx(0.8)
    assert ci(asyncio["pages_per_s"]) == pytest.approx([0.8, 0.8])
    assert ci(found["median_pages_per_s"]) == pytest.approx([0.8, 0.8])
    # Each model's own interval is wide: the drift is in it.
    low, high = ci(derived[FEW_ACTIVE][ASYNCIO]["points"][0]["pages_per_s"]) or [1.0, 1.0]
    assert high / low > 2


def test_a_ratio_is_the_geometric_mean_of_the_rounds_with_the_log_t_interval() -> None:
    derived = derive(few_active_runs([1000.0, 1000.0, 1000.0], [700.0, 800.0, 900.0]), {})
    asyncio = derived["comparisons"]["event_loop_vs_threads"]["models"][ASYNCIO]
    ratio = stats.paired_ratio({0: 0.7, 1: 0.8, 2: 0.9}, {0: 1.0, 1: 1.0, 2: 1.0})
    assert ratio is not None
    assert asyncio["pages_per_s"].value == pytest.approx(ratio.value)
    assert ci(asyncio["pages_per_s"]) == pytest.approx(interval_of(ratio))


def test_rounds_without_a_partner_are_left_out() -> None:
    runs = few_active_runs([1000.0, 1000.0, 1000.0], [800.0, 700.0, 900.0])
    runs[4]["status"] = "crashed"  # asyncio's round 1
    derived = derive(runs, {})
    point = derived[FEW_ACTIVE][ASYNCIO]["points"][0]
    assert [r["round"] for r in point["rounds"]] == [0, 2]
    ratio = stats.paired_ratio({0: 800.0, 2: 900.0}, {0: 1000.0, 2: 1000.0})
    assert ratio is not None
    asyncio = derived["comparisons"]["event_loop_vs_threads"]["models"][ASYNCIO]
    assert asyncio["pages_per_s"].value == pytest.approx(ratio.value)


def test_runs_of_a_file_from_before_rounds_pair_by_repetition_once_migrated() -> None:
    """The plan ran the repetitions round-robin before it recorded rounds: the /1 migration
    gives each measured crawl its repetition as its round."""
    runs = few_active_runs([1000.0, 1400.0, 700.0], [800.0, 1120.0, 560.0], with_round=False)
    old = {"schema": results.SCHEMA_V1, "environment": {}, "runs": runs, "derived": {}}
    derived = analysis.derive(results.migrate(old)["runs"], {})
    asyncio = derived["comparisons"]["event_loop_vs_threads"]["models"][ASYNCIO]
    assert ci(asyncio["pages_per_s"]) == pytest.approx([0.8, 0.8])


def test_one_round_has_a_ratio_and_no_interval() -> None:
    derived = derive(few_active_runs([1000.0], [800.0]), {})
    asyncio = derived["comparisons"]["event_loop_vs_threads"]["models"][ASYNCIO]
    assert asyncio["pages_per_s"].value == pytest.approx(0.8)
    assert ci(asyncio["pages_per_s"]) is None
    assert ci(derived["comparisons"]["event_loop_vs_threads"]["median_pages_per_s"]) is None
    assert ci(derived[FEW_ACTIVE][ASYNCIO]["points"][0]["pages_per_s"]) is None


def test_uvloop_speedup_has_an_interval_per_pair() -> None:
    runs = []
    for rep, (slow, fast) in enumerate([(1000.0, 500.0), (1100.0, 500.0), (900.0, 500.0)]):
        runs.append(crawl_run(FEW_ACTIVE, ASYNCIO, rep, 800.0, cpu_us=slow))
        runs.append(crawl_run(FEW_ACTIVE, catalog.ASYNCIO_UVLOOP.name, rep, 900.0, cpu_us=fast))
    pair = derive(runs, {})["comparisons"]["uvloop"]["pairs"][0]
    expected = stats.paired_ratio({0: 1000.0, 1: 1100.0, 2: 900.0}, {0: 500.0, 1: 500.0, 2: 500.0})
    assert expected is not None
    assert pair["cpu_per_page_speedup"].value == pytest.approx(expected.value)
    # Three rounds are the stopping rule's first look: its interval is the look's (98.75%).
    look = stats.combined_ratio([expected], sequential.look_confidence())[1]
    assert look is not None
    assert ci(pair["cpu_per_page_speedup"]) == pytest.approx(look.as_list())
    assert pair["cpu_per_page_speedup"].method == PAIRED_ROUNDS.format(0.9875)
    assert pair["look"]["ratio"].n == 3
    assert ci(pair["pages_per_s_ratio"]) == pytest.approx([900 / 800, 900 / 800])


def test_fraction_of_ideal_and_the_sleepy_ratio_have_intervals() -> None:
    runs = []
    for rep, (mine, theirs) in enumerate([(3.0, 4.0), (3.5, 4.5), (4.0, 5.0)]):
        for model, wall in ((THREADS, theirs), (ASYNCIO, mine)):
            runs.append(
                crawl_run(SLEEPY, model, rep, 1.0, concurrency=100, latency="2s", wall_s=wall)
            )
    derived = derive(runs, {})
    point = derived[SLEEPY][ASYNCIO]["points"][0]
    plateau = [300 / (wall - 2.0) for wall in (3.0, 3.5, 4.0)]
    interval = stats.t_interval(plateau)
    assert interval is not None
    ideal = 100 / 2.0
    assert ci(point["fraction_of_ideal"]) == pytest.approx(interval.scaled(1 / ideal).as_list())
    found = derived["comparisons"]["asyncio_vs_threads_sleepy"]
    assert found["asyncio_fraction_of_ideal"] == point["fraction_of_ideal"]
    assert ci(found["threads_fraction_of_ideal"]) is not None
    ratio = stats.paired_ratio(
        dict(enumerate(plateau)), {k: 300 / (w - 2.0) for k, w in enumerate((4.0, 4.5, 5.0))}
    )
    assert ratio is not None
    assert found["asyncio_over_threads"].value == pytest.approx(ratio.value)
    assert ci(found["asyncio_over_threads"]) == pytest.approx(interval_of(ratio))


def test_the_event_loops_median_interval_takes_each_models_at_a_bonferroni_level() -> None:
    """C6's median over k event-loop models, where no paired look decides it: each model's
    interval at 1 - 5%/k, so that the median's covers at 95% (c10k.stats.median_interval)."""
    runs = [crawl_run(FEW_ACTIVE, THREADS, 0, 9999.0, kind="warmup")]
    rates = {
        THREADS: [1000.0, 1050.0, 980.0],
        "callbacks": [960.0, 1010.0, 930.0],
        "generators": [820.0, 860.0, 790.0],
        ASYNCIO: [650.0, 700.0, 640.0],
    }
    for rep in range(3):
        runs += [crawl_run(FEW_ACTIVE, model, rep, found[rep]) for model, found in rates.items()]
    found = derive(runs, {})["comparisons"]["event_loop_vs_threads"]
    models = found["models"]
    each_95 = [models[m]["pages_per_s"].interval for m in models]
    assert len(models) == 3
    narrow = stats.median_interval(each_95)
    assert narrow is not None
    median = found["median_pages_per_s"]
    low, high = ci(median) or [0.0, 0.0]
    # Wider than the median of the 95% intervals: each model's is at 1 - 5%/3.
    assert low < narrow.low and high > narrow.high
    assert low <= (median.value or 0.0) <= high


def test_asyncio_is_set_against_the_threads_first_point_at_its_judged_point() -> None:
    # Two threads points at one (C, L), the table's order (processes, then pages): asyncio's
    # judged point, itself the first of its own, pairs with the first, as it always did.
    def point(fraction: float | None, pages: int) -> dict[str, Any]:
        found = None if fraction is None else quantity(fraction, unit="ratio")
        at = {"concurrency": 100, "latency": latency("2s"), "pages": pages, "rounds": []}
        return at | {"fraction_of_ideal": found}

    first = quantity(0.5, unit="ratio")
    for later in (0.9, None):
        table: Any = {ASYNCIO: [point(0.8, 200)], THREADS: [point(0.5, 200), point(later, 600)]}
        found = ratios.asyncio_vs_threads(table)
        assert found is not None and found["threads_fraction_of_ideal"] == first
