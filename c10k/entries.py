"""What a catalog entry is: a model, a peer, an idle kind, a scenario, and what each needs."""

from __future__ import annotations

import importlib
import importlib.util
import platform
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar


class _Named(Protocol):
    @property
    def name(self) -> str: ...


_N = TypeVar("_N", bound=_Named)


def by_name(*entries: _N) -> dict[str, _N]:
    """The entries keyed by their names, in the order given (the order of every listing)."""
    return {entry.name: entry for entry in entries}


def _load(entry: str) -> Callable[..., Any]:
    module_name, _, function = entry.partition(":")
    loaded: Callable[..., Any] = getattr(importlib.import_module(module_name), function)
    return loaded


@dataclass(frozen=True)
class Runtimes:
    """The CPythons an entry runs on: from `oldest` on, with the GIL, and on the free-threaded
    build unless `gil_only` says why not (the catalog's runtime column, docs/runtimes.md)."""

    oldest: tuple[int, int] = (3, 11)
    feature: str = ""  # what `oldest` has that older ones lack: "concurrent.interpreters"
    gil_only: str = ""  # why not free-threaded: no cp3XXt wheel, or it turns the GIL back on

    def needs(self, tag: str, version: str) -> str | None:
        """What a CPython lacks, by its tag ('3.14t': free-threaded) and version ('3.14.7'),
        as 'needs CPython ...' ends: '3.14', 'with the GIL'; None if it will do."""
        major, minor = version.split(".")[:2]
        if (int(major), int(minor)) < self.oldest:
            return ".".join(map(str, self.oldest))
        return "with the GIL" if tag.endswith("t") and self.gil_only else None

    def refusal(self, what: str) -> str | None:
        """One line naming the interpreter `what` needs; None if this one will do."""
        version = platform.python_version()
        tag = "t" if sysconfig.get_config_var("Py_GIL_DISABLED") else ""
        if not (needs := self.needs(tag, version)):
            return None
        why = f"{needs}+ ({self.feature})" if needs[0].isdigit() else f"{needs} ({self.gil_only})"
        return f"{what} needs CPython {why}; this is {version}{tag}"

    def words(self) -> str:
        """'3.11+', '3.14+', '3.11+, GIL only': the report's runtime column."""
        major, minor = self.oldest
        return f"{major}.{minor}+" + (", GIL only" if self.gil_only else "")


ANY_RUNTIME = Runtimes()


@dataclass(frozen=True)
class LoopClaim:
    """What a loop's maker says of it, quoted, and where: judged like C9 when it names a
    figure, the least ratio of `against`'s CPU per page over the loop's that bears it out."""

    words: str
    source: str
    against: str  # the model it is measured against: on asyncio's loop, or on another
    at_least: float | None = None  # None: the words name no figure, and get no verdict


