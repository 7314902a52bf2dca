"""Isolated cores: the CPU split, --pin, the CPU-bound side, the harness's cost, peak memory."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from bench.analysis import busy
from bench.analysis.memory import memory_per_connection
from bench.analysis.paired import Comparison, shared_points
from bench.analysis.points import crawl_point
from bench.harness import cores
from bench.harness.plan import PlannedRun
from bench.harness.recipes import run_crawl
from bench.harness.site import ServeOptions, Server
from bench.interpreter import python_command
from bench.results import Busy, CrawlDocument, HarnessShare, Run
from c10k import catalog
from c10k.durations import Latency
from tests.planned import measured_crawl
from tests.recorded import crawl_record, derive, runs_of

# Pins CPUs, loads the machine or changes its limits: one xdist worker runs these (tox.ini).
pytestmark = pytest.mark.xdist_group("machine")

# -- the split ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cpus",
    [[0, 1], [0, 1, 2], [3, 1, 2, 0], list(range(8)), [2, 5, 7], [4, 6]],
    ids=["2", "3", "4 unordered", "8", "3 sparse", "2 sparse"],
)
def test_the_two_sets_are_disjoint_and_cover_the_machine(cpus: list[int]) -> None:
    sets = cores.split_cpus(cpus)
    assert sets is not None
    assert set(sets.server).isdisjoint(sets.crawler)
    assert set(sets.server) | set(sets.crawler) == set(cpus)
    assert sets.server and sets.crawler


def test_two_cpus_give_one_each_and_three_give_the_server_side_two() -> None:
    assert cores.split_cpus([0, 1]) == cores.CpuSets(server=(0,), crawler=(1,))
    # The server's half also carries the harness: it takes the odd CPU.
    assert cores.split_cpus([0, 1, 2]) == cores.CpuSets(server=(0, 1), crawler=(2,))


def test_one_cpu_cannot_be_split_and_runs_unpinned() -> None:
    assert cores.split_cpus([3]) is None
    pinning = cores.plan_pinning("on", [3])
    assert pinning.sets is None and pinning.server is None and pinning.crawler is None
    recorded = pinning.as_dict()
    assert recorded["requested"] == "on" and recorded["applied"] is False
    assert "1 CPU usable" in str(recorded["note"]) and "unpinned" in str(recorded["note"])


def test_pin_off_asks_for_no_sets_and_names_no_reason() -> None:
    recorded = cores.plan_pinning("off", [0, 1, 2, 3]).as_dict()
    assert recorded == {
        "requested": "off",
        "applied": False,
        "usable": [0, 1, 2, 3],
        "server": None,
        "crawler": None,
        "harness": None,
        "note": None,
    }


def test_the_harness_shares_the_servers_set() -> None:
    recorded = cores.plan_pinning("on", [0, 1, 2, 3]).as_dict()
    assert recorded["harness"] == recorded["server"] == [0, 1]
    assert recorded["crawler"] == [2, 3] and recorded["applied"]


def test_an_unknown_pin_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="--pin"):
        cores.plan_pinning("sometimes", [0, 1])


@pytest.mark.parametrize("value", ["maybe", "ON", ""])
def test_a_bad_pin_value_is_one_line_and_exit_2(value: str) -> None:
    done = subprocess.run(
        python_command("bench", "--pin", value, "--dry-run"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "--pin" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("value", ["on", "off"])
def test_both_pin_modes_are_accepted(value: str) -> None:
    done = subprocess.run(
        python_command("bench", "--pin", value, "--profile", "quick", "--dry-run"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


def test_a_thread_runs_on_the_set_inside_the_block_and_where_it_was_after() -> None:
    before = os.sched_getaffinity(0)
    chosen = {min(before)}
    with cores.this_thread_on(chosen):
        assert os.sched_getaffinity(0) == chosen
    assert os.sched_getaffinity(0) == before
    with cores.this_thread_on(None):
        assert os.sched_getaffinity(0) == before


# -- which side was CPU-bound ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("crawler", "server", "side"),
    [
        (0.95, 0.30, "crawler"),
        (0.40, 0.90, "server"),
        (0.90, 0.99, "both"),
        (0.89, 0.89, "neither"),
        (0.0, 0.0, "neither"),
        (None, 0.95, None),
    ],
)
def test_a_side_busy_90_percent_of_its_cpus_is_cpu_bound(
    crawler: float | None, server: float | None, side: str | None
) -> None:
    assert busy.classify(crawler, server) == side


def test_busy_is_cpu_over_wall_over_the_cpus_of_the_set() -> None:
    found = cores.busy(3.0, 1.0, wall_s=2.0, crawler_cpus=2, server_cpus=1)
    assert found is not None
    assert found["crawler"] == 0.75 and found["server"] == 0.5
    assert found["cpu_bound"] == "neither"
    assert cores.busy(1.0, 1.0, 0.0, 1, 1) is None


def test_the_server_can_keep_busy_no_more_cpus_than_it_has_workers() -> None:
    assert cores.server_capacity(server_cpus=1, workers=2) == 1
    assert cores.server_capacity(server_cpus=4, workers=1) == 1
    assert cores.server_capacity(server_cpus=4, workers=2) == 2


def sampled(t: list[float], crawler_cpu: list[float], server_cpu: list[float]) -> dict[str, Any]:
    return {
        "t": t,
        "cpu_user_s": crawler_cpu,
        "cpu_sys_s": [0.0] * len(t),
        "server_cpu_s": server_cpu,
    }


def test_run_busy_takes_the_crawlers_own_cpu_over_the_crawl_and_the_servers_sampled() -> None:
    columns = sampled([0.0, 1.0, 2.0, 3.0], [0.5, 1.0, 1.5, 2.9], [10.0, 10.0, 11.0, 11.7])
    crawl: CrawlDocument = {"wall_s": 2.0, "cpu_user_s": 1.5, "cpu_sys_s": 0.4}
    found = cores.run_busy(crawl, columns, crawler_cpus=1, server_cpus=1)
    assert found is not None
    assert found["crawler"] == pytest.approx(0.95) and found["server"] == pytest.approx(0.85)
    assert found["cpu_bound"] == "crawler"


def test_run_busy_without_a_crawl_document_reads_both_sides_from_the_samples() -> None:
    columns = sampled([0.0, 2.0], [1.0, 2.0], [0.0, 1.9])
    found = cores.run_busy(None, columns, crawler_cpus=1, server_cpus=1)
    assert found is not None
    assert found["crawler"] == 0.5 and found["server"] == pytest.approx(0.95)
    assert found["cpu_bound"] == "server"
    assert cores.run_busy(None, sampled([0.0], [1.0], [1.0]), 1, 1) is None


def test_run_busy_is_unknown_when_a_sample_lost_the_servers_cpu() -> None:
    columns = sampled([0.0, 1.0, 2.0], [0.5, 1.0, 1.5], [10.0, None, 11.0])  # type: ignore[list-item]
    assert cores.run_busy(None, columns, crawler_cpus=1, server_cpus=1) is None


def crawl_run(
    concurrency: int,
    max_rss_kib: float,
    plateau_rss_kib: float | None = None,
    run_busy: Busy | None = None,
    harness: HarnessShare | None = None,
    kind: str = "measured",
) -> Run:
    """A recorded sleepy run, with what derive reads."""
    run = crawl_record(
        catalog.SLEEPY.name,
        "m",
        concurrency,
        {"latency": "0", "pages": 2 * concurrency, "shape": "deep"},
        {
            "pages": 2 * concurrency,
            "pages_per_s": 100.0,
            "cpu_us_per_page": 50.0,
            "latency_s": {"p50": 0.01, "p99": 0.02},
            "max_rss_kib": max_rss_kib,
            "wall_s": 1.0,
        },
        kind,
    )
    run["round"] = 0 if kind == "measured" else None
    run["kernel_before"] = {"meminfo_kib": {}, "sockstat": {}}
    run["samples"] = {"t": [0.0, 1.0]}
    if plateau_rss_kib is not None:
        run["plateau"] = {"rss_kib": plateau_rss_kib}
    if run_busy is not None:
        run["busy"] = run_busy
    if harness is not None:
        run["harness"] = harness
    return runs_of([run])[0]


def test_a_points_cpu_bound_side_is_that_of_its_median_shares() -> None:
    runs = [
        crawl_run(10, 1000, run_busy=cores.busy(0.95, 0.2, 1.0, 1, 1)),
        crawl_run(10, 1000, run_busy=cores.busy(0.97, 0.3, 1.0, 1, 1)),
        crawl_run(10, 1000, run_busy=cores.busy(0.50, 0.4, 1.0, 1, 1)),
    ]
    point = crawl_point(runs)
    assert point["cpu_bound"] == "crawler"
    assert point["crawler_busy"] == 0.95 and point["server_busy"] == 0.3
    assert point["cpu_bound_runs"] == {"crawler": 2, "neither": 1}


def test_runs_recorded_without_busy_shares_give_no_cpu_bound_side() -> None:
    assert "cpu_bound" not in crawl_point([crawl_run(10, 1000)])


def test_a_run_that_lost_reads_of_the_servers_cpu_decides_no_side_nor_saturation() -> None:
    marked = crawl_run(10, 1000, run_busy=cores.busy(0.2, 0.95, 1.0, 1, 1))
    marked["sampler_failures"] = {"server_cpu": {"count": 3, "reason": "NoSuchProcess(pid=1)"}}
    marked["server"]["saturated"] = True  # what it would have said from the reads it kept
    alone = crawl_point([marked])
    assert "cpu_bound" not in alone
    assert alone["server_saturated_runs"] == 0 and alone["server_unknown_runs"] == 1
    beside = crawl_point([marked, crawl_run(10, 1000, run_busy=cores.busy(0.3, 0.2, 1.0, 1, 1))])
    assert beside["cpu_bound"] == "neither" and beside["cpu_bound_runs"] == {"neither": 1}
    # C6 leaves out a point no run of which could tell, and keeps one its other runs decide.
    c6 = Comparison("C6", "t", "few-active", "pages_per_s", ("a",), "b", (0.5, 0.95), True)
    assert shared_points({"a": [alone], "b": [beside]}, c6) == []
    assert shared_points({"a": [beside], "b": [beside]}, c6) == [(10, Latency("fixed"))]


# -- memory per connection, held and peak --------------------------------------------------


def test_peak_is_the_slope_of_the_peak_rss_held_that_of_the_plateau() -> None:
    # Held: 10 KiB per connection over a 20 MiB base; peak: 30 KiB per connection.
    runs = [
        crawl_run(c, max_rss_kib=40_000 + 30 * c, plateau_rss_kib=20_000 + 10 * c)
        for c in (1000, 3000, 10000)
    ]
    points = [crawl_point([r]) for r in runs]
    fit = memory_per_connection(points, 1000, runs)
    assert fit.rss_bytes.slope.value == pytest.approx(10 * 1024)
    assert fit.peak_rss_bytes.slope.value == pytest.approx(30 * 1024)
    assert fit.peak_rss_bytes.r2 == pytest.approx(1.0)
    assert fit.peak_rss_bytes.slope.n == 3


def test_peak_leaves_out_the_points_the_held_fit_leaves_out() -> None:
    runs = [
        crawl_run(c, max_rss_kib=1000 + 5 * c, plateau_rss_kib=500 + c) for c in (100, 1000, 3000)
    ]
    points = [crawl_point([r]) for r in runs]
    fit = memory_per_connection(points, 1000, runs)
    assert fit.peak_rss_bytes.slope.n == 2 and fit.concurrencies == [1000, 3000]


# -- the harness's own cost ------------------------------------------------------------------


def test_harness_cost_is_the_median_and_max_share_over_measured_sampled_crawls() -> None:
    runs = [
        crawl_run(10, 1000, harness=cores.harness_share(0.01, 1.0) | {"sampler_cpu_s": 0.005}),
        crawl_run(20, 1000, harness=cores.harness_share(0.03, 1.0) | {"sampler_cpu_s": 0.02}),
        crawl_run(30, 1000, harness=cores.harness_share(0.02, 1.0) | {"sampler_cpu_s": 0.01}),
        # A warm-up is not measured: left out, however busy the harness was.
        crawl_run(40, 1000, harness=cores.harness_share(0.5, 1.0), kind="warmup"),
    ]
    cost = derive(runs, {})["harness_cost"]
    assert cost["runs"] == 3
    assert cost["median_share"] == pytest.approx(0.02)
    assert cost["max_share"] == pytest.approx(0.03)
    assert cost["max_run"] == "sleepy/m/c20/s0/measured0"
    assert cost["sampler_median_share"] == pytest.approx(0.01)


def test_no_harness_figures_recorded_give_no_cost() -> None:
    assert derive([crawl_run(10, 1000)], {})["harness_cost"] is None


# -- a pinned run, for real ------------------------------------------------------------------

SITE = ServeOptions(pages=30, links=5, shape="deep")


@pytest.fixture(scope="module")
def pinned_site() -> Iterator[tuple[Server, cores.CpuSets | None]]:
    """The test site on the server's half of the CPUs (anywhere with one CPU)."""
    sets = cores.split_cpus(os.sched_getaffinity(0))
    server_cpus = sets.server if sets else None
    with cores.this_thread_on(server_cpus):  # as `c10k bench` runs: the harness on the server's
        server = Server(SITE, server_cpus)
        server.start()
        try:
            yield server, sets
        finally:
            server.stop()


