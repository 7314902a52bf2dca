"""derive finds, and the report says, which points noisy rounds left without a run, how many
ran again, and which rounds waited for a quiet machine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

from bench.analysis.derive import main as derive_main
from bench.analysis.paired import lost_points
from bench.report import captions, sources
from bench.report.charts_crawl import NO_COUNTED_RUN, chart_sleepy_throughput
from bench.report.cli import main as report_main
from bench.report.tables import noisy_note
from bench.report.verdicts.crawl import rounds_text
from bench.results import PairedComparison, Results, Run
from c10k import catalog

ROOT = Path(__file__).resolve().parent.parent


def _run(shape: str, concurrency: int, noisy: bool) -> dict[str, Any]:
    return {
        "scenario": "realistic",
        "kind": "measured",
        "status": "ok",
        "noisy": noisy,
        "params": {"concurrency": concurrency, "server": {"shape": shape}},
    }


def _document(runs: list[dict[str, Any]], noisy: int) -> Results:
    """The realistic scenario's rounds as derive counts them, the points they lost beside."""
    lost = lost_points(cast(list[Run], runs), "realistic")
    rounds = {"realistic": {"rounds": 3, "noisy": noisy, "again": 1, "lost": lost}}
    return cast(Results, {"derived": {"rounds": rounds}})


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


def test_rounds_that_waited_for_quiet_are_counted_with_their_pauses() -> None:
    document = _document([_run("deep", 100, False)], 0)
    document["derived"]["rounds"]["realistic"] |= {"waited": 2, "waited_s": 35.0}
    text = noisy_note(document, "realistic")
    assert text == (
        " 2 rounds waited 35 s in all for a noisy machine to quiet before they started."
    )


def test_the_conditions_say_how_many_noisy_rounds_ran_again() -> None:
    def comparison(rounds: int, noisy: int, again: int) -> PairedComparison:
        counts = {"rounds": rounds, "noisy": noisy, "again": again}
        return cast(PairedComparison, {"round_counts": counts})

    assert rounds_text(comparison(15, 10, 3)) == (
        ", 15 paired rounds ran at these points (10 noisy, 3 of them run again)"
    )
    assert rounds_text(comparison(5, 1, 1)) == (
        ", 5 paired rounds ran at these points (1 noisy and run again)"
    )
    assert rounds_text(comparison(3, 0, 0)) == ", 3 paired rounds ran at these points, none noisy"
    assert rounds_text(None) == ""


def test_a_report_whose_every_sleepy_round_was_noisy_renders_and_says_so(tmp_path: Path) -> None:
    """A quick run on a busy machine: every sleepy run in a noisy round, so no point counts."""
    document = json.loads((ROOT / "reports" / "results.json").read_text(encoding="utf-8"))
    for run in document["runs"]:
        if run["scenario"] == catalog.SLEEPY.name:
            run["noisy"] = True
    path = tmp_path / "results.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert derive_main([str(path)]) == 0
    found = sources.collect([path])
    chart = chart_sleepy_throughput(found.document)
    assert chart.interpretation == captions.not_run(catalog.SLEEPY.name, NO_COUNTED_RUN)
    assert report_main([str(path), "--out", str(tmp_path / "out")]) == 0
