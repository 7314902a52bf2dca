"""The headline's workloads: the realistic site derive reads, and when a column is ranked."""

from __future__ import annotations

from typing import Any, cast

from bench.analysis.highlights import realistic_highlights
from bench.analysis.points import Points
from bench.report.answer import Workload, memory_bound, pick, realistic_site, workloads
from bench.report.charts_glance import headline_caption
from bench.report.layout import plain
from bench.results import Results
from c10k.quantity import Interval
from c10k.words import Entry
from tests.recorded import quantity


def _point(site: str, concurrency: int, pages_per_s: float) -> dict[str, Any]:
    found = quantity(pages_per_s, n=1)
    return {"site": site, "concurrency": concurrency, "pages": 100, "runs": 1} | {
        "pages_per_s": found,
        "cpu_us_per_page": found,
        "latency_p99_s": found,
    }


def _document(points: dict[str, list[dict[str, Any]]]) -> Results:
    """The realistic scenario's highlights, as derive finds them in these points."""
    found = realistic_highlights(cast(Points, points))
    return cast(Results, {"derived": {"highlights": {"realistic": found}}})


def test_the_realistic_column_reads_the_deep_site_where_it_ran() -> None:
    document = _document(
        {
            "asyncio": [
                _point("docs", 16, 200.0),
                _point("deep", 8, 90.0),
                _point("deep", 32, 300.0),
            ],
            "threads": [_point("docs", 16, 210.0), _point("deep", 32, 250.0)],
        }
    )
    found = realistic_site(document)
    assert found.where == "realistic deep site, C 32"
    assert {e.name: e.value for e in found.entries} == {"asyncio": 300.0, "threads": 250.0}


def test_the_realistic_column_falls_back_to_the_docs_site() -> None:
    document = _document(
        {"asyncio": [_point("docs", 16, 200.0)], "threads": [_point("docs", 16, 210.0)]}
    )
    found = realistic_site(document)
    assert found.where == "realistic docs site, C 16"
    assert {e.name: e.value for e in found.entries} == {"asyncio": 200.0, "threads": 210.0}


def _workload(entries: list[Entry]) -> Workload:
    return Workload(
        "A few busy connections", "pages/s", "few-active, C 64", "few-active", True, entries, str
    )


def test_the_caption_names_the_models_tied_with_the_best() -> None:
    entries = [
        Entry("callbacks", 100.0, Interval(90.0, 110.0)),
        Entry("threads", 95.0, Interval(85.0, 105.0)),
        Entry("trio", 50.0, Interval(45.0, 55.0)),
    ]
    caption = headline_caption([_workload(entries)])
    assert "best callbacks" in caption
    assert "tied within noise with threads;" in caption or caption.endswith(
        "tied within noise with threads."
    )
    assert "trio" not in caption


def test_a_column_of_single_runs_is_not_ranked() -> None:
    entries = [Entry("callbacks", 100.0), Entry("threads", 95.0)]
    caption = headline_caption([_workload(entries)])
    assert "one run per model, not ranked" in caption
    assert "best" not in caption.split("(tied within noise).")[-1]


def test_a_workload_that_did_not_run_names_its_scenario() -> None:
    empty = cast(Results, {"derived": {}})
    assert plain(pick(memory_bound(empty))) == "Memory-bound: not measured (sleepy did not run)."
    assert all(w.scenario in plain(pick(w)) for w in workloads(empty))
