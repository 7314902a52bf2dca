"""The both-cores scenario: its plan per runtime of `--pythons 3.14,3.14t`, the crawl command
it gives, runtimes.json's both_cores block from crafted outcomes, and how the report shows it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, cast

import pytest

from bench.analysis import derive
from bench.analysis.points import group_of
from bench.harness import plan as sc
from bench.harness import runtimes
from bench.harness.both_cores import both_cores
from bench.harness.commands import crawl_argv
from bench.harness.profiles import PROFILE_TABLE
from bench.harness.recipes import _crawl_argv
from bench.harness.runner import run_elsewhere
from bench.harness.runtimes import compare_runtimes, runtime_outcome
from bench.report.both_cores import ABSENT, COMMAND, NOTE, both_cores_blocks, lead_sentence
from bench.report.layout import Table
from bench.report.runtimes import runtimes_markdown
from bench.results import Results, RuntimeRecord
from c10k import catalog
from tests.recorded import latency, quantity, runs_of

BOTH = catalog.BOTH_CORES.name
PURE, C = catalog.CORE_PURE, catalog.CORE_C
INTERPRETERS, THREADS, CALLBACKS = "interpreters", "threads", "callbacks"
ASYNCIO, ASYNCIO_THREADS = catalog.ASYNCIO.name, catalog.ASYNCIO_THREADS.name
ASYNCIO_THREADS_UVLOOP = catalog.ASYNCIO_THREADS_UVLOOP.name


def runtime(tag: str) -> RuntimeRecord:
    return cast(
        RuntimeRecord,
        {
            "tag": tag,
            "version": "3.14.7",
            "gil_disabled": tag.endswith("t"),
            "executable": f"/venv/{tag}/python",
            "dependencies": {},
            "unavailable_models": {},
        },
    )


def both_cores_runs(tag: str) -> list[tuple[str, str, int, int, int]]:
    """The measured both-cores runs the runtime runs: (model, core, processes,
    interpreters, concurrency), one per round."""
    plan = sc.build_plan(PROFILE_TABLE["free-threading"], sc.ALL_MODELS, sc.SCENARIOS)
    return sorted(
        (r.model, r.point.core, r.point.processes, r.point.interpreters, r.point.concurrency)
        for r in plan
        if r.scenario == BOTH and r.kind == "measured" and r.point is not None
        if run_elsewhere(r, runtime(tag)) is None
    )


def test_each_runtime_plans_exactly_its_answers() -> None:
    def expected(*answers: tuple[str, str, int, int]) -> list[tuple[str, str, int, int, int]]:
        return sorted((*a, c) for a in answers for c in (8, 64) for _ in range(3))

    assert both_cores_runs("3.14") == expected(
        (INTERPRETERS, PURE, 1, 2),
        (CALLBACKS, PURE, 2, 0),
        (ASYNCIO, PURE, 2, 0),
        (CALLBACKS, C, 2, 0),
    )
    assert both_cores_runs("3.14t") == expected(
        (THREADS, PURE, 1, 0), (ASYNCIO_THREADS, PURE, 1, 0), (ASYNCIO_THREADS_UVLOOP, PURE, 1, 0)
    )


def test_a_runtime_of_the_other_kind_skips_with_a_reason() -> None:
    plan = sc.build_plan(PROFILE_TABLE["free-threading"], [THREADS, INTERPRETERS], [BOTH])
    threads = next(r for r in plan if r.model == THREADS and r.kind == "measured")
    interpreters = next(r for r in plan if r.model == INTERPRETERS and r.kind == "measured")
    assert run_elsewhere(threads, runtime("3.14")) == (
        "this point runs on a free-threaded build only; 3.14 is not one"
    )
    assert "GIL build only; 3.14t" in (run_elsewhere(interpreters, runtime("3.14t")) or "")
    # Bound to one build of the pair: the estimate counts each such run once.
    crawls = [r for r in plan if r.point is not None]
    assert sc.plan_estimate_s(crawls, runtimes=2) == pytest.approx(
        sc.plan_estimate_s(crawls, runtimes=1)
    )
    assert sc.runs_count(crawls, runtimes=2) == len(crawls)


class FakeServer:
    root, remote, addresses = "http://127.0.0.1:8000/", False, ["127.0.0.1"]


def test_the_crawl_command_asks_for_the_points_core() -> None:
    plan = sc.build_plan(PROFILE_TABLE["free-threading"], sc.ALL_MODELS, [BOTH])
    argvs = {
        r.id: _crawl_argv(r, FakeServer(), "python")  # type: ignore[arg-type]
        for r in plan
        if r.point is not None and r.kind == "measured" and r.round == 0
    }
    for run_id, argv in argvs.items():
        text = " ".join(argv)
        assert ("--core pure" in text) == ("/pure/" in run_id), run_id
        assert "--keep-alive" in argv
        assert ("--interpreters 2" in text) == run_id.startswith(f"{BOTH}/{INTERPRETERS}/")
        processes = any(run_id.startswith(f"{BOTH}/{m}/") for m in (CALLBACKS, ASYNCIO))
        assert ("--processes 2" in text) == processes
    assert "--core" not in crawl_argv("http://h/", CALLBACKS, 4)  # the C core: the default


def test_a_run_without_a_core_is_the_c_core() -> None:
    params = {"concurrency": 8, "processes": 1, "server": {"latency": "0", "pages": 300}}
    old, new = runs_of([{"params": params}, {"params": params | {"core": PURE}}])
    assert group_of(old)[-1] == C and group_of(new)[-1] == PURE


def point(c: int, core: str, rates: list[float], rss_kib: list[float], **more: Any) -> Any:
    rounds = [
        {"round": k, "pages_per_s": rate, "cpu_us_per_page": 1e6 / rate, "max_rss_kib": rss}
        for k, (rate, rss) in enumerate(zip(rates, rss_kib, strict=True))
    ]
    return {
        "concurrency": c,
        "processes": more.get("processes", 1),
        "core": core,
        "latency": latency("0"),
        "pages_per_s": quantity(sorted(rates)[1], [min(rates), max(rates)]),
        "cpu_us_per_page": quantity(1e6 / sorted(rates)[1], unit="us/page"),
        "rounds": rounds,
        **more,
    }


def rss(c: int, kib_per_connection: float) -> list[float]:
    """Three runs' peak RSS: 30 MiB, plus the slope per connection, give or take 10 KiB."""
    return [30_000 + kib_per_connection * c + d for d in (-10.0, 0.0, 10.0)]


