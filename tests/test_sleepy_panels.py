"""The sleepy throughput charts: a panel per server latency, and crosses only for runs made."""

from __future__ import annotations

from typing import Any, cast

import matplotlib.pyplot as plt
import numpy as np

from bench.report.charts import drawing
from bench.report.charts_crawl import chart_sleepy_throughput
from bench.results import NotCounted, Results, crossed_runs
from c10k import catalog
from tests.recorded import latency, quantity

SCENARIO = catalog.SLEEPY_KEEP_ALIVE.name


def _point(concurrency: int, latency_s: float, pages_per_s: float) -> dict[str, Any]:
    return {
        "concurrency": concurrency,
        "latency": latency(f"{latency_s:g}s"),
        "plateau_pages_per_s": quantity(pages_per_s, n=1),
        "ideal_pages_per_s": concurrency / latency_s,
        "server_saturated_runs": 0,
    }


def _problem(model: str, status: str, concurrency: int) -> NotCounted:
    pages_per_s = 300.0 if status != "skipped" else None
    run_id = f"{SCENARIO}/{model}/c{concurrency}"
    return NotCounted(
        run_id, SCENARIO, model, status, "why", concurrency, latency("2s"), pages_per_s,
        None, None, False,
    )  # fmt: skip


def _document() -> Results:
    points = [_point(1000, 2.0, 450.0), _point(3000, 2.0, 1200.0), _point(10000, 10.0, 820.0)]
    return cast(
        Results,
        {
            "derived": {
                SCENARIO: {"asyncio": {"points": points}},
                "not_counted": [
                    _problem("threads", "timeout", 3000),
                    _problem("interpreters", "skipped", 1000),
                ],
            }
        },
    )


def test_each_latency_gets_its_own_panel_and_no_line_joins_two() -> None:
    with drawing():
        chart = chart_sleepy_throughput(_document(), SCENARIO)
    axes = chart.figure.axes
    assert [ax.get_title() for ax in axes] == ["L = 2s", "L = 10s"]
    model_lines = [
        [
            np.asarray(line.get_xdata(), dtype=float).tolist()
            for line in ax.get_lines()
            if line.get_label() == "asyncio"
        ]
        for ax in axes
    ]
    assert model_lines == [[[1000.0, 3000.0]], [[10000.0]]]
    plt.close(chart.figure)


def test_a_run_never_made_is_not_crossed_out() -> None:
    found = crossed_runs(_document()["derived"], SCENARIO)
    assert [(p.model, p.status) for p in found] == [("threads", "timeout")]
