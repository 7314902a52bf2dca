"""Verification and plateau summaries of one run, on hand-made data (no process started)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.analysis.plateau import plateau_summary
from bench.harness.verify import verification_failures, verify
from bench.results import SAMPLE_FIELDS

ROOT = "http://127.0.0.1:1/"
REPORTS = Path(__file__).resolve().parent.parent / "reports"
MANIFEST: dict[str, Any] = {
    "count": 3,
    "urls": {ROOT: 200, ROOT + "a": 404, ROOT + "b": "error:reset"},
}


def test_verify_accepts_the_manifest() -> None:
    result = verify(dict(MANIFEST["urls"]), MANIFEST, 2, {"peak_in_flight": 2}, True)
    assert result["ok"] and result["manifest_ok"] and result["peak_ok"]


def test_verify_reports_missing_extra_and_different() -> None:
    fetched: dict[str, Any] = {ROOT: 200, ROOT + "a": 200, ROOT + "c": 200}
    result = verify(fetched, MANIFEST, 2, None, False)
    assert not result["ok"]
    assert (result["missing"], result["extra"], result["different"]) == (1, 1, 1)
    assert result["examples"]["different"] == [[ROOT + "a", 200, 404]]


def test_a_crawl_of_parts_is_verified_against_each_parts_manifest() -> None:
    first: dict[str, Any] = {"urls": {ROOT + "?part=0": 200, ROOT + "a": 404}}
    second: dict[str, Any] = {"urls": {ROOT + "?part=1": 200, ROOT + "b": "error:reset"}}
    union = first["urls"] | second["urls"]
    assert verify(union, MANIFEST, 2, None, False, parts=[(2, first), (2, second)])["ok"]
    # The union fetched, but one process fetched a URL of the other's part.
    crossed = verify(union, MANIFEST, 2, None, False, parts=[(3, first), (1, second)])
    assert not crossed["ok"] and crossed["missing"] == crossed["extra"] == 0
    assert crossed["examples"]["parts"] == [[0, 3, 2], [1, 1, 2]]
    assert "process 0 fetched 3 URLs, its part has 2" in verification_failures(crossed)


def test_verify_requires_the_peak_within_one_percent() -> None:
    urls = {f"{ROOT}p/{i}": 200 for i in range(1000)} | {ROOT: 200}
    manifest = {"count": len(urls), "urls": urls}
    assert verify(urls, manifest, 1000, {"peak_in_flight": 990}, True)["ok"]
    low = verify(urls, manifest, 1000, {"peak_in_flight": 989}, True)
    assert not low["ok"] and low["manifest_ok"] and not low["peak_ok"]
    assert verify(urls, manifest, 1000, {"peak_in_flight": 5}, False)["ok"]


def columns(fds: list[int], rss: list[int]) -> dict[str, list[Any]]:
    n = len(fds)
    data: dict[str, list[Any]] = {name: [0] * n for name in SAMPLE_FIELDS}
    data["t"] = [i * 0.1 for i in range(n)]
    data["fds"] = fds
    data["rss_kib"] = rss
    data["vmrss_kib"] = rss
    data["uss_kib"] = [None] * n
    return data


def test_plateau_is_the_first_stretch_with_every_connection_open() -> None:
    fds = [3, 3, 4, 60, 103, 103, 103, 50, 103, 103, 3]
    rss = [10_000, 10_000, 10_000, 11_000, 12_000, 12_100, 12_200, 12_500, 13_000, 13_000, 13_000]
    summary = plateau_summary(columns(fds, rss), 100)
    assert summary["plateau_samples"] == 3 and summary["samples_above_threshold"] == 5
    assert summary["rss_kib"] == 12_100
    assert summary["t_start"] == pytest.approx(0.4) and summary["t_end"] == pytest.approx(0.6)
    # Every sample above the threshold counts for the peak, the second stretch too.
    assert summary["max_rss_kib_above_threshold"] == 13_000


def test_plateau_missing_when_connections_never_all_open() -> None:
    summary = plateau_summary(columns([3, 10, 20, 3], [1, 2, 3, 4]), 100)
    assert summary["plateau_samples"] == 0 and "rss_kib" not in summary


def test_plateau_is_the_quiet_first_wave_not_the_responses_after_it() -> None:
    # The fds never dip below the threshold between the waves: the first stretch runs on into
    # the second wave, whose RSS holds the responses read. The plateau is the quiet part of
    # the first wave only: every connection open, the crawler waiting (no CPU used).
    fds = [3, 50, 103, 103, 103, 103, 120, 103, 103, 103, 3]
    rss = [10_000, 11_000, 12_000, 12_100, 12_100, 12_100, 15_000, 16_000, 16_000, 16_000, 9_000]
    cpu = [0.1, 0.2, 0.3, 0.3, 0.3, 0.3, 0.4, 0.5, 0.5, 0.5, 0.6]
    data = columns(fds, rss) | {"cpu_user_s": cpu, "cpu_sys_s": [0.0] * len(fds)}
    summary = plateau_summary(data, 100)
    assert summary["plateau_quiet"] and summary["stretch_samples"] == 8
    assert summary["plateau_samples"] == 3 and summary["rss_kib"] == 12_100
    assert summary["t_start"] == pytest.approx(0.3) and summary["t_end"] == pytest.approx(0.5)


def test_a_rollup_read_counts_only_when_the_next_sample_is_still_in_the_plateau() -> None:
    # smaps_rollup is read after the RSS, and slowly: the plateau's last read (32,000) already
    # holds the first responses, more anonymous memory than the RSS read just before it.
    fds = [3, 103, 103, 103, 103, 120, 3]
    rss = [10_000, 20_000, 20_000, 20_000, 20_000, 30_000, 9_000]
    cpu = [0.1, 0.2, 0.2, 0.2, 0.2, 0.4, 0.5]
    anon = [None, None, 19_000, None, 32_000, None, None]
    data = columns(fds, rss) | {"cpu_user_s": cpu, "cpu_sys_s": [0.0] * len(fds)}
    summary = plateau_summary(data | {"anon_kib": anon, "smaps_rss_kib": anon}, 100)
    assert summary["plateau_quiet"] and summary["plateau_samples"] == 3
    assert summary["rss_kib"] == 20_000
    assert summary["anon_kib"] == 19_000 and summary["smaps_rss_kib"] == 19_000
    # Read only at the plateau's last sample: no reading known to be in the plateau.
    late = data | {"anon_kib": [None, None, None, None, 32_000, None, None]}
    assert plateau_summary(late, 100)["anon_kib"] is None


def test_plateau_falls_back_to_the_stretch_when_the_crawler_never_waits() -> None:
    fds = [3, 103, 103, 103, 3]
    data = columns(fds, [1, 2, 3, 4, 5]) | {"cpu_user_s": [0.0, 0.1, 0.2, 0.3, 0.4]}
    summary = plateau_summary(data, 100)
    assert not summary["plateau_quiet"] and summary["plateau_samples"] == 3
    assert summary["rss_kib"] == 3


def test_the_base_of_several_processes_is_the_whole_tree_not_the_parent_alone() -> None:
    # `c10k crawl --processes 2`: the parent alone (5 fds), then its two children (10 files
    # each before a connection), 30 connections in all, then the workers' exit.
    fds = [5, 5, 25, 40, 55, 55, 55, 30, 25, 5]
    processes = [1, 1, 3, 3, 3, 3, 3, 3, 3, 1]
    data = columns(fds, [1_000 * f for f in fds]) | {"processes": processes}
    summary = plateau_summary(data, 30)
    # From the parent's 5 fds, 40 (half the connections open) would pass the threshold.
    assert summary["base_fds"] == 25 and summary["threshold_fds"] == pytest.approx(53.5)
    assert summary["stretch_samples"] == 3 and summary["processes"] == 3
    assert summary["t_start"] == pytest.approx(0.4) and summary["fds"] == 55


def test_a_sample_of_another_set_of_processes_is_never_quiet() -> None:
    # A worker exits: the summed CPU falls, which would read as a quiet sample.
    data = columns([25, 60, 60, 60, 60, 60, 60, 60], [1, 2, 3, 4, 5, 6, 7, 8]) | {
        "processes": [3, 3, 3, 3, 3, 2, 2, 2],
        "cpu_user_s": [1.0, 1.5, 1.5, 1.5, 1.5, 0.9, 0.9, 0.9],
    }
    summary = plateau_summary(data, 30)
    assert summary["plateau_quiet"] and summary["stretch_samples"] == 7
    assert summary["plateau_samples"] == 3 and summary["t_end"] == pytest.approx(0.4)


def test_a_lone_quiet_sample_is_not_the_plateau() -> None:
    # The ramp's tail: one quiet sample (RSS still growing) between busy ones, then the wait.
    fds = [3, 103, 103, 103, 103, 103, 103, 103, 3]
    rss = [10_000, 15_000, 16_000, 18_000, 20_000, 20_000, 20_000, 20_000, 9_000]
    cpu = [0.1, 0.3, 0.3, 0.5, 0.7, 0.7, 0.7, 0.7, 0.9]
    data = columns(fds, rss) | {"cpu_user_s": cpu, "cpu_sys_s": [0.0] * len(fds)}
    summary = plateau_summary(data, 100)
    assert summary["plateau_quiet"] and summary["plateau_samples"] == 3
    assert summary["rss_kib"] == 20_000 and summary["t_start"] == pytest.approx(0.5)


def test_quiet_runs_too_short_leave_the_stretch() -> None:
    # Quiet only one sample at a time: no wait long enough to be the plateau.
    fds = [3, 103, 103, 103, 103, 103, 3]
    cpu = [0.1, 0.3, 0.3, 0.5, 0.5, 0.7, 0.9]
    data = columns(fds, [1, 2, 3, 4, 5, 6, 7]) | {"cpu_user_s": cpu, "cpu_sys_s": [0.0] * 7}
    summary = plateau_summary(data, 100)
    assert not summary["plateau_quiet"] and summary["plateau_samples"] == 5


def test_the_plateau_records_its_medians_in_the_order_the_sample_holds() -> None:
    """A run's plateau keeps the layout of the results files recorded so far (docs/results.md)."""
    sample = json.loads((REPORTS / "results.json").read_text())
    recorded = next(r["plateau"] for r in sample["runs"] if "rss_kib" in (r.get("plateau") or {}))
    fds = [3, 103, 103, 103, 103]
    summary = plateau_summary(columns(fds, [10_000] * len(fds)), 100)
    assert list(summary) == [name for name in recorded if name in summary]
