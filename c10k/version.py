"""`c10k --version`: the package's version, its git commit, and a digest of its source."""

from __future__ import annotations

import hashlib
import importlib.metadata
import subprocess
from pathlib import Path

DISTRIBUTION = "c10k-bench"
# The packages a copy of c10k-bench is made of; their Python files make the source digest.
PACKAGES = ("c10k", "impls", "server", "bench")
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


def source_digest(root: Path = _SOURCE_ROOT) -> str:
    """The first 16 hex digits of a SHA-256 over every Python file of PACKAGES under root,
    by relative path and content: the same in a checkout and in a wheel built from it, and
    different as soon as one line differs (committed or not)."""
    digest = hashlib.sha256()
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def version_line() -> str:
    """What `c10k --version` prints: `c10k-bench 0.1.0 commit <hex or unknown> source <hex>`. Two
    copies run the same code when their version and source digest agree; the commit is for the
    reader (a wheel does not know it)."""
    commit = checkout_commit(_SOURCE_ROOT) or "unknown"
    return f"{DISTRIBUTION} {package_version()} commit {commit} source {source_digest()}"


def same_code(theirs: str, ours: str) -> bool:
    """True when two version lines name the same version and source digest."""

    def key(line: str) -> tuple[str, str]:
        words = line.split()
        source = words[words.index("source") + 1] if "source" in words[:-1] else ""
        return (words[1] if len(words) > 1 else "", source)

    return bool(key(ours)[1]) and key(theirs) == key(ours)
