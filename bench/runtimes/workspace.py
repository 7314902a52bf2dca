"""What a CPython build makes and where: its cache layout, its progress lines, a failed step."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "python3.14"  # Debian's source package
SERIES = "3.14"


class BuildFailed(Exception):
    """A step failed: the message names the step and, where there is one, its log."""


class Progress:
    """Progress lines on stderr, each with the seconds since the start."""

    def __init__(self) -> None:
        self.start = time.monotonic()

    def say(self, message: str) -> None:
        print(f"[{time.monotonic() - self.start:7.1f}s] {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Layout:
    """Where everything lives under the cache directory."""

    cache: Path

    @property
    def installs(self) -> Path:
        return self.cache / "cpython"

    @property
    def work(self) -> Path:
        # A sibling of installs/, so that nothing in there looks like an interpreter.
        return self.cache / "cpython-build"

    def prefix(self, tag: str) -> Path:
        return self.installs / tag

    def interpreter(self, tag: str) -> Path:
        return self.prefix(tag) / "bin" / f"python{tag}"

    def log(self, name: str) -> Path:
        return self.work / "logs" / f"{name}.log"
