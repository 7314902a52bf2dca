"""Instructions a crawl executes, counted by callgrind between the crawler's two marks."""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

# A crawler started with `--mark-crawl` calls sched_yield() as its crawl starts and ends
# (c10k.probes.mark_crawl_boundary); callgrind, dumping before each call, writes three parts:
# start-up, crawl, exit. The crawl's instructions per page hold still where CPU seconds do
# not (a fixed hash seed makes set and dict orders repeatable).
MARK_SYMBOL = "sched_yield"
HASH_SEED = "0"
_SUMMARY = re.compile(r"^(?:summary|totals):\s+(\d+)", re.MULTILINE)


class CountFailed(Exception):
    """Callgrind's output does not hold exactly the three parts the two marks make."""


@dataclass(frozen=True)
class InstructionCount:
    """One callgrind run cut by the marks into start-up, crawl and exit."""

    startup_ir: int  # interpreter start, imports, the crawl's set-up: before the first mark
    crawl_ir: int  # between the marks: the crawl alone
    exit_ir: int  # after the second mark: the document, the interpreter's exit
    pages: int  # URLs the crawl fetched (or replayed)

    @property
    def per_page(self) -> float:
        return self.crawl_ir / self.pages


def missing() -> str | None:
    """Why instructions cannot be counted here, or None when they can."""
    if shutil.which("valgrind") is None:
        return "valgrind is not installed (apt-get install valgrind)"
    return None


def callgrind_argv(out_file: Path) -> list[str]:
    """The prefix that runs a crawler under callgrind, cut at the marks, into out_file[.N]."""
    return [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out_file}",
        f"--dump-before={MARK_SYMBOL}",
        "--trace-children=no",
    ]


def counted_env() -> dict[str, str]:
    """The environment of a counted run: this one, with the fixed hash seed."""
    return {**os.environ, "PYTHONHASHSEED": HASH_SEED}


def read_count(out_file: Path, pages: int) -> InstructionCount:
    """The three parts callgrind wrote: out_file.1 (to the first mark), out_file.2 (between
    the marks) and out_file (the rest). Any other number of parts fails the count."""
    parts = sorted(out_file.parent.glob(out_file.name + "*"))
    expected = {out_file.name, f"{out_file.name}.1", f"{out_file.name}.2"}
    if {p.name for p in parts} != expected:
        raise CountFailed(
            f"callgrind wrote {len(parts)} part(s), not 3: the crawler met {MARK_SYMBOL}() "
            f"{len(parts) - 1} time(s) instead of twice (was it started with --mark-crawl?)"
        )
    return InstructionCount(
        startup_ir=_instructions(out_file.with_name(f"{out_file.name}.1")),
        crawl_ir=_instructions(out_file.with_name(f"{out_file.name}.2")),
        exit_ir=_instructions(out_file),
        pages=pages,
    )


def _instructions(part: Path) -> int:
    match = _SUMMARY.search(part.read_text(errors="replace"))
    if match is None:
        raise CountFailed(f"no 'summary:' line in {part}")
    return int(match.group(1))
