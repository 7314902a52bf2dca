"""`c10k --version`: the version, the commit and the source digest, checkout or installed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from bench.interpreter import python_command
from c10k import version
from tests.server_helpers import REPO


def test_a_checkout_answers_with_its_head_and_its_source() -> None:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout, or no git")
    head = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    done = subprocess.run(
        python_command("--version"), capture_output=True, text=True, timeout=60, cwd=REPO
    )
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == (
        f"c10k-bench {version.package_version()} commit {head} "
        f"source {version.source_digest(REPO)}\n"
    )


def _copy_packages(root: Path) -> None:
    for package in version.PACKAGES:
        shutil.copytree(REPO / package, root / package, ignore=shutil.ignore_patterns("*.pyc"))


def test_the_source_digest_follows_every_line_and_nothing_else(tmp_path: Path) -> None:
    _copy_packages(tmp_path)
    before = version.source_digest(tmp_path)
    assert before == version.source_digest(REPO)  # a copy of the same files: the same code
    (tmp_path / "c10k" / "__pycache__").mkdir(exist_ok=True)
    (tmp_path / "c10k" / "__pycache__" / "junk.py").write_text("x = 1\n")
    (tmp_path / "c10k" / "notes.txt").write_text("not code\n")
    assert version.source_digest(tmp_path) == before
    stats = tmp_path / "c10k" / "stats.py"
    stats.write_text(stats.read_text() + "# one more line\n")
    assert version.source_digest(tmp_path) != before


def test_the_same_code_means_the_same_version_and_source() -> None:
    ours = "c10k-bench 0.1.0 commit abc source 0011223344556677"
    assert version.same_code("c10k-bench 0.1.0 commit unknown source 0011223344556677", ours)
    assert not version.same_code("c10k-bench 0.1.0 commit abc source 0011223344556678", ours)
    assert not version.same_code("c10k-bench 0.2.0 commit abc source 0011223344556677", ours)
    assert not version.same_code("c10k-bench 0.1.0 commit abc", ours)  # an older c10k


def test_a_directory_inside_another_repository_is_not_its_checkout(tmp_path: Path) -> None:
    # A venv's site-packages inside a checkout must not answer with that checkout's HEAD.
    assert version.checkout_commit(tmp_path) is None