def results(table: dict[str, list[Any]]) -> Results:
    return cast(
        Results,
        {
            "status": "complete",
            "profile": {"models": list(table), "scenarios": [BOTH]},
            "runs": [],
            "derived": {BOTH: {m: {"points": ps} for m, ps in table.items()}},
        },
    )


def side_by_side(threads: tuple[float, ...] = (700.0, 710.0, 690.0)) -> dict[str, Any]:
    gil = {
        INTERPRETERS: [
            point(c, PURE, [900.0, 1000.0, 1100.0], rss(c, 40.0), interpreters=2) for c in (8, 64)
        ],
        CALLBACKS: [
            point(c, core, [r * f for r in (1000.0, 1010.0, 990.0)], rss(c, 20.0), processes=2)
            for c in (8, 64)
            for core, f in ((PURE, 1.0), (C, 2.0))
        ],
    }
    free = {THREADS: [point(c, PURE, list(threads), rss(c, 60.0)) for c in (8, 64)]}
    outcomes = [
        runtime_outcome(dict(runtime("3.14")), Path("/o/3.14"), results(gil), None),
        runtime_outcome(dict(runtime("3.14t")), Path("/o/3.14t"), results(free), None),
    ]
    return compare_runtimes(outcomes, ["3.14", "3.14t"])


