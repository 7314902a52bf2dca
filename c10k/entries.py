"""What a catalog entry is: a model, a peer, an idle kind, a scenario, and what each needs."""

from __future__ import annotations

import importlib
import importlib.util
import platform
import sys
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
class NeedsPython:
    """The oldest CPython a model or an idle kind runs on, and what it needs of that one."""

    version: tuple[int, int]
    feature: str  # what that version has: "concurrent.interpreters"

    def runs_on(self, version: tuple[int, int]) -> bool:
        """Whether CPython `version` (major, minor) has what is needed."""
        return version >= self.version

    def refusal(self, what: str) -> str | None:
        """One line naming the interpreter `what` needs; None if this one will do."""
        if self.runs_on((sys.version_info[0], sys.version_info[1])):
            return None
        major, minor = self.version
        this = platform.python_version()
        return f"{what} needs CPython {major}.{minor}+ ({self.feature}); this is {this}"


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
    processes: bool = False
    # The asyncio event loop it runs on ("asyncio", "uvloop", "rloop"; "": none) and what it
    # asks of it: "streams" (asyncio.open_connection), "sockets" (loop.sock_connect and
    # sock_recv) or "transports" (a library's own protocol on loop.create_connection). The
    # crawl document records both (docs/crawl-json.md), for C9's "which loop".
    loop: str = ""
    loop_api: str = ""
    python: NeedsPython | None = None  # the interpreter it needs, if not any the project runs on
    core: str = ""  # the only core variant it runs on ("": `--core` chooses)
    # "module:function(args, connect_host, roots) -> document" that `c10k crawl` runs
    # instead of `entry` (kept for in-process callers): the site's parts (their roots),
    # crawled in one process and merged.
    in_parts: str = ""
    # The most connections the harness asks it to hold (0: no ceiling), where one process
    # of it holds no more in reasonable time: measured, and said in the report.
    max_concurrency: int = 0

    def missing(self) -> list[str]:
        """The required modules that cannot be imported here."""
        return [name for name in self.requires if importlib.util.find_spec(name) is None]

    def too_old(self) -> str | None:
        """Why this interpreter cannot run it, in one line (None: it can, modules aside)."""
        return self.python.refusal(f"model {self.name}") if self.python else None

    def load(self) -> Callable[..., None]:
        return _load(self.entry)

    def load_in_parts(self) -> Callable[..., dict[str, Any]]:
        return _load(self.in_parts)


@dataclass(frozen=True)
class Peer(Model):
    """A crawler a user would pick instead of writing one (Scrapy): not a model.

    It runs like a model (`c10k crawl --model NAME`, `entry(frontier)`) and is verified
    against the same manifest, but it lives in PEERS, never in MODELS: no verdict, no
    comparison between models and no regression suite includes it. The harness runs it
    in `scenarios` only, up to `max_concurrency`, and the report draws it as a reference.
    """

    extra: str = "peers"  # the pip extra that installs `requires`
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
    python: NeedsPython | None = None  # the interpreter it needs, if not any

    def too_old(self) -> str | None:
        """Why this interpreter cannot park it, in one line (None: it can)."""
        return self.python.refusal(f"idle kind {self.name}") if self.python else None

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
