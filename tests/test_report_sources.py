"""Several results files in one report: each recognised by what it holds, each claim judged
from the file that measured it, the file named beside it, and a missing one's command."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from bench import results
from bench.report import cli, sources
from bench.report import verdicts as v
from bench.results import SCHEMA
from tests.test_report_verdicts import (
    THREE,
    ceiling,
    few_active_rounds,
    sleepy,
    threads_on_the_machine,
)
from tests.test_report_verdicts import document as results_document
from tests.test_runtimes_free_threading import side_by_side

WINNING = {2: [1500.0, 1510.0, 1490.0], 8: [3000.0, 3030.0, 2970.0]}  # 3.14t 1.5x the GIL's


def write(path: Path, document: Mapping[str, Any]) -> Path:
    results.write_atomic(path, document)
    return path


def main_run(tmp_path: Path) -> Path:
    """A default run: few-active with asyncio at 80% of the threads (C6 reproduced), and the
    machine's threads against only 10,000 connections (C5 not measurable)."""
    machine = ceiling(31_000, "pid-reserve") | {"processes": 4}
    idle = {
        "thread": {
            "max_threads": ceiling(22_000, "vm.max_map_count"),
            "max_threads_machine": machine,
        }
    }
    document = results_document(
        {
            "idle": idle,
            "sleepy-keep-alive": sleepy("asyncio", 10_000, 0.9, 9e3),
            "few-active": few_active_rounds(threads=THREE, asyncio=[790.0, 800.0, 810.0]),
        }
    )
    document["started_at"] = "2026-11-26T02:57:06Z"
    return write(tmp_path / "reports" / "results.json", document)


def c100k_run(tmp_path: Path) -> Path:
    """The full profile's idle+c100k run: 100,000 connections held against 31,000 threads."""
    document = threads_on_the_machine(31_000, "pid-reserve", held=100_000, scenario="c100k")
    document["profile"]["name"] = "full"
    document["started_at"] = "2026-11-27T10:00:00Z"
    return write(tmp_path / "c100k" / "results.json", document)


def loops_run(tmp_path: Path) -> Path:
    """The loops profile's run: few-active with asyncio and its uvloop twin."""
    rounds = few_active_rounds(asyncio=[790.0, 800.0, 810.0])
    document = results_document({"few-active": rounds})
    document["profile"]["name"] = "loops"
    return write(tmp_path / "loops" / "results.json", document)


def free_threading_run(tmp_path: Path) -> Path:
    """A --pythons run's folder: runtimes.json and one runtime's results beside it."""
    folder = tmp_path / "c8"
    write(folder / "runtimes.json", side_by_side(WINNING))
    beside = {
        "schema": SCHEMA,
        "status": "complete",
        "profile": {"name": "free-threading"},
        "started_at": "2026-11-28T09:00:00Z",
        "runs": [],
        "derived": {},
    }
    write(folder / "3.14" / "results.json", beside)
    return folder


def test_each_file_is_recognised_by_what_it_holds(tmp_path: Path) -> None:
    named = [free_threading_run(tmp_path), c100k_run(tmp_path), main_run(tmp_path)]
    assert sources.collect(named).missing() == [sources.LOOPS]
    found = sources.collect([*named, loops_run(tmp_path)])
    assert found.loops is not None and found.loops.path == tmp_path / "loops" / "results.json"
    assert found.main is not None and found.main.profile == "default"
    assert found.c100k is not None and found.c100k.profile == "full"
    assert found.free_threading is not None
    assert found.free_threading.path == tmp_path / "c8" / "runtimes.json"
    assert (found.free_threading.profile, found.free_threading.date) == (
        "free-threading",
        "2026-11-28",
    )
    assert found.missing() == []


def test_one_runtimes_results_file_leads_to_its_runtimes_json(tmp_path: Path) -> None:
    folder = free_threading_run(tmp_path)
    (found,) = sources.read(folder / "3.14" / "results.json")
    assert found.role == sources.FREE_THREADING and found.path == folder / "runtimes.json"


