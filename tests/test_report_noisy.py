"""The report says which points noisy rounds left without a run."""

from __future__ import annotations

from typing import Any, cast

from bench.report.tables import noisy_note
from bench.results import Results


def _run(shape: str, concurrency: int, noisy: bool) -> dict[str, Any]:
    return {
        "scenario": "realistic",
        "kind": "measured",
        "status": "ok",
        "noisy": noisy,
        "params": {"concurrency": concurrency, "server": {"shape": shape}},
    }


def _document(runs: list[dict[str, Any]], noisy: int) -> Results:
    rounds = {"realistic": {"rounds": 3, "noisy": noisy, "again": 1}}
    return cast(Results, {"runs": runs, "derived": {"rounds": rounds}})


def test_a_point_whose_every_run_was_noisy_is_named() -> None:
    runs = [_run("deep", 100, True), _run("deep", 100, True), _run("docs", 16, False)]
    text = noisy_note(_document(runs, 2), "realistic")
    assert "2 of the scenario's 3 rounds were noisy" in text
    assert text.endswith("the deep site at C 100 has no point here.")


def test_a_point_with_a_quiet_run_left_is_not_named() -> None:
    runs = [_run("deep", 100, True), _run("deep", 100, False)]
    text = noisy_note(_document(runs, 1), "realistic")
    assert "1 of the scenario's 3 rounds was noisy" in text and "no point" not in text


def test_no_noisy_round_says_nothing() -> None:
    assert noisy_note(_document([_run("deep", 100, False)], 0), "realistic") == ""
