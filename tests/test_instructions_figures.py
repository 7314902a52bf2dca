"""Instructions per page from counted runs: derived, compared for C6 and C9, and reported."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench import results
from bench.analysis.derive import derive_document
from bench.report.page import markdown
from bench.report.verdicts import verdicts
from bench.results import Results
from c10k import catalog
from tests.recorded import derive, runs_of

DATA = Path(__file__).parent / "data"
# Instructions per page of each counted run: the core's share is easy to check by hand.
COUNTS = {
    catalog.THREADS.name: 800_000.0,
    catalog.CALLBACKS.name: 640_000.0,
    catalog.ASYNCIO.name: 1_600_000.0,
    catalog.ASYNCIO_UVLOOP.name: 1_000_000.0,
    catalog.CORE_REPLAY: 400_000.0,
}


def counted_run(model: str, per_page: float, status: str = "ok") -> dict[str, Any]:
    return {
        "id": f"instructions/{model}/c16/s0/measured0",
        "scenario": catalog.INSTRUCTIONS.name,
        "model": model,
        "kind": "measured",
        "repetition": 0,
        "status": status,
        "reason": None if status == "ok" else "exit 1: boom",
        "block": "instructions/s0/round0",
        "again": 0,
        "noisy": False,
        "params": {"concurrency": 16, "server": {"pages": 300, "latency": "0"}},
        "instructions": {
            "startup_ir": 300_000_000,
            "crawl_ir": int(per_page * 346),
            "exit_ir": 30_000_000,
            "pages": 346,
            "per_page": per_page,
            "pythonhashseed": 0,
        },
    }


def counted_runs() -> list[dict[str, Any]]:
    return [counted_run(model, per_page) for model, per_page in COUNTS.items()]


def test_each_model_gets_its_count_and_the_core_share() -> None:
    table = derive(counted_runs(), {})[catalog.INSTRUCTIONS.name]
    assert table[catalog.THREADS.name]["instructions_per_page"].value == 800_000.0
    assert table[catalog.THREADS.name]["core_share"] == pytest.approx(0.5)
    assert table[catalog.CALLBACKS.name]["core_share"] == pytest.approx(0.625)
    assert "core_share" not in table[catalog.CORE_REPLAY]


def test_without_the_core_replay_there_is_no_share() -> None:
    runs = [r for r in counted_runs() if r["model"] != catalog.CORE_REPLAY]
    table = derive(runs, {})[catalog.INSTRUCTIONS.name]
    assert all("core_share" not in entry for entry in table.values())


def test_a_failed_count_is_counted_as_failed_not_as_a_figure() -> None:
    runs = [*counted_runs()[1:], counted_run(catalog.THREADS.name, 1.0, status="crashed")]
    table = derive(runs, {})[catalog.INSTRUCTIONS.name]
    assert table[catalog.THREADS.name] == {"runs_by_status": {"crashed": 1}}
    ratios = derive(runs, {})["comparisons"]["instructions"]
    assert ratios["event_loop_vs_threads"] == {}  # nothing to compare with


def test_ratios_for_the_event_loop_and_uvloop_claims() -> None:
    ratios = derive(counted_runs(), {})["comparisons"]["instructions"]
    assert ratios["event_loop_vs_threads"] == {
        catalog.CALLBACKS.name: pytest.approx(0.8),
        catalog.ASYNCIO.name: pytest.approx(2.0),
    }
    assert ratios["uvloop_speedup"] == {catalog.ASYNCIO_UVLOOP.name: pytest.approx(1.6)}


@pytest.fixture
def with_counts() -> Results:
    """A recorded quick run (few-active and the rest) with the counted runs added."""
    document = results.load(DATA / "report-failures.json")
    document["runs"] += runs_of(counted_runs())
    document["derived"] = derive_document(document)
    return document


def test_the_report_shows_the_counts_beside_the_cpu_per_page(with_counts: Results) -> None:
    text = markdown(with_counts)
    assert "| threads | 16 | 346 | 800,000 | 50% |" in text
    assert "| core-replay | 16 | 346 | 400,000 | - |" in text


def test_the_verdicts_quote_the_instruction_ratios(with_counts: Results) -> None:
    found = verdicts(with_counts)
    c6, c9 = "; ".join(found["C6"].conditions), "; ".join(found["C9"].conditions)
    assert "callgrind: callbacks 0.80x threads' instructions/page" in c6
    assert "callgrind: asyncio-uvloop 1.60x fewer instructions/page" in c9


def test_without_counts_the_report_says_not_measured() -> None:
    document = results.load(DATA / "report-failures.json")
    text = markdown(document)
    section = text.split('id="instructions-table"')[1].split("##")[0]
    assert "Not measured." in section
    assert "callgrind" not in "".join("".join(v.conditions) for v in verdicts(document).values())
