"""The results.json file: a new document, atomic writes after every run, and loading one."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from bench.results import codec
from bench.results.derived import Derived
from bench.results.document import SCHEMA, SCHEMA_V1, SCHEMA_V2, Results, Run, Status
from bench.results.migrate import migrate
from bench.results.profile import Environment, PlanEntry, ProfileRecord

FILENAME = "results.json"
# A --pythons run's side by side (bench/harness/runtimes.py writes it, the report reads it).
RUNTIMES_SCHEMA = "c10k-bench-runtimes/1"
RUNTIMES_JSON, RUNTIMES_MD = "runtimes.json", "runtimes.md"


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def new_document(
    profile: ProfileRecord,
    command: list[str],
    environment: Environment,
    plan: list[PlanEntry],
) -> Results:
    """An empty results document; docs/results.md describes every field."""
    return {
        "schema": SCHEMA,
        "status": "running",
        "started_at": utc_now(),
        "finished_at": None,
        "command": command,
        "profile": profile,
        "environment": environment,
        "plan": plan,
        "runs": [],
        "derived": {},
    }


def write_atomic(path: Path, document: Mapping[str, object]) -> None:
    """Write JSON to a temporary file beside path, fsync it, then rename it over path: a
    reader (or a crash, or Ctrl-C) sees the old complete file or the new one, never half."""
    _write_text_atomic(path, codec.dumps(codec.record(document)))


def _write_text_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_name, 0o644)  # mkstemp makes it private; results are for everyone
        os.replace(temp_name, path)
    except BaseException:
        # Never leave the temporary file behind, whatever stopped the write.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise


def load(path: Path) -> Results:
    """The results document at path, an older file migrated (its derived section dropped:
    underived); ValueError with a one-line reason when it is not one."""
    if not path.is_file():
        raise ValueError(f"no results file at {path} (run `c10k bench` first)")
    document = _read(path)
    found = document.get("schema") if isinstance(document, dict) else type(document).__name__
    if found not in (SCHEMA, SCHEMA_V2, SCHEMA_V1):
        raise ValueError(f"{path} is not a {SCHEMA} results file (schema {found!r})")
    if not isinstance(document.get("runs"), list):
        raise ValueError(f"{path} has no runs list")
    if found == SCHEMA:
        if not isinstance(document.get("derived"), dict):
            raise ValueError(f"{path} has no derived section")
        return cast(Results, document)
    try:
        return migrate(document)
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise ValueError(f"{path} is not a readable {found} file ({exc!r})") from None


def load_runtimes(path: Path) -> dict[str, Any]:
    """A --pythons run's runtimes.json, its figures typed as results.json's are; ValueError
    with a one-line reason when it is not one."""
    document = _read(path)
    if not isinstance(document, dict) or document.get("schema") != RUNTIMES_SCHEMA:
        raise ValueError(f"{path} is not a {RUNTIMES_SCHEMA} file")
    return document


def _read(path: Path) -> Any:
    """A file's JSON with its typed values (codec); ValueError in one line when unreadable."""
    try:
        return codec.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is not readable JSON: {exc}") from None


def underived(path: Path) -> str:
    """Why a report cannot be drawn from a file migrated from an older schema, or derived by an
    older derive, in one line."""
    return (
        f"{path} has no derived figures of this version (written by an older harness): "
        f"run python -m bench.analysis.derive {path}"
    )


class ResultsStore:
    """The results document of one bench run, rewritten in full after every change. A run
    does not change once in it, so each is cleaned for JSON once (a default session: ~9 MB)."""

    def __init__(self, out_dir: Path, document: Results) -> None:
        self.path = out_dir / FILENAME
        self.document = document
        self._clean_runs: list[object] = []
        self.save()

    def add_run(self, run: Run) -> None:
        self.document["runs"].append(run)
        self.save()

    def set_derived(self, derived: Derived) -> None:
        self.document["derived"] = derived
        self.save()

    def finish(self, status: Status) -> None:
        self.document["status"] = status
        self.document["finished_at"] = utc_now()
        self.save()

    def save(self) -> None:
        runs = self.document["runs"]
        self._clean_runs += [codec.record(run) for run in runs[len(self._clean_runs) :]]
        clean = {
            key: self._clean_runs if key == "runs" else codec.record(value)
            for key, value in self.document.items()
        }
        _write_text_atomic(self.path, codec.dumps(clean))
