"""A venv per runtime with the project, each dependency alone: one that fails spares the rest."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import tempfile
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.interpreter import missing_models
from bench.results import write_atomic
from bench.runtimes.discover import Runtime, cache_dir
from c10k.version import source_digest

MARKER = "c10k-venv.json"  # written last: a venv without it is not finished
SCHEMA = "c10k-venv/1"
VENV_TIMEOUT_S = 300.0
INSTALL_TIMEOUT_S = 1800.0  # a source build of gevent on 2 cores takes minutes
Log = Callable[[str], None]


class PrepareFailed(Exception):
    """The venv or the project's own install failed: nothing of this runtime can run."""


@dataclass(frozen=True)
class PreparedRuntime:
    """A runtime's venv, ready: its interpreter, how each dependency went, what cannot run."""

    runtime: Runtime
    python: Path  # the venv's interpreter: every crawler of this runtime runs under it
    dependencies: dict[str, str]  # requirement -> "wheel" | "source" | "not needed" | "failed: ..."
    unavailable_models: dict[str, str]  # model -> why it cannot run here

    def as_dict(self) -> dict[str, Any]:
        """What results.json records as `runtime` (docs/results.md)."""
        return self.runtime.as_dict() | {
            "base_executable": str(self.runtime.executable),
            "executable": str(self.python),
            "dependencies": self.dependencies,
            "unavailable_models": self.unavailable_models,
        }


def project_checkout(running: Path) -> Path | None:
    """The source checkout to install into a runtime's venv: the one this code runs from, or,
    when it runs from an installed wheel, the current folder if it holds the same code (the
    same source digest). None when neither does."""
    ours = source_digest(running)
    for candidate in (running, Path.cwd()):
        if (candidate / "pyproject.toml").is_file() and source_digest(candidate) == ours:
            return candidate
    return None


def dependencies(project_dir: Path) -> list[str]:
    """pyproject.toml's [project] dependencies, as written."""
    with (project_dir / "pyproject.toml").open("rb") as handle:
        found: list[str] = tomllib.load(handle)["project"]["dependencies"]
    return found


def venv_dir(runtime: Runtime, project_dir: Path, requirements: list[str]) -> Path:
    """cache/venvs/<tag>-<hash>: one per checkout, dependency list and interpreter (two
    interpreters of one tag, pyenv's and PATH's, get a venv each)."""
    key = "\n".join([str(project_dir.resolve()), str(runtime.executable.resolve()), *requirements])
    return cache_dir() / "venvs" / f"{runtime.tag}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


def _run(argv: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)


def _why(done: subprocess.CompletedProcess[str]) -> str:
    """pip's first ERROR line, or the last line of its output: one line."""
    lines = [line.strip() for line in (done.stderr + done.stdout).splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR:")]
    return ((errors or lines or [f"exit {done.returncode}"])[0])[:300]


def _pip_install(python: Path) -> list[str]:
    return [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q"]


def install_one(python: Path, requirement: str) -> str:
    """One requirement: wheels only first (--only-binary :all:), else whatever pip finds;
    "source" when pip built anything (its --report: an item not fetched as a wheel)."""
    with tempfile.TemporaryDirectory(prefix="c10k-pip-") as tmp:
        report = Path(tmp) / "report.json"
        pip = [*_pip_install(python), "--report", str(report)]
        try:
            done = _run([*pip, "--only-binary", ":all:", requirement], INSTALL_TIMEOUT_S)
            if done.returncode != 0:
                done = _run([*pip, requirement], INSTALL_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return f"failed: no install within {INSTALL_TIMEOUT_S:.0f} s"
        if done.returncode != 0:
            return f"failed: {_why(done)}"
        try:
            installed = json.loads(report.read_text()).get("install") or []
        except (OSError, ValueError):
            installed = []
    if not installed and "Ignoring" in done.stdout + done.stderr:
        return "not needed"  # its environment marker does not hold here
    # A direct URL to a directory or an sdist is built even under --only-binary.
    built = [i for i in installed if not i["download_info"]["url"].endswith(".whl")]
    return "source" if built else "wheel"


def _read_marker(directory: Path, requirements: list[str]) -> dict[str, Any] | None:
    """The finished venv's record, or None when it is missing, unreadable or for another
    dependency list (the hash in the name makes that rare: a hand-edited marker)."""
    try:
        marker = json.loads((directory / MARKER).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(marker, dict) or marker.get("schema") != SCHEMA:
        return None
    if list((marker.get("dependencies") or {}).keys()) != requirements:
        return None
    return marker


def prepare(runtime: Runtime, project_dir: Path, log: Log) -> PreparedRuntime:
    """The runtime's venv with the project (editable) and each dependency it takes, reused
    once its marker says it is finished; PrepareFailed when the project cannot go in."""
    requirements = dependencies(project_dir)
    directory = venv_dir(runtime, project_dir, requirements)
    python = directory / "bin" / "python"
    marker = _read_marker(directory, requirements)
    if marker is not None and python.exists():
        log(f"{runtime.tag}: reusing the venv {directory}")
        outcomes: dict[str, str] = marker["dependencies"]
    else:
        outcomes = build_venv(runtime, project_dir, directory, requirements, log)
    return PreparedRuntime(runtime, python, outcomes, unavailable(python, outcomes))


def build_venv(
    runtime: Runtime, project_dir: Path, directory: Path, requirements: list[str], log: Log
) -> dict[str, str]:
    log(f"{runtime.tag}: making a venv in {directory}")
    (directory / MARKER).unlink(missing_ok=True)
    python = directory / "bin" / "python"
    steps = [
        ([str(runtime.executable), "-m", "venv", "--clear", str(directory)], "the venv"),
        (
            [*_pip_install(python), "--no-deps", "-e", str(project_dir)],
            "the project (editable)",
        ),
    ]
    for argv, what in steps:
        try:
            done = _run(argv, VENV_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise PrepareFailed(f"{runtime.tag}: {what}: {exc}") from None
        if done.returncode != 0:
            raise PrepareFailed(f"{runtime.tag}: {what} failed: {_why(done)}")
    outcomes = {}
    for n, requirement in enumerate(requirements, 1):
        log(f"{runtime.tag}: [{n}/{len(requirements)}] installing {requirement}")
        outcomes[requirement] = install_one(python, requirement)
        log(f"{runtime.tag}: [{n}/{len(requirements)}] {requirement}: {outcomes[requirement]}")
    write_atomic(
        directory / MARKER,
        {"schema": SCHEMA, "runtime": runtime.as_dict(), "dependencies": outcomes},
    )
    return outcomes


def unavailable(python: Path, outcomes: dict[str, str]) -> dict[str, str]:
    """Models that cannot run under the venv's interpreter, as it says itself (`c10k models
    --json` run by it), each with a failed dependency's reason where one matches."""
    listed = missing_models(None, str(python))
    failed = {
        _name(requirement): outcome
        for requirement, outcome in outcomes.items()
        if outcome.startswith("failed")
    }
    found = {}
    for model, reason in listed.items():
        causes = [f"{name}: {failed[name]}" for name in failed if name in reason]
        found[model] = "; ".join([reason, *causes])
    return found


def _name(requirement: str) -> str:
    """The distribution's name in a requirement: 'gevent>=24  # ...' -> 'gevent'."""
    return re.split(r"[<>=!~;\[@ ]", requirement, maxsplit=1)[0].strip().lower()