def test_a_full_run_of_every_scenario_fills_both_roles(tmp_path: Path) -> None:
    document = json.loads(c100k_run(tmp_path).read_text())
    document["derived"]["few-active"] = {}
    roles = [s.role for s in sources.read(write(tmp_path / "all.json", document))]
    assert sorted(roles) == [sources.C100K, sources.MAIN]


def test_two_files_of_one_role_are_refused(tmp_path: Path) -> None:
    first = main_run(tmp_path)
    second = write(tmp_path / "other.json", json.loads(first.read_text()))
    with pytest.raises(ValueError, match=re.escape("are both the benchmark's run: name one")):
        sources.collect([first, second])


def test_a_folder_without_results_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=re.escape("holds neither runtimes.json nor results.json")):
        sources.read(tmp_path)


def test_each_claim_is_judged_from_its_own_file(tmp_path: Path) -> None:
    found = sources.collect([main_run(tmp_path), c100k_run(tmp_path), free_threading_run(tmp_path)])
    judged = {r.verdict.claim: r for r in v.rulings(found)}
    assert judged["C5"].verdict.verdict == v.REPRODUCED and judged["C5"].source is found.c100k
    assert judged["C8"].verdict.verdict == v.REPRODUCED
    assert judged["C8"].source is found.free_threading
    assert judged["C6"].verdict.verdict == v.REPRODUCED and judged["C6"].source is found.main
    assert not any(r.needs for r in judged.values())


def test_without_their_files_c5_and_c8_name_the_run_they_need(tmp_path: Path) -> None:
    judged = {r.verdict.claim: r for r in v.rulings(sources.collect([main_run(tmp_path)]))}
    for claim, role in (("C5", sources.C100K), ("C8", sources.FREE_THREADING)):
        assert judged[claim].verdict.verdict == v.NOT_MEASURED
        assert judged[claim].needs == role
        assert judged[claim].verdict.missing == sources.ROLE_WORDS[role]
    assert {r.needs for c, r in judged.items() if c not in ("C5", "C8")} == {""}


def test_without_the_main_run_its_claims_name_it(tmp_path: Path) -> None:
    judged = {r.verdict.claim: r for r in v.rulings(sources.collect([c100k_run(tmp_path)]))}
    assert judged["C5"].verdict.verdict == v.REPRODUCED
    assert judged["C6"].source is None and judged["C6"].needs == sources.MAIN


def test_one_report_names_each_file_its_profile_and_its_date(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [main_run(tmp_path), c100k_run(tmp_path), free_threading_run(tmp_path)]
    files.append(loops_run(tmp_path))
    out = tmp_path / "out"
    assert cli.main([*map(str, files), "--out", str(out)]) == 0
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert f"judged from `{files[1]}` (profile full, 2026-11-27)" in markdown
    assert f"judged from `{files[2] / 'runtimes.json'}` (profile free-threading, 2026-11-28)" in (
        markdown
    )
    assert f"`{files[0]}` (profile default, 2026-11-26)" in markdown
    assert f"Which loop: each asyncio loop against asyncio's own (CPython ?, {files[3]})" in (
        markdown
    )
    assert "not given" not in capsys.readouterr().out


def test_a_report_of_one_file_says_which_commands_make_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main([str(main_run(tmp_path))]) == 0
    printed = capsys.readouterr().out
    markdown = (tmp_path / "reports" / "report.md").read_text(encoding="utf-8")
    for role in (sources.C100K, sources.FREE_THREADING):
        assert sources.COMMANDS[role] in markdown and sources.COMMANDS[role] in printed


def test_sample_names_only_its_own_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["--sample", str(tmp_path / "x.json")]) == 2
    assert "--sample names its own files" in capsys.readouterr().err