@dataclass(frozen=True)
class Model:
    """A crawler model: `c10k crawl --model NAME` runs `entry(frontier)` until the crawl ends."""

    name: str
    entry: str  # "module:function"; the function takes a Frontier and crawls until done
    description: str
    requires: tuple[str, ...] = ()  # importable modules the model needs
    event_loop: bool = False  # a single-threaded event loop of the chapter's kind (claim C6)
    # Each worker is an OS thread, started and torn down per crawl (the plan's ramp counts
    # threads started, not connections opened).
    thread_per_worker: bool = False
    # `c10k crawl --processes P` can crawl a site's P parts in P processes of it (docs/contract.md).
    processes: bool = True
    # The asyncio event loop it runs on ("asyncio", "uvloop", "rloop"; "": none) and what it
    # asks of it: "streams" (asyncio.open_connection), "sockets" (loop.sock_connect and
    # sock_recv) or "transports" (a library's own protocol on loop.create_connection). The
    # crawl document records both (docs/crawl-json.md), for C9's "which loop".
    loop: str = ""
    loop_api: str = ""
    runtimes: Runtimes = ANY_RUNTIME  # the CPythons it runs on
    core: str = ""  # the only core variant it runs on ("": `--core` chooses)
    # "module:function(args, connect_host, roots) -> document" that `c10k crawl` runs
    # instead of `entry` (kept for in-process callers): the site's parts (their roots),
    # crawled in one process and merged.
    in_parts: str = ""
    # The most connections the harness asks it to hold (0: no ceiling), where one process
    # of it holds no more in reasonable time: measured, and said in the report.
    max_concurrency: int = 0
    # What the contract tests found it does wrong (a loop of the league): its failed
    # verifications are this finding, which the report shows and --check lets pass; the tests
    # marked with one of `failing_cases` (pytest.mark.contract_case) must fail on it.
    finding: str = ""
    failing_cases: tuple[str, ...] = ()
    claim: LoopClaim | None = None  # a loop of the league: what its maker claims of it

    def missing(self) -> list[str]:
        """The required modules that cannot be imported here."""
        return [name for name in self.requires if importlib.util.find_spec(name) is None]

    def unavailable(self) -> str | None:
        """Why this interpreter cannot run it, in one line (None: it can, modules aside)."""
        return self.runtimes.refusal(f"model {self.name}")

    def load(self) -> Callable[..., None]:
        return _load(self.entry)

    def load_in_parts(self) -> Callable[..., dict[str, Any]]:
        return _load(self.in_parts)


@dataclass(frozen=True)
class Peer(Model):
    """A crawler a user would pick instead of writing one (Scrapy): it runs and is verified
    like a model, but lives in PEERS, never in MODELS: no verdict, comparison or regression
    suite includes it. The harness runs it in `scenarios` only, up to `max_concurrency`, and
    the report draws it as a reference."""

    extra: str = "peers"  # the pip extra that installs `requires`
    processes: bool = False  # it runs as its own project does: in one process
    scenarios: tuple[str, ...] = ()  # the scenarios the harness runs it in
    # Runs per point at most, and no warm-up: a reference needs no interval to compare by.
    repetitions: int = 1
    # The connection mode it really uses, whatever the scenario asks (a peer keeps its own).
    keep_alive: bool = True

    def install_hint(self) -> str:
        return f"{self.name} is not installed: pip install 'c10k-bench[{self.extra}]'"


@dataclass(frozen=True)
class IdleKind:
    """A unit of waiting that `python -m impls.tools.idle --kind NAME` parks without sockets."""

    name: str
    entry: str  # "module:function(count, steps) -> points"
    suite_count: int = 0  # units parked by the regression suite; 0: not in the suite
    thread: bool = False  # an OS thread (against a coroutine of some kind)
    # A coroutine that keeps a slice of the C stack while it waits (a greenlet): shown beside
    # the chapter's stackless coroutines in C2, not judged by its "barely 3k" (docs/report.md).
    stackful: bool = False
    interpreter: bool = False  # a whole interpreter: neither a thread nor a coroutine
    runtimes: Runtimes = ANY_RUNTIME  # the CPythons it runs on

    def unavailable(self) -> str | None:
        """Why this interpreter cannot park it, in one line (None: it can)."""
        return self.runtimes.refusal(f"idle kind {self.name}")

    def load(self) -> Callable[..., list[dict[str, Any]]]:
        return _load(self.entry)


@dataclass(frozen=True)
class ProfileName:
    """A profile of `c10k bench --profile NAME`: what it runs is bench/harness/profiles.py's."""

    name: str
    description: str


@dataclass(frozen=True)
class Scenario:
    """A scenario's name, the claims it measures and what it does (its points are per profile)."""

    name: str
    claims: tuple[str, ...]
    description: str
    # Every crawl of the scenario runs with `c10k crawl --keep-alive`: each worker keeps one
    # persistent connection (docs/contract.md, connection modes). False: one per fetch.
    keep_alive: bool = False
    # False: the models with a thread per worker sit it out, as its concurrency is past the
    # threads the machine can start (C5's ceiling, which the idle scenario measures).
    thread_workers: bool = True
