"""`c10k --version`: the package's version and the git commit this copy was run or built from."""

from __future__ import annotations

import importlib.metadata
import subprocess
from pathlib import Path

DISTRIBUTION = "c10k-bench"
# Written into a built wheel by setup.py (the commit of the checkout it was built from).
RECORDED_COMMIT = Path(__file__).with_name("commit.txt")
_SOURCE_ROOT = Path(__file__).resolve().parents[1]  # a checkout's top, or site-packages


def package_version() -> str:
    """The installed distribution's version; "unknown" when it is not installed."""
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def checkout_commit(root: Path) -> str | None:
    """HEAD of the git checkout whose top is root; None when root is no checkout's top (an
    installed copy in site-packages) or git cannot tell (no git, not the owner's checkout)."""
    if not (root / ".git").exists():  # a directory, or a file in a `git worktree`
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--verify", "HEAD"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and commit else None


def source_commit() -> str:
    """This copy's commit: the checkout's HEAD when it runs from a git checkout, else the one
    recorded when its wheel was built, else "unknown"."""
    commit = checkout_commit(_SOURCE_ROOT)
    if commit is None and RECORDED_COMMIT.is_file():
        commit = RECORDED_COMMIT.read_text().strip()
    return commit or "unknown"


def version_line() -> str:
    """What `c10k --version` prints: `c10k-bench 0.1.0 commit <40 hex digits>`."""
    return f"{DISTRIBUTION} {package_version()} commit {source_commit()}"