def test_the_block_gives_each_answer_and_the_c_core_over_the_pure_one() -> None:
    block = side_by_side()["both_cores"]
    answers = {(a["model"], a["core"], a["runtime"]): a for a in block["answers"]}
    # Per runtime, the pure core's answers in the catalog's order, then the C core's.
    assert list(answers) == [
        (CALLBACKS, PURE, "3.14"),
        (INTERPRETERS, PURE, "3.14"),
        (CALLBACKS, C, "3.14"),
        (THREADS, PURE, "3.14t"),
    ]
    interpreters = answers[INTERPRETERS, PURE, "3.14"]
    assert interpreters["interpreters"] == 2 and not interpreters["gil_disabled"]
    assert interpreters["pages_per_s"] == {"value": 1000.0, "ci95": [900.0, 1100.0], "at": 64}
    memory = interpreters["memory_per_connection_bytes"]
    assert memory["value"] == pytest.approx(40.0 * 1024)
    assert memory["ci95"][0] < memory["value"] < memory["ci95"][1]
    assert (memory["concurrencies"], memory["runs"]) == ([8, 64], 6)
    assert answers[THREADS, PURE, "3.14t"]["gil_disabled"]
    assert answers[CALLBACKS, C, "3.14"]["processes"] == 2
    (ratio,) = block["core_ratios"]
    assert (ratio["model"], ratio["runtime"], ratio["processes"]) == (CALLBACKS, "3.14", 2)
    assert ratio["concurrency"] == 64 and ratio["pages_per_s"].n == 3
    assert ratio["pages_per_s"].value == pytest.approx(2.0)
    assert ratio["cpu_us_per_page"].value == pytest.approx(0.5)


def test_the_lead_is_the_most_pages_per_s_over_the_runner_up_paired_by_round() -> None:
    lead = side_by_side(threads=(2000.0, 2020.0, 1980.0))["both_cores"]["lead"]
    assert lead["concurrency"] == 64
    assert (lead["leader"]["model"], lead["leader"]["runtime"]) == (THREADS, "3.14t")
    # Callbacks' median equals interpreters', and it comes first in the catalog's order.
    assert (lead["runner_up"]["model"], lead["runner_up"]["processes"]) == (CALLBACKS, 2)
    assert lead["pages_per_s"].value == pytest.approx(2.0) and lead["pages_per_s"].n == 3
    assert lead["cpu_us_per_page"].value == pytest.approx(0.5)
    said = lead_sentence(lead) or ""
    assert said.startswith("On the pure core at C 64, threads on 3.14t wins: its pages/s 2.00x [")
    assert "those of callbacks --processes 2 on 3.14, paired by round." in said


def test_a_lead_whose_interval_holds_one_is_not_called_a_win() -> None:
    lead = side_by_side()["both_cores"]["lead"]
    assert lead["leader"]["model"] == CALLBACKS and lead["runner_up"]["model"] == INTERPRETERS
    assert lead["pages_per_s"].interval.low < 1.0 < lead["pages_per_s"].interval.high
    said = lead_sentence(lead) or ""
    assert "leads but is not told apart from interpreters (2 subinterpreters) on 3.14" in said
    assert "wins" not in said


def test_the_lead_is_the_answer_that_leads_its_closest_rival_paired_not_the_top_median() -> None:
    # The threads' median (1,010) is the highest, but round by round they lose a fifth.
    lead = side_by_side(threads=(1010.0, 1010.0, 500.0))["both_cores"]["lead"]
    assert lead["leader"]["model"] == CALLBACKS and lead["runner_up"]["model"] == INTERPRETERS
    assert lead["pages_per_s"].value >= 1.0