def few_active_run(model: str) -> PlannedRun:
    return measured_crawl(catalog.FEW_ACTIVE, model, SITE, 30.0)


@pytest.mark.slow
def test_a_pinned_crawl_records_the_sets_it_ran_on(
    pinned_site: tuple[Server, cores.CpuSets | None],
) -> None:
    server, sets = pinned_site
    if sets is None:
        pytest.skip("pinning needs two CPUs")
    with cores.this_thread_on(sets.server):
        record = run_crawl(few_active_run(catalog.THREADS.name), server, 0.05, sets)
    assert record["status"] == "ok", record["reason"]
    pinning = record["pinning"]
    assert pinning["applied"] is True
    assert pinning["crawler"] == list(sets.crawler)
    assert pinning["server"] == list(sets.server)
    assert pinning["harness"] == pinning["sampler"] == list(sets.server)
    assert set(pinning["crawler"]).isdisjoint(pinning["server"])
    found = record["busy"]
    assert found is not None
    assert found["crawler_cpus"] == len(sets.crawler)
    assert found["cpu_bound"] in busy.SIDES
    assert record["server"]["saturated"] == (found["server"] >= busy.BUSY_SHARE)
    harness = record["harness"]
    assert harness["cpu_s"] > 0 and harness["sampler_cpu_s"] > 0
    assert harness["share"] == harness["cpu_s"] / harness["wall_s"]
    assert record["sampler_failures"] == {}


@pytest.mark.slow
def test_an_unpinned_crawl_runs_where_the_harness_runs(
    pinned_site: tuple[Server, cores.CpuSets | None],
) -> None:
    server, _ = pinned_site
    record = run_crawl(few_active_run(catalog.CALLBACKS.name), server, 0.05, None)
    assert record["status"] == "ok", record["reason"]
    assert record["pinning"]["applied"] is False
    assert record["pinning"]["crawler"] == sorted(os.sched_getaffinity(0))
    found = record["busy"]
    assert found is not None and found["crawler_cpus"] == len(os.sched_getaffinity(0))
