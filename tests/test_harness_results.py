"""results.json: schema version, atomic writes, NaN as null, a store saved after each run."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bench.harness import results


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
    document = results.new_document({"name": "quick"}, ["c10k", "bench"], {"cpu": {}}, [])
    store = results.ResultsStore(tmp_path, document)
    assert results.load(store.path)["status"] == "running"
    store.add_run({"id": "a", "status": "ok"})
    assert [r["id"] for r in results.load(store.path)["runs"]] == ["a"]
    store.set_derived({"few-active": {}})
    store.finish("interrupted")
    saved = results.load(store.path)
    assert saved["status"] == "interrupted" and saved["finished_at"]
    assert saved["derived"] == {"few-active": {}}


def test_load_refuses_another_schema(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"schema": "something-else/9"}))
    with pytest.raises(ValueError, match="schema"):
        results.load(path)
