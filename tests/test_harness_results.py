"""results.json: schema version, atomic writes, NaN as null, a store saved after each run,
and the one migration of a /1 or /2 file."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, cast

import pytest

from bench import results
from c10k import catalog
from c10k.durations import Latency

ROOT = Path(__file__).resolve().parent.parent


def test_write_atomic_writes_json_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "out" / "results.json"
    results.write_atomic(path, {"schema": results.SCHEMA, "x": math.nan, "y": [math.inf, 1.5]})
    assert json.loads(path.read_text()) == {"schema": results.SCHEMA, "x": None, "y": [None, 1.5]}
    assert [p.name for p in path.parent.iterdir()] == ["results.json"]


def test_a_failed_write_keeps_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    results.write_atomic(path, {"schema": results.SCHEMA, "n": 1})
    with pytest.raises(TypeError):
        results.write_atomic(path, {"schema": results.SCHEMA, "bad": object()})
    assert json.loads(path.read_text()) == {"schema": results.SCHEMA, "n": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_store_saves_after_every_run_and_on_finish(tmp_path: Path) -> None:
    profile = cast(results.ProfileRecord, {"name": "quick"})
    environment = cast(results.Environment, {"cpu": {}})
    document = results.new_document(profile, ["c10k", "bench"], environment, [])
    store = results.ResultsStore(tmp_path, document)
    assert results.load(store.path)["status"] == "running"
    store.add_run(cast(results.Run, {"id": "a", "status": "ok"}))
    assert [r["id"] for r in results.load(store.path)["runs"]] == ["a"]
    store.set_derived(cast(results.Derived, {"few-active": {}}))
    store.finish("interrupted")
    saved = results.load(store.path)
    assert saved["schema"] == "c10k-bench-results/3"
    assert saved["status"] == "interrupted" and saved["finished_at"]
    assert saved["derived"] == {"few-active": {}}


def test_the_store_writes_the_file_write_atomic_writes(tmp_path: Path) -> None:
    # The store cleans each run once, as it comes; the file is the whole document's all the same.
    profile = cast(results.ProfileRecord, {"name": "quick", "budget_s": math.inf})
    environment = cast(results.Environment, {"cpu": {}})
    document = results.new_document(profile, ["c10k", "bench"], environment, [])
    store = results.ResultsStore(tmp_path / "store", document)
    store.add_run(cast(results.Run, {"id": "a", "status": "ok", "elapsed_s": math.nan}))
    store.set_derived(cast(results.Derived, {"few-active": {"x": [math.inf, 1.5]}}))
    store.add_run(cast(results.Run, {"id": "b", "status": "ok", "elapsed_s": 2.5}))
    results.write_atomic(tmp_path / "whole" / "results.json", document)
    written = store.path.read_text()
    assert written == (tmp_path / "whole" / "results.json").read_text()
    assert json.loads(written)["runs"][0]["elapsed_s"] is None


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ({"schema": "something-else/9"}, "schema 'something-else/9'"),
        ([1, 2], "schema 'list'"),
        ({"schema": "c10k-bench-results/4", "runs": [], "derived": {}}, "schema"),
        ({"schema": "c10k-bench-results/2", "derived": {}}, "no runs list"),
        ({"schema": "c10k-bench-results/3", "runs": [], "derived": []}, "no derived section"),
        ({"schema": "c10k-bench-results/1", "runs": []}, "not a readable"),
    ],
)
def test_load_refuses_what_is_no_results_file(tmp_path: Path, content: Any, reason: str) -> None:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(content))
    with pytest.raises(ValueError, match=reason):
        results.load(path)


def _v1_crawl(**fields: Any) -> dict[str, Any]:
    """A crawl run as the oldest /1 harnesses wrote it: no round, no processes, no
    addresses, samples without the processes and smaps_rollup columns."""
    server = {"pages": 10, "links": 10, "shape": "wide", "seed": 1, "latency": "2s"}
    server |= {"bandwidth": None, "faults": None, "workers": 1, "preset": None}
    run = {
        "id": "sleepy/asyncio/c100/s0/measured2",
        "scenario": catalog.SLEEPY.name,
        "model": catalog.ASYNCIO.name,
        "kind": "measured",
        "repetition": 2,
        "params": {"concurrency": 100, "check_peak": True, "server": server},
        "status": "ok",
        "samples": {"t": [0.0, 0.1, 0.2], "fds": [5, 105, 105], "rss_kib": [1, 2, 3]},
    }
    return run | fields


def _v1_document() -> dict[str, Any]:
    idle: dict[str, Any] = {"id": "idle/thread/slope/300/0", "scenario": catalog.IDLE.name}
    idle |= {"model": "thread", "kind": "measured", "repetition": 0}
    idle["params"] = {"kind": "thread", "count": 300}
    highlights = {catalog.SLEEPY.name: {"largest_concurrency": 100, "percent_of_ideal": None}}
    return {
        "schema": "c10k-bench-results/1",
        "environment": {"cpu": {}},
        "runs": [_v1_crawl(), _v1_crawl(kind="warmup", repetition=0), idle],
        "derived": {"highlights": highlights},
    }


def test_migrate_v1_fills_every_field_added_since_with_what_older_harnesses_did() -> None:
    document = results.migrate(_v1_document())
    assert document["schema"] == results.SCHEMA
    assert document["environment"]["server"] == {"remote": False, "ssh": None, "host": None}
    measured, warmup, idle = document["runs"]
    # The plan ran repetitions round-robin before it recorded rounds: rep k is round k.
    assert measured["round"] == 2
    assert warmup["round"] is None and idle["round"] is None
    assert measured["params"]["processes"] == 1 and idle["params"]["processes"] == 1
    assert measured["params"]["server"]["addresses"] == 1
    samples = measured["samples"]
    assert set(samples) == set(results.SAMPLE_FIELDS)
    assert samples["processes"] == [1, 1, 1] and samples["anon_kib"] == [None, None, None]
    assert samples["fds"] == [5, 105, 105]  # what was recorded stays
    assert "derived" not in document  # derive computes it afresh


def test_migrate_v1_keeps_the_fields_a_newer_v1_file_has() -> None:
    newer = _v1_document()
    crawl = newer["runs"][0]
    crawl["round"] = 0
    crawl["params"]["processes"] = 4
    crawl["samples"]["processes"] = [1, 5, 5]
    migrated = results.migrate(newer)
    run = migrated["runs"][0]
    assert run["round"] == 0 and run["params"]["processes"] == 4
    assert run["samples"]["processes"] == [1, 5, 5]


def test_load_reads_a_v1_file_through_the_migration(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(_v1_document()))
    loaded = results.load(path)
    assert loaded["schema"] == results.SCHEMA and loaded["runs"][0]["round"] == 2


def test_a_v2_file_is_read_with_typed_identities_and_latencies_and_no_derived() -> None:
    """The /2 -> /3 migration parses each id once: a crawl's point, a round's block, a
    sentinel kept as a wait (its block from its id); each latency in seconds."""
    crawl = _v1_crawl(id="sleepy/asyncio/c100/p3/pure/s4/measured2-again1", round=2, again=1)
    crawl |= {"block": "sleepy/s4/round2", "noisy": False}
    wait: dict[str, Any] = {"id": "sleepy/s4/round2/cpu-loop-again1-wait2"}
    wait |= {"scenario": catalog.SLEEPY.name}
    wait |= {"model": "cpu-loop", "kind": "sentinel", "repetition": 2, "round": 2, "params": {}}
    wait |= {"block": None, "again": 1, "noisy": True, "waited_s": 5.0, "status": "ok"}
    old = {"schema": results.SCHEMA_V2, "environment": {}, "runs": [crawl, wait], "derived": {}}
    document = results.migrate(old)
    assert "derived" not in document
    measured, waited = document["runs"]
    assert measured["point"] == results.PointKey(100, 3, "pure", 4)
    assert measured["block"] == results.Block("sleepy", 4, 2) == waited["block"]
    assert (measured["wait"], waited["wait"], waited["point"]) == (0, 2, None)
    assert measured["params"]["server"]["latency"] == Latency("fixed", 2.0)


def test_every_id_of_the_committed_samples_is_its_typed_identitys_label() -> None:
    for path in (ROOT / "reports" / "results.json", ROOT / "reports" / "c100k" / "results.json"):
        for run in results.load(path)["runs"]:
            if run["point"] is not None:
                planned = f"{run['scenario']}/{run['model']}/{run['point'].label}/"
                planned += f"{run['kind']}{run['repetition']}"
                assert run["id"] == results.run_label(planned, run["again"], run["wait"])
            if run["kind"] == "sentinel" and run["block"] is not None:
                planned = f"{run['block'].label}/{run['model']}"
                assert run["id"] == results.run_label(planned, run["again"], run["wait"])
