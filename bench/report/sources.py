"""The files a report is drawn from, each in its role, and the command that makes a missing one."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

from bench import results
from bench.results import RUNTIMES_JSON, Results
from c10k import catalog

MAIN, C100K, FREE_THREADING = "main", "c100k", "free-threading"
LOOPS = catalog.LOOPS.name
ROLES = (MAIN, C100K, FREE_THREADING, LOOPS)
# The command that writes each role's file (docs/report.md, "Several results files"): each claim
# is judged from the run that measured it, main (all but C5 and C8), c100k (C5: 100,000
# connections against the machine's threads) or free-threading (C8: its runtimes.json).
COMMANDS = {
    MAIN: "tox -e bench (c10k bench --profile default --out reports)",
    C100K: "c10k bench --profile full --scenarios idle,c100k --models asyncio-uvloop --out DIR",
    FREE_THREADING: "c10k bench --profile free-threading --pythons 3.14,3.14t --out DIR",
    LOOPS: "c10k bench --profile loops --python 3.14 --out DIR",
}
# What each role's file is, in words.
ROLE_WORDS = {
    MAIN: "the benchmark's run",
    C100K: "the full profile's idle and c100k run",
    FREE_THREADING: "the free-threading run of --pythons 3.14,3.14t",
    LOOPS: "the loop league's run",
}
# The committed sample: its files, in their roles, beside the page they draw.
SAMPLE_DIR = Path("reports")
SAMPLE_FILES = (
    SAMPLE_DIR / results.FILENAME,
    SAMPLE_DIR / "c100k" / results.FILENAME,
    SAMPLE_DIR / "free-threading",
    SAMPLE_DIR / "loops" / results.FILENAME,
)
# The crawls that make a file with c100k in it the main one too (a full run of every scenario):
# the idle scenario alone does not, as the c100k command runs it for C5's threads.
MAIN_CRAWLS = frozenset(catalog.SAMPLED_CRAWL_SCENARIOS) - {catalog.C100K.name}


EMPTY = cast(Results, {"derived": {}})  # the document of a role without a file


@dataclass(frozen=True)
class Source:
    """One file in its role: where it is, what it holds, its profile and when it started."""

    role: str
    path: Path
    results: Results | None  # a results file's document
    profile: str
    started: str | None  # the run's start, as recorded (UTC)
    finished: str | None = None
    runtimes: dict[str, Any] | None = None  # a --pythons run's runtimes.json (FREE_THREADING)

    @property
    def document(self) -> Results:
        """The results document (EMPTY for a runtimes.json)."""
        return self.results if self.results is not None else EMPTY

    @property
    def date(self) -> str:
        return (self.started or "")[:10] or "date unknown"

    def about(self) -> str:
        """'profile default, 2026-11-26'."""
        return f"profile {self.profile}, {self.date}"


@dataclass(frozen=True)
class Sources:
    """The files of one report by role; None where none was named."""

    main: Source | None = None
    c100k: Source | None = None
    free_threading: Source | None = None
    loops: Source | None = None

    def given(self) -> list[Source]:
        found = [self.main, self.c100k, self.free_threading, self.loops]
        return [s for s in found if s is not None]

    @property
    def document(self) -> Results:
        """The main run's document, the one the charts are drawn from (EMPTY without one)."""
        return self.main.document if self.main else EMPTY

    def missing(self) -> list[str]:
        """The roles without a file, in ROLES' order."""
        by_role = {s.role for s in self.given()}
        return [role for role in ROLES if role not in by_role]


def of_document(document: Results, path: Path = Path("results.json")) -> Sources:
    """One results document in every role it can fill (the tests' and older callers' way)."""
    return _by_role(_results_source(path, document))


def _by_role(found: Iterable[Source]) -> Sources:
    return Sources(**{source.role.replace("-", "_"): source for source in found})


def profile_name(document: Results) -> str:
    """The profile a run was made with; '?' in a file written before its first run."""
    record = document.get("profile")
    return record["name"] if record else "?"


def _results_source(path: Path, document: Results) -> list[Source]:
    """A results file as a source of each role it fills: loops when the loops profile made it;
    c100k when it ran c100k, main when it did not or also ran another crawl (a full run of
    every scenario fills both)."""
    ran = set(document.get("derived") or {})
    profile = profile_name(document)
    started, finished = document.get("started_at"), document.get("finished_at")
    if profile == LOOPS:
        return [Source(LOOPS, path, document, profile, started, finished)]
    roles = [C100K] if catalog.C100K.name in ran else []
    roles += [MAIN] if not roles or ran & MAIN_CRAWLS else []
    return [Source(role, path, document, profile, started, finished) for role in roles]


def _runtimes_source(path: Path) -> Source:
    """A --pythons run's runtimes.json, its profile and date read from its first runtime's
    results.json beside it (DIR/<tag>/results.json)."""
    document = results.load_runtimes(path)
    profile, started = "?", None
    for tag in document.get("tags") or []:
        beside = path.parent / str(tag) / results.FILENAME
        if beside.is_file():
            first = results.load(beside)
            profile, started = profile_name(first), first.get("started_at")
            break
    return Source(FREE_THREADING, path, None, profile, started, runtimes=document)


def read(path: Path) -> list[Source]:
    """The sources in one named path: a results file, a runtimes.json, or a folder holding
    either (a `--pythons` run's DIR, or a results folder); ValueError (one line) otherwise."""
    if path.is_dir():
        for inside in (path / RUNTIMES_JSON, path / results.FILENAME):
            if inside.is_file():
                return read(inside)
        raise ValueError(f"{path} holds neither {RUNTIMES_JSON} nor {results.FILENAME}")
    if path.name == RUNTIMES_JSON:
        return [_runtimes_source(path)]
    document = results.load(path)
    if profile_name(document) == FREE_THREADING:
        beside = path.parent.parent / RUNTIMES_JSON  # DIR/<tag>/results.json of --pythons
        if beside.is_file():
            return [_runtimes_source(beside)]
    # A derived section written before derive wrote `not_run` holds figures of an older shape.
    if "derived" not in document or (document["derived"] and "not_run" not in document["derived"]):
        raise ValueError(results.underived(path))
    return _results_source(path, document)


def collect(paths: list[Path], root: Path | None = None) -> Sources:
    """The named paths by role (under root, and named relative to it, when one is given);
    ValueError (one line) when two fill the same role."""
    by_role: dict[str, Source] = {}
    for path in paths:
        for source in read(root / path if root else path):
            if root is not None:
                source = replace(source, path=source.path.relative_to(root))
            if source.role in by_role:
                raise ValueError(
                    f"{by_role[source.role].path} and {path} are both {ROLE_WORDS[source.role]}: "
                    "name one"
                )
            by_role[source.role] = source
    return _by_role(by_role.values())


def sample(root: Path) -> list[Path]:
    """The committed sample's files that exist under root (the default run's at least), as
    paths relative to root."""
    return [p for p in SAMPLE_FILES if (root / p).exists()]
