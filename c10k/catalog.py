"""Every name the suite uses, written once: models, idle kinds, scenarios, and what goes with them.

The crawler, the harness, the report and the regression gate all read this module; none of
them spells a model, an idle kind or a scenario again. Adding a model is one module in
impls/ plus one `Model(...)` entry below (and one line in MODELS). The module imports
nothing of the project, so any stage may read it without loading another.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Style:
    """How a model is drawn: colour for screens, marker/line/hatch for grey-scale prints."""

    colour: str
    marker: str
    linestyle: Any  # a matplotlib line style: a name or (offset, (on, off, ...))
    hatch: str


def _load(entry: str) -> Callable[..., Any]:
    module_name, _, function = entry.partition(":")
    loaded: Callable[..., Any] = getattr(importlib.import_module(module_name), function)
    return loaded


@dataclass(frozen=True)
class Model:
    """A crawler model: `c10k crawl --model NAME` runs `entry(frontier)` until the crawl ends."""

    name: str
    entry: str  # "module:function"; the function takes a Frontier and crawls until done
    description: str
    style: Style
    startup_s: float  # the plan's cost model: interpreter start and imports of one crawl
    cpu_per_page_s: float  # the plan's cost model: crawler CPU per page (user + sys)
    requires: tuple[str, ...] = ()  # importable modules the model needs
    event_loop: bool = False  # a single-threaded event loop of the chapter's kind (claim C6)
    # The plan's cost model: each worker is an OS thread, started and torn down per crawl
    # (THREAD_CEILING_S_PER_THREAD each) rather than a connection opened (CONNECT_S).
    thread_per_worker: bool = False
    # `c10k crawl --processes P` can run it as P processes sharing one crawl (docs/contract.md).
    processes: bool = False
    # The asyncio event loop it runs on ("asyncio", "uvloop", "rloop"; "": none) and what it
    # asks of it: "streams" (asyncio.open_connection), "sockets" (loop.sock_connect and
    # sock_recv) or "transports" (a library's own protocol on loop.create_connection). The
    # crawl document records both (docs/crawl-json.md), for C9's "which loop".
    loop: str = ""
    loop_api: str = ""

    def missing(self) -> list[str]:
        """The required modules that cannot be imported here."""
        return [name for name in self.requires if importlib.util.find_spec(name) is None]

    def load(self) -> Callable[..., None]:
        return _load(self.entry)


@dataclass(frozen=True)
class Peer(Model):
    """A crawler a user would pick instead of writing one (Scrapy): not a model.

    It runs like a model (`c10k crawl --model NAME`, `entry(frontier)`) and is verified
    against the same manifest, but it lives in PEERS, never in MODELS: no verdict, no
    comparison between models and no regression suite includes it. The harness runs it
    in `scenarios` only, up to `max_concurrency`, and the report draws it as a reference.
    """

    extra: str = "peers"  # the pip extra that installs `requires`
    # The scenarios the harness runs it in, and the most connections it is asked to hold.
    scenarios: tuple[str, ...] = ()
    max_concurrency: int = 0
    # Runs per point at most, and no warm-up: a reference needs no interval to compare by.
    repetitions: int = 1
    # The connection mode it really uses, whatever the scenario asks (a peer keeps its own).
    keep_alive: bool = True

    def install_hint(self) -> str:
        return f"{self.name} is not installed: pip install 'c10k-bench[{self.extra}]'"


@dataclass(frozen=True)
class IdleKind:
    """A unit of waiting that `python -m impls.idle --kind NAME` parks without sockets."""

    name: str
    entry: str  # "module:function(count, steps) -> points"
    style: Style
    start_s: float  # the plan's cost model: start, measure and release one unit
    suite_count: int = 0  # units parked by the regression suite; 0: not in the suite
    thread: bool = False  # an OS thread (against a coroutine of some kind)
    # A coroutine that keeps a slice of the C stack while it waits (a greenlet): shown beside
    # the chapter's stackless coroutines in C2, not judged by its "barely 3k" (docs/report.md).
    stackful: bool = False

    def load(self) -> Callable[..., list[dict[str, Any]]]:
        return _load(self.entry)


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


# -- models -------------------------------------------------------------------------------
# Okabe-Ito colours (safe for colour-blind readers; a purple instead of its black, which would
# hide the black hatching); markers, dashes and hatches differ too, so each model stays
# recognisable in grey. The "X" marker is kept for runs that did not count. Circle and dot
# hatches are used sparingly: each one costs ~40 KB of SVG. Costs were measured on the
# 2-core dev VM (CPU per page rounded up from quick-profile runs).
THREADS = Model(
    "threads",
    "impls.threads:run",
    "blocking sockets, N threads, queue.Queue",
    Style("#D55E00", "s", "-", "///"),
    startup_s=0.2,
    cpu_per_page_s=700e-6,
    thread_per_worker=True,
    processes=True,
)
CALLBACKS = Model(
    "callbacks",
    "impls.callbacks:run",
    "selectors loop, Fetcher callbacks",
    Style("#0072B2", "o", "--", "\\\\\\"),
    startup_s=0.2,
    cpu_per_page_s=450e-6,
    event_loop=True,
    processes=True,
)
GENERATORS = Model(
    "generators",
    "impls.generators:run",
    "yield-from coroutines, own Future/Task/loop",
    Style("#009E73", "^", "-.", "xxx"),
    startup_s=0.2,
    cpu_per_page_s=550e-6,
    event_loop=True,
    processes=True,
)
ASYNCIO = Model(
    "asyncio",
    "impls.asyncio_streams:run",
    "async/await, asyncio.Queue, streams",
    Style("#CC79A7", "D", ":", "||"),
    startup_s=0.25,
    cpu_per_page_s=650e-6,
    event_loop=True,
    processes=True,
    loop="asyncio",
    loop_api="streams",
)
ASYNCIO_UVLOOP = Model(
    "asyncio-uvloop",
    "impls.asyncio_streams:run_uvloop",
    "the asyncio model on uvloop",
    Style("#E69F00", "v", (0, (5, 1, 1, 1, 1, 1)), "O"),
    startup_s=0.25,
    cpu_per_page_s=550e-6,
    requires=("uvloop",),
    processes=True,
    loop="uvloop",
    loop_api="streams",
)
# rloop's transports lose a reset by the peer (impls/models/asyncio_rloop.py), so the asyncio
# model's fetch runs on the loop's socket API there. Tol's wine; triangle right, long and
# short dash, vertical and forward-diagonal hatch.
ASYNCIO_RLOOP = Model(
    "asyncio-rloop",
    "impls.models.asyncio_rloop:run",
    "the asyncio model on rloop (the loop's socket API)",
    Style("#882255", ">", (0, (10, 3, 2, 3)), "|/"),
    startup_s=0.25,
    cpu_per_page_s=550e-6,
    requires=("rloop",),
    processes=True,
    loop="rloop",
    loop_api="sockets",
)
AIOHTTP = Model(
    "aiohttp",
    "impls.aiohttp_client:run",
    "aiohttp.ClientSession, as in the chapter",
    Style("#56B4E9", "P", (0, (8, 2)), "---"),
    startup_s=0.45,
    cpu_per_page_s=1300e-6,
    requires=("aiohttp",),
    processes=True,
    loop="asyncio",
    loop_api="transports",
)
AIOHTTP_UVLOOP = Model(
    "aiohttp-uvloop",
    "impls.aiohttp_client:run_uvloop",
    "the aiohttp model on uvloop",
    Style("#7570B3", "*", (0, (3, 1, 1, 1)), "+++"),
    startup_s=0.45,
    cpu_per_page_s=1200e-6,
    requires=("aiohttp", "uvloop"),
    processes=True,
    loop="uvloop",
    loop_api="transports",
)
# Tol's teal; flat hexagon, two dots and a gap, crossed diagonals with horizontals.
HTTPX = Model(
    "httpx",
    "impls.models.httpx_client:run",
    "httpx.AsyncClient, stage 3 with another library",
    Style("#44AA99", "H", (0, (1, 1, 1, 4)), "x-"),
    startup_s=0.5,
    cpu_per_page_s=2500e-6,  # about twice aiohttp's at C 10 (one run each, deep site)
    requires=("httpx",),
    processes=True,
    loop="asyncio",
    loop_api="transports",
)
GEVENT = Model(
    "gevent",
    "impls.gevent_greenlets:run",
    "the threads model's code on greenlets, gevent sockets",
    Style("#A6761D", "p", (0, (4, 2, 4, 2, 1, 2)), "\\\\|"),
    startup_s=0.25,
    cpu_per_page_s=900e-6,
    requires=("gevent",),
    processes=True,
)
# Structured concurrency: trio's own run loop, not the chapter's kind of event loop, so it
# stays out of C6's median (the chapter's three designs against its threads).
TRIO = Model(
    "trio",
    "impls.trio_nursery:run",
    "nursery of N tasks, memory channel, trio sockets",
    Style("#66A61E", "<", (0, (2, 4)), "-\\\\"),
    startup_s=0.4,  # asyncio's, plus 0.11 s of importing trio
    cpu_per_page_s=750e-6,
    requires=("trio",),
    processes=True,
)
# In the chapter's order (threads first), then the models it does not cover: the order of
# every table, legend and plan.
MODELS: dict[str, Model] = {
    m.name: m
    for m in (
        THREADS,
        CALLBACKS,
        GENERATORS,
        ASYNCIO,
        ASYNCIO_UVLOOP,
        ASYNCIO_RLOOP,
        AIOHTTP,
        AIOHTTP_UVLOOP,
        HTTPX,
        GEVENT,
        TRIO,
    )
}
# Not a model: the crawler core alone (impls/core), fed a recorded crawl by `python -m
# impls.replay` with no I/O; its cost per page is the part of a raw-socket model's that is
# not the model's own.
CORE_REPLAY = "core-replay"
CORE_REPLAY_STARTUP_S = 0.1  # the plan's cost model for the replay, as for a model
CORE_REPLAY_CPU_PER_PAGE_S = 500e-6
# The pairs that differ only in the event loop, each (on asyncio's loop, on another): C9,
# "which loop", whose claim is that uvloop makes asyncio 2-4x faster (judged on the first).
LOOP_PAIRS: tuple[tuple[Model, Model], ...] = (
    (ASYNCIO, ASYNCIO_UVLOOP),
    (AIOHTTP, AIOHTTP_UVLOOP),
    (ASYNCIO, ASYNCIO_RLOOP),
)
# -- idle kinds ---------------------------------------------------------------------------
# Idle kinds borrow the colour of the model that parks work that way.
THREAD = IdleKind(
    "thread",
    "impls.idle:park_default_stack_threads",
    THREADS.style,
    120e-6,
    suite_count=1000,
    thread=True,
)
THREAD_SMALL_STACK = IdleKind(
    "thread-small-stack",
    "impls.idle:park_small_stack_threads",
    Style("#F0A47A", "s", "--", "//"),
    110e-6,
    thread=True,
)
ASYNCIO_TASK = IdleKind(
    "asyncio-task", "impls.idle:park_asyncio_tasks", ASYNCIO.style, 12e-6, suite_count=10_000
)
UVLOOP_TASK = IdleKind(
    "uvloop-task", "impls.idle:park_uvloop_tasks", ASYNCIO_UVLOOP.style, 10e-6, suite_count=10_000
)
RLOOP_TASK = IdleKind(
    "rloop-task", "impls.idle:park_rloop_tasks", ASYNCIO_RLOOP.style, 10e-6, suite_count=10_000
)
GENERATORS_TASK = IdleKind(
    "generators-task",
    "impls.idle:park_generators_model",
    GENERATORS.style,
    12e-6,
    suite_count=10_000,
)
GENERATOR = IdleKind(
    "generator", "impls.idle:park_generators", Style("#7FCFB9", "^", ":", "*"), 3e-6
)
COROUTINE = IdleKind(
    "coroutine",
    "impls.idle:park_coroutines",
    Style("#AAAAAA", "h", "-.", "."),
    2e-6,
    suite_count=10_000,
)
# A parked greenlet keeps a copy of its slice of the C stack: ~8 KB and ~75 us to park.
GREENLET = IdleKind(
    "greenlet",
    "impls.idle:park_greenlets",
    GEVENT.style,
    80e-6,
    suite_count=10_000,
    stackful=True,
)
TRIO_TASK = IdleKind(
    "trio-task", "impls.idle:park_trio_tasks", TRIO.style, 30e-6, suite_count=10_000
)
IDLE_KINDS: dict[str, IdleKind] = {
    k.name: k
    for k in (
        THREAD,
        THREAD_SMALL_STACK,
        ASYNCIO_TASK,
        UVLOOP_TASK,
        RLOOP_TASK,
        GENERATORS_TASK,
        GENERATOR,
        COROUTINE,
        GREENLET,
        TRIO_TASK,
    )
}

# The idle kinds that are coroutines of some sort (everything but a thread): claims C2, C4.
COROUTINE_KINDS: tuple[str, ...] = tuple(k.name for k in IDLE_KINDS.values() if not k.thread)
# Those of the chapter's kind, which C2's "barely 3k" is about: no stack of their own.
STACKLESS_COROUTINE_KINDS: tuple[str, ...] = tuple(
    k.name for k in IDLE_KINDS.values() if not k.thread and not k.stackful
)

# -- scenarios ----------------------------------------------------------------------------
NOISE_FLOOR = Scenario(
    "noise-floor",
    ("C6", "C9"),
    "one fixed CPU-bound loop, each run a fresh process on the crawler's CPUs: how much this "
    "machine alone moves a CPU figure, the floor under every coefficient of variation",
)
# What runs in the noise-floor scenario, named like a model in its runs (`python -m
# impls.cpu_loop`); not a model.
CPU_LOOP = "cpu-loop"
IDLE = Scenario(
    "idle",
    ("C1", "C2", "C3", "C4", "C5"),
    "units parked with no sockets: memory, kernel memory and start time per unit; "
    "threads started until failure",
)
FEW_ACTIVE = Scenario(
    "few-active", ("C6",), "a deep site at latency 0, concurrency 1-64: pages/s and CPU per page"
)
SLEEPY = Scenario(
    "sleepy",
    ("C5", "C7", "C9"),
    "a wide site with a fixed latency, concurrency up to 10,000+: throughput against "
    "the ideal C/L, peak in flight, memory per connection",
)
FEW_ACTIVE_KEEP_ALIVE = Scenario(
    "few-active-keep-alive",
    ("C6",),
    "the few-active site with one persistent connection per worker: the models' cost "
    "without a connection set-up per page",
    keep_alive=True,
)
SLEEPY_KEEP_ALIVE = Scenario(
    "sleepy-keep-alive",
    ("C7",),
    "the sleepy site with one persistent connection per worker: C connections held at "
    "once for the whole crawl",
    keep_alive=True,
)
LATENCY_SWEEP = Scenario(
    "latency-sweep",
    ("C6", "C7"),
    "fixed concurrency, latency from 0 to 1 s: where each model stops being CPU-bound",
)
REALISTIC = Scenario(
    "realistic",
    ("C7", "C9"),
    "a deep site with lognormal latency, a bandwidth limit and faults; and a documentation "
    "site (the docs preset: 50-200 KB pages, 300 links a page)",
)
MANY_LINKS_KEEP_ALIVE = Scenario(
    "many-links-keep-alive",
    ("C8",),
    "the few-active site with hundreds of links a page, one persistent connection per "
    "worker: the crawler's CPU (parsing, links, frontier) limits, not the server's, so the "
    "GIL binds the threads model",
    keep_alive=True,
)
C100K = Scenario(
    "c100k",
    ("C5",),
    "keep-alive crawls past one process's open files: up to 100,000 connections held at once "
    "by `c10k crawl --processes` against a server on several loopback addresses, and one "
    "process up to 10,000 beside them: memory per connection at both scales",
    keep_alive=True,
    thread_workers=False,
)
INSTRUCTIONS = Scenario(
    "instructions",
    ("C6", "C9"),
    "the few-active site crawled once per model under callgrind (fixed hash seed), and the "
    "core alone replaying it: instructions per page, the CPU figure that holds still",
)
# The scenarios made of sampled crawls, in the order the end-of-run summary and the report's
# tables list them.
SAMPLED_CRAWL_SCENARIOS: tuple[str, ...] = tuple(
    s.name
    for s in (
        FEW_ACTIVE,
        FEW_ACTIVE_KEEP_ALIVE,
        LATENCY_SWEEP,
        SLEEPY,
        SLEEPY_KEEP_ALIVE,
        REALISTIC,
        MANY_LINKS_KEEP_ALIVE,
        C100K,
    )
)
SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        NOISE_FLOOR,
        IDLE,
        FEW_ACTIVE,
        FEW_ACTIVE_KEEP_ALIVE,
        SLEEPY,
        SLEEPY_KEEP_ALIVE,
        LATENCY_SWEEP,
        REALISTIC,
        MANY_LINKS_KEEP_ALIVE,
        C100K,
        INSTRUCTIONS,
    )
}

# -- peers: what a user would use instead (not models) -------------------------------------
SCRAPY = Peer(
    "scrapy",
    "impls.peers.scrapy_spider:run",
    "Scrapy spider on Twisted (a peer: what a user would use instead)",
    Style("#555555", "p", (0, (1, 1)), ".."),
    startup_s=0.9,
    cpu_per_page_s=8000e-6,  # 6.5-9 ms on the quick sites, 74 ms on the docs preset
    requires=("scrapy",),
    scenarios=(FEW_ACTIVE.name, SLEEPY.name, REALISTIC.name),
    # The sleepy site at L = 2 s on the 2-core dev VM: C = 1,000 held (server peak 1,000); at
    # C = 2,000 and 3,000 the server's peak stays at 1,200, as Scrapy is CPU-bound (about
    # 8 ms of CPU per page: ~125 pages/s, so ~250-1,200 fetches in flight at 2 s).
    max_concurrency=1000,
)
PEERS: dict[str, Peer] = {SCRAPY.name: SCRAPY}
# Every crawler `c10k crawl --model` runs, models first: for lookups by name, never for loops
# that compare models.
CRAWLERS: dict[str, Model] = {**MODELS, **PEERS}


def peer_runs_in(name: str, scenario: str) -> bool:
    """True if NAME is a peer the harness runs in SCENARIO (a model: always True)."""
    peer = PEERS.get(name)
    return peer is None or scenario in peer.scenarios


# -- the cost model behind the plan's estimates (seconds; measured on the 2-core dev VM) ----
SWEEP_CPU_PER_PAGE_S = 500e-6  # sizes latency-sweep sites (one site serves every model)
CONNECT_S = 60e-6  # opening one connection during a ramp (threads: starting one thread)
SERVER_RATE = 8000.0  # pages/s one server worker gives while a crawler shares the machine
# Starting threads until the machine refuses one, then ending them all: 29.5 s of wall time
# for 22,076 threads on the dev VM (10.6 s to start them, the rest the kernel tearing them
# down: 41 s of system CPU), 40 s and more on a loaded one. The start time per thread alone
# underestimated it tenfold, and the run was killed before it could report the ceiling.
THREAD_CEILING_S_PER_THREAD = 1.4e-3
# A crawl under callgrind against the same crawl's native start-up and CPU (the cost model's
# figures): 20-30x for the models on the dev VM, imports included.
CALLGRIND_SLOWDOWN = 30.0
CPU_LOOP_S = 0.5  # one noise-floor run: interpreter start-up and the fixed loop
RUN_OVERHEAD_S = 0.25  # stats reset, stats and manifest comparison, writing results.json
SERVER_START_S = 1.5  # `c10k serve` start, its manifest download, and its stop
UNKNOWN_STARTUP_S = 0.5  # a model the cost model does not know yet
UNKNOWN_CPU_PER_PAGE_S = 1e-3


def _catalog_order(names: list[str] | set[str], known: dict[str, Any]) -> list[str]:
    """names in the catalog's order, unknown ones after, alphabetically."""
    return [k for k in known if k in names] + sorted(n for n in names if n not in known)


def model_order(names: list[str] | set[str]) -> list[str]:
    """Models in the catalog's order, then peers, then unknown names."""
    return _catalog_order(names, CRAWLERS)


def idle_order(names: list[str] | set[str]) -> list[str]:
    return _catalog_order(names, IDLE_KINDS)
