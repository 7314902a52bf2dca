"""`c10k --version`: the version and the commit, from a checkout and from an installed copy."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from bench.interpreter import python_command
from c10k import version
from tests.server_helpers import REPO


def test_a_checkout_answers_with_its_head() -> None:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout, or no git")
    head = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    done = subprocess.run(
        python_command("--version"), capture_output=True, text=True, timeout=60, cwd=REPO
    )
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == f"c10k-bench {version.package_version()} commit {head}\n"


def test_an_installed_copy_answers_with_the_commit_recorded_at_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = tmp_path / "commit.txt"
    monkeypatch.setattr(version, "_SOURCE_ROOT", tmp_path)  # site-packages: no .git
    monkeypatch.setattr(version, "RECORDED_COMMIT", recorded)
    assert version.source_commit() == "unknown"
    recorded.write_text("0123abcd\n")
    assert version.version_line() == f"c10k-bench {version.package_version()} commit 0123abcd"


def test_a_directory_inside_another_repository_is_not_its_checkout(tmp_path: Path) -> None:
    # A venv's site-packages inside a checkout must not answer with that checkout's HEAD.
    assert version.checkout_commit(tmp_path) is None
