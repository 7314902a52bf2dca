"""`c10k bench --pythons A,B`: each planned run once per runtime, back to back, the order
alternating from round to round; one server per site; each runtime's records in its own
results.json; a runtime whose venv fails is recorded as failed and the others run."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest

from bench.harness import cli as bench_cli
from bench.harness import runner
from bench.harness import session as harness_session
from bench.harness.cores import Pinning
from bench.harness.plan import PlannedRun, base_record, build_plan, ended
from bench.harness.points import CrawlPoint, IdleSpec, Profile, Scenario
from bench.harness.profiles import PROFILE_TABLE
from bench.harness.site import ServeOptions
from bench.results import Run
from bench.runtimes.discover import Runtime
from bench.runtimes.venvs import PreparedRuntime, PrepareFailed
from c10k import catalog, probes

PROFILE = Profile(
    "fake",
    "two points of two rounds, a warm-up and an idle run",
    budget_s=60.0,
    sample_interval_s=0.1,
    scenarios=(
        Scenario(catalog.IDLE, idle=(IdleSpec(catalog.THREAD.name, 100),)),
        Scenario(
            catalog.FEW_ACTIVE,
            points=tuple(CrawlPoint(ServeOptions(pages=10), concurrency=c) for c in (2, 4)),
            repetitions=2,
            warmups=1,
        ),
    ),
)


class FakeServer:
    """Counts starts; serves nothing."""

    started: ClassVar[list[ServeOptions]] = []

    def __init__(self, options: ServeOptions, cpus: Any = None, host: Any = None) -> None:
        self.options = options
        self.root = "http://127.0.0.1:1/"

    def start(self) -> None:
        FakeServer.started.append(self.options)

    def stop(self) -> None:
        pass


def runtime(tag: str) -> Runtime:
    return Runtime(tag, Path(f"/fake/{tag}/python"), "3.14.7", tag.endswith("t"), "built", "")


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every run the harness starts, as (run id, the interpreter it runs under)."""
    seen: list[tuple[str, str]] = []

    def fake_run(run: PlannedRun, *args: Any) -> Run:
        seen.append((run.id, args[-1]))
        record = ended(base_record(run), "ok", None)
        if run.model == catalog.CPU_LOOP:  # the same loop time every time: no round is noisy
            record["loop"] = {"rounds": 300, "found": 1, "cpu_s": 0.2, "wall_s": 0.2}
        return record

    def fake_prepare(found: Runtime, project: Path, log: Any) -> PreparedRuntime:
        if found.tag == "broken":
            raise PrepareFailed("broken: the venv failed")
        return PreparedRuntime(found, Path(f"/venv/{found.tag}/python"), {}, {})

    for name in ("run_crawl", "run_idle", "run_loop", "run_counted"):
        monkeypatch.setattr(runner, name, fake_run)
    monkeypatch.setattr(bench_cli, "prepare", fake_prepare)
    monkeypatch.setattr(runner, "new_site", FakeServer)
    monkeypatch.setattr(harness_session, "missing_models", lambda models, python: {})
    monkeypatch.setattr(runner, "derive_document", lambda document: {})
    monkeypatch.setattr(probes, "environment", lambda: {})
    FakeServer.started = []
    return seen


def interleaved(out: Path, tags: list[str]) -> int:
    argv = ["--models", "threads,asyncio", "--out", str(out), "--pin", "off"]
    args = bench_cli.parser().parse_args([*argv, "--pythons", ",".join(tags)])
    plan = build_plan(PROFILE, args.models, args.scenarios)
    chosen = [runtime(tag) for tag in tags]
    return bench_cli.run_interleaved(args, PROFILE, plan, chosen, ["c10k", "bench"])


def test_each_run_runs_once_per_runtime_back_to_back_alternating_by_round(
    tmp_path: Path, calls: list[tuple[str, str]]
) -> None:
    assert interleaved(tmp_path, ["3.14", "3.14t"]) == 0
    plan = build_plan(PROFILE, ["threads", "asyncio"], list(catalog.SCENARIOS))
    a, b = "/venv/3.14/python", "/venv/3.14t/python"
    assert [run_id for run_id, _ in calls] == [r.id for r in plan for _ in (a, b)]
    for n, run in enumerate(plan):
        pair = [python for _, python in calls[2 * n : 2 * n + 2]]
        turn = run.round if run.round is not None else n
        assert pair == ([a, b] if turn % 2 == 0 else [b, a]), run.id
    measured = [r for r in plan if r.round is not None]
    firsts = {calls[2 * plan.index(r)][1] for r in measured if r.round == 1}
    assert firsts == {b}  # round 1 starts with the second runtime
    assert len(FakeServer.started) == 1  # one server for the site, shared by both


def test_each_runtime_records_land_in_its_own_document(
    tmp_path: Path, calls: list[tuple[str, str]]
) -> None:
    interleaved(tmp_path, ["3.14", "3.14t"])
    documents = {
        tag: json.loads((tmp_path / tag / "results.json").read_text()) for tag in ("3.14", "3.14t")
    }
    for tag, document in documents.items():
        assert document["status"] == "complete"
        assert document["runtime"]["tag"] == tag
        assert {r["runtime"]["tag"] for r in document["runs"]} == {tag}
        assert {r["runtime"]["executable"] for r in document["runs"]} == {f"/venv/{tag}/python"}
    ids = [[(r["id"], r["round"]) for r in d["runs"]] for d in documents.values()]
    assert ids[0] == ids[1]
    side = json.loads((tmp_path / "runtimes.json").read_text())
    assert [r["tag"] for r in side["runtimes"]] == ["3.14", "3.14t"]
    assert side["not_run"] == []


def test_a_runtime_whose_venv_fails_is_recorded_and_the_others_run(
    tmp_path: Path, calls: list[tuple[str, str]]
) -> None:
    assert interleaved(tmp_path, ["broken", "3.14"]) == 1
    assert {python for _, python in calls} == {"/venv/3.14/python"}
    assert not (tmp_path / "broken").exists()
    side = json.loads((tmp_path / "runtimes.json").read_text())
    failed = [r for r in side["runtimes"] if r["tag"] == "broken"]
    assert failed[0]["status"] == "failed" and "venv failed" in failed[0]["reason"]


def test_the_free_threading_profile_is_unpinned_unless_asked() -> None:
    assert bench_cli.parser().parse_args([]).pin is None  # main() takes the profile's
    assert PROFILE_TABLE["free-threading"].pin == "off"
    assert PROFILE_TABLE["default"].pin == "on"


def test_a_crawl_whose_server_failed_is_recorded_as_a_server_error() -> None:
    run = next(
        r for r in build_plan(PROFILE, [catalog.THREADS.name], [catalog.FEW_ACTIVE.name]) if r.point
    )
    runtime: Any = {"tag": "3.x", "version": "3.x.0", "gil_disabled": False, "executable": "py"}
    store: Any = SimpleNamespace(document={"runs": []})
    lane = harness_session.Lane(runtime, store, {})
    pinning = Pinning("off", (0,), None)
    record = runner.one_run(PROFILE, run, lane, None, "the test server failed: boom", pinning)
    assert (record["status"], record["reason"]) == ("server-error", "the test server failed: boom")
    assert record["runtime"]["tag"] == "3.x"
