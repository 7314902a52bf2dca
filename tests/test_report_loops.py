"""Which loop: each loop on the crawler's view and the loop's own, and its claim judged on both."""

from __future__ import annotations

from pathlib import Path
from typing import cast

from bench.analysis.ratios import own_ratio
from bench.report import sources
from bench.report.layout import Table, walk
from bench.report.loops import judged, which_loop
from bench.report.verdicts.base import CONTRADICTED, INCONCLUSIVE, REPRODUCED
from bench.results import InstructionsTable
from c10k import catalog
from c10k.quantity import Interval, Quantity

ROOT = Path(__file__).resolve().parent.parent


def counts(**per_page: float) -> InstructionsTable:
    return cast(
        InstructionsTable,
        {
            m: {"instructions_per_page": Quantity(v, None, "", 1, "instructions/page")}
            for m, v in per_page.items()
        },
    )


def test_the_loops_own_work_is_each_count_less_the_core_replays() -> None:
    table = counts(asyncio=1000.0, uvloop=700.0, **{catalog.CORE_REPLAY: 550.0})
    assert own_ratio(table, "asyncio", "uvloop") == 450.0 / 150.0
    assert own_ratio(counts(asyncio=1000.0, uvloop=700.0), "asyncio", "uvloop") is None
    # A loop whose count is at the core's or under it has no work of its own to compare.
    assert (
        own_ratio(
            counts(asyncio=1000.0, uvloop=500.0, **{catalog.CORE_REPLAY: 550.0}),
            "asyncio",
            "uvloop",
        )
        is None
    )


def test_a_loops_claim_is_judged_as_c9_on_the_interval_and_on_the_count() -> None:
    assert judged(2.5, Interval(2.2, 2.8), 2.0) == REPRODUCED
    assert judged(1.25, Interval(1.17, 1.34), 2.0) == CONTRADICTED
    assert judged(2.0, Interval(1.8, 2.3), 2.0) == INCONCLUSIVE
    assert judged(3.13, None, 2.0) == REPRODUCED  # a count: no interval, no noise
    assert judged(0.48, None, 1.0) == CONTRADICTED
    assert judged(None, None, 2.0) == "not measured"


def test_the_committed_loops_run_shows_every_loop_on_both_views_and_the_finding() -> None:
    found = sources.collect(sources.sample(ROOT), ROOT)
    assert found.loops is not None
    pairs, claims = [b for b in walk(which_loop(found.loops)) if isinstance(b, Table)]
    rows = {row[0]: row for row in pairs.shown().rows}
    league = [twin.name for plain, twin in catalog.LOOP_PAIRS if plain.loop_api != "transports"]
    assert set(league) <= set(rows)
    assert all(rows[name][5] != "-" for name in league)  # the loop's own view, for each
    exact = str(rows[catalog.ASYNCIO_VELOXLOOP.name][6])
    assert exact.startswith("no: ") and catalog.ASYNCIO_VELOXLOOP.finding in exact
    said = {row[0]: row for row in claims.shown().rows}
    assert "names no figure" in said[catalog.ASYNCIO_VELOXLOOP.name][3]
    assert said[catalog.ASYNCIO_ZLOOP.name][2] == catalog.ASYNCIO_UVLOOP.name