def test_a_leader_behind_its_rival_is_said_to_lead_nothing() -> None:
    identity = {"model": THREADS, "runtime": "3.14t", "processes": 1, "interpreters": None}
    lead = {
        "concurrency": 64,
        "leader": identity,
        "runner_up": identity | {"model": CALLBACKS, "runtime": "3.14", "processes": 2},
        "pages_per_s": quantity(0.8, (0.7, 0.9), unit="ratio"),
        "cpu_us_per_page": quantity(1.25, (1.1, 1.4), unit="ratio"),
    }
    said = lead_sentence(lead) or ""
    assert "no answer leads: threads on 3.14t against callbacks --processes 2 on 3.14" in said
    assert lead_sentence(lead | {"pages_per_s": quantity(1.2, None, unit="ratio")}) == (
        "On the pure core at C 64, threads on 3.14t leads but is not told apart from "
        "callbacks --processes 2 on 3.14: its pages/s 1.20x (one round, no interval) and CPU "
        "per page 1.25x [1.10x, 1.40x] theirs, paired by round."
    )


def test_no_block_without_the_scenario() -> None:
    assert both_cores([{"tag": "3.14", "points": {}}]) is None


def test_the_report_shows_the_table_the_finding_and_the_absent_case() -> None:
    document = side_by_side()
    text = runtimes_markdown(document)
    assert "## Using both cores" in text and NOTE in text
    assert "httptools 0.9.0 and selectolax 1.0.2" in text
    assert (
        "| interpreters (2 subinterpreters) | 3.14 | pure | 1,000 [900, 1,100] at C 64 "
        "| 1,000 (one run) at C 64 |" in text
    )
    assert "leads but is not told apart from" in text
    assert "| threads | 3.14t (free-threaded) | pure |" in text
    assert "| callbacks --processes 2 | 3.14 | 64 | 2.00x [" in text
    blocks = both_cores_blocks(document)
    tables = [b for b in blocks if isinstance(b, Table)]
    assert [len(t.rows) for t in tables] == [4, 1]
    older = {k: v for k, v in document.items() if k != "both_cores"}
    assert ABSENT in runtimes_markdown(older) and COMMAND in ABSENT
    assert not [b for b in both_cores_blocks(older) if isinstance(b, Table)]
    assert not [b for b in both_cores_blocks(None) if isinstance(b, Table)]


def test_the_committed_side_by_side_is_what_this_checkout_derives_from_its_runs(
    tmp_path: Path,
) -> None:
    """`tox -e sample` derives each runtime's results.json, then runtimes.json from them."""
    sample = Path(__file__).resolve().parent.parent / "reports" / "free-threading"
    copy = shutil.copytree(sample, tmp_path / "sample")
    committed = json.loads((copy / "runtimes.json").read_text())
    for entry in committed["runtimes"]:
        assert derive.main([str(copy / entry["results"])]) == 0
    assert runtimes.main([str(copy / "runtimes.json")]) == 0
    assert json.loads((copy / "runtimes.json").read_text()) == committed


def test_a_side_by_side_that_cannot_be_read_again_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = Path(__file__).resolve().parent.parent / "reports" / "free-threading"
    copy = shutil.copytree(sample, tmp_path / "sample")
    runtimes_json = copy / "runtimes.json"
    committed = json.loads(runtimes_json.read_text())
    broken_results = json.loads((copy / "3.14" / "results.json").read_text())
    del broken_results["runtime"]
    (copy / "3.14" / "results.json").write_text(json.dumps(broken_results))
    cases: list[tuple[Any, str]] = [
        ({}, "is not a"),
        (committed | {"runtimes": [[]]}, "a runtime that is not one"),
        (committed | {"tags": None}, "has no runtimes and tags lists"),
        (committed, "3.14/results.json lacks a field runtimes.json is made of ('runtime')"),
    ]
    for document, said in cases:
        runtimes_json.write_text(json.dumps(document))
        with pytest.raises(SystemExit) as exit_:
            runtimes.main([str(runtimes_json)])
        (line,) = capsys.readouterr().err.splitlines()
        assert exit_.value.code == 2 and said in line, line
        assert line.startswith("python -m bench.harness.runtimes: error: ")
    with pytest.raises(SystemExit) as exit_:
        runtimes.main([])
    (line,) = capsys.readouterr().err.splitlines()
    assert exit_.value.code == 2
    assert line.startswith("python -m bench.harness.runtimes: error: ")
