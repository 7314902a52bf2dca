"""Every name the suite uses, written once: models, idle kinds, scenarios (docs/architecture.md)."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

from c10k.entries import IdleKind, LoopClaim, ProfileName, Runtimes, by_name
from c10k.entries import Model as Model
from c10k.entries import Peer as Peer
from c10k.entries import Scenario as Scenario

SUBINTERPRETERS = Runtimes((3, 14), "concurrent.interpreters")  # PEP 734: a GIL each


# -- models -------------------------------------------------------------------------------
# The crawler core's two variants (`c10k crawl --core`, docs/contract.md#core-variants): C
# accelerated (httptools, selectolax), the default; or pure Python, which a subinterpreter loads.
CORE_C = "c"
CORE_PURE = "pure"
CORES = (CORE_C, CORE_PURE)


def on_loop(model: Model, loop: str, entry: str, how: str = "", **fields: Any) -> Model:
    """The model's own code on another asyncio event loop (LOOP_PAIRS), named after both; how
    it runs there, if not as on asyncio's loop, in its description's brackets; `fields` that
    differ from the model's. Not among the chapter's event loops (C6 judges the plain ones)."""
    return replace(
        model,
        name=f"{model.name}-{loop}",
        entry=entry,
        description=f"the {model.name} model on {loop}" + (f" ({how})" if how else ""),
        requires=(*model.requires, loop),
        event_loop=False,
        loop=loop,
        **fields,
    )


THREADS = Model(
    "threads",
    "impls.models.threads:run",
    "blocking sockets, N threads, queue.Queue",
    thread_per_worker=True,
)
CALLBACKS = Model(
    "callbacks",
    "impls.models.callbacks:run",
    "selectors loop, Fetcher callbacks",
    event_loop=True,
)
GENERATORS = Model(
    "generators",
    "impls.models.generators:run",
    "yield-from coroutines, own Future/Task/loop",
    event_loop=True,
)
ASYNCIO = Model(
    "asyncio",
    "impls.models.asyncio_streams:run",
    "async/await, asyncio.Queue, streams",
    event_loop=True,
    loop="asyncio",
    loop_api="streams",
)
ASYNCIO_UVLOOP = on_loop(
    ASYNCIO,
    "uvloop",
    "impls.models.asyncio_streams:run_uvloop",
    claim=LoopClaim("makes asyncio 2-4x faster", "uvloop 0.23.0's README (C9)", ASYNCIO.name, 2.0),
)
# rloop's transports lose a reset by the peer (docs/contract.md): the model reads its sockets.
ASYNCIO_RLOOP = on_loop(
    ASYNCIO, "rloop", "impls.models.asyncio_rloop:run", "the loop's socket API", loop_api="sockets"
)
# veloxloop 0.2.0 loses a refused connect and a reset, and stalls past 64 connections, on
# streams and sockets alike (docs/notes/2026-11-29-loop-league.md).
ASYNCIO_VELOXLOOP = on_loop(
    ASYNCIO,
    "veloxloop",
    "impls.models.asyncio_streams:run_veloxloop",
    runtimes=Runtimes(gil_only="veloxloop 0.2.0 has no free-threaded wheel"),
    finding="a refused connect and a reset end in its timeout; past 64 connections it stalls",
    claim=LoopClaim(
        "significantly faster I/O and lower overhead than the default selector event loop",
        "veloxloop 0.2.0's package description",
        ASYNCIO.name,
    ),
    failing_cases=("refused-connect", "reset"),
    max_concurrency=64,
)
# Wheels for 3.14 only (zuvloop), 3.12 on with the GIL (zloop): compared on 3.14's asyncio.
ASYNCIO_ZUVLOOP = on_loop(
    ASYNCIO,
    "zuvloop",
    "impls.models.asyncio_streams:run_zuvloop",
    runtimes=Runtimes((3, 14), "zuvloop 0.0.17's wheels"),
    claim=LoopClaim(
        "over 20x faster than asyncio at thread-safe scheduling",
        "zuvloop 0.0.17's package description",
        ASYNCIO.name,
        20.0,
    ),
)
ASYNCIO_ZLOOP = on_loop(
    ASYNCIO,
    "zloop",
    "impls.models.asyncio_streams:run_zloop",
    runtimes=Runtimes((3, 12), "zloop 0.0.1's wheels", gil_only="no cp314t wheel of zloop"),
    claim=LoopClaim(
        "for a single GIL-bound loop the default epoll backend beats uvloop",
        "zloop 0.0.1's package description",
        ASYNCIO_UVLOOP.name,
        1.0,
    ),
)
# CPython's advice for asyncio on the free-threaded build, a loop per thread sharing one crawl
# (impls/models/asyncio_threads.py); not the chapter's kind of event loop: out of C6's median.
ASYNCIO_THREADS = Model(
    "asyncio-threads",
    "impls.models.asyncio_threads:run",
    "an asyncio loop per thread (one per CPU), one shared queue",
    loop="asyncio",
    loop_api="streams",
)
ASYNCIO_THREADS_UVLOOP = on_loop(
    ASYNCIO_THREADS, "uvloop", "impls.models.asyncio_threads:run_uvloop"
)
AIOHTTP = Model(
    "aiohttp",
    "impls.models.aiohttp_client:run",
    "aiohttp.ClientSession, as in the chapter",
    requires=("aiohttp",),
    loop="asyncio",
    loop_api="transports",
)
AIOHTTP_UVLOOP = on_loop(AIOHTTP, "uvloop", "impls.models.aiohttp_client:run_uvloop")
HTTPX = Model(
    "httpx",
    "impls.models.httpx_client:run",
    "httpx.AsyncClient, stage 3 with another library",
    requires=("httpx",),
    loop="asyncio",
    loop_api="transports",
    # httpcore's pool looks at every connection it holds for each request: at 10,000 none
    # started in 200 s (docs/notes/2026-11-26-httpx-pool-ceiling.md).
    max_concurrency=1000,
)
GEVENT = Model(
    "gevent",
    "impls.models.gevent_greenlets:run",
    "the threads model's code on greenlets, gevent sockets",
    requires=("gevent",),
    runtimes=Runtimes(gil_only="gevent's libev extension turns the GIL back on"),
)
# Structured concurrency: trio's own run loop, not the chapter's kind of event loop, so it
# stays out of C6's median (the chapter's three designs against its threads).
TRIO = Model(
    "trio",
    "impls.models.trio_nursery:run",
    "nursery of N tasks, memory channel, trio sockets",
    requires=("trio",),
)
# Subinterpreters in threads of one process, each the callbacks model on one part of the site
# and on the pure core (docs/contract.md).
INTERPRETERS = Model(
    "interpreters",
    "impls.models.interpreters:run",
    "subinterpreters (a GIL each) in one process, the callbacks model in each",
    runtimes=SUBINTERPRETERS,
    processes=False,
    core=CORE_PURE,
    in_parts="impls.models.interpreters:crawl_parts",
)
# In the chapter's order (threads first), then the models it does not cover: the order of
# every table, legend and plan.
MODELS: dict[str, Model] = by_name(
    THREADS, CALLBACKS, GENERATORS, ASYNCIO, ASYNCIO_UVLOOP, ASYNCIO_RLOOP, ASYNCIO_VELOXLOOP,
    ASYNCIO_ZUVLOOP, ASYNCIO_ZLOOP, ASYNCIO_THREADS, ASYNCIO_THREADS_UVLOOP,
    AIOHTTP, AIOHTTP_UVLOOP, HTTPX, GEVENT, TRIO, INTERPRETERS,
)  # fmt: skip
# Not a model: the crawler core alone replaying a recorded crawl (`python -m impls.tools.replay`,
# no I/O): the part of a raw-socket model's cost per page that is not the model's own.
CORE_REPLAY = "core-replay"
# The pairs that differ only in the event loop, each (on asyncio's loop, on another): C9,
# "which loop", whose claim is that uvloop makes asyncio 2-4x faster (judged on the first).
LOOP_PAIRS: tuple[tuple[Model, Model], ...] = (
    (ASYNCIO, ASYNCIO_UVLOOP), (AIOHTTP, AIOHTTP_UVLOOP), (ASYNCIO, ASYNCIO_RLOOP),
    (ASYNCIO, ASYNCIO_VELOXLOOP), (ASYNCIO, ASYNCIO_ZUVLOOP), (ASYNCIO, ASYNCIO_ZLOOP),
)  # fmt: skip
# -- idle kinds ---------------------------------------------------------------------------
THREAD = IdleKind(
    "thread",
    "impls.tools.idle:park_default_stack_threads",
    suite_count=1000,
    thread=True,
)
THREAD_SMALL_STACK = IdleKind(
    "thread-small-stack",
    "impls.tools.idle:park_small_stack_threads",
    thread=True,
)
ASYNCIO_TASK = IdleKind("asyncio-task", "impls.tools.idle:park_asyncio_tasks", suite_count=10_000)
UVLOOP_TASK = IdleKind("uvloop-task", "impls.tools.idle:park_uvloop_tasks", suite_count=10_000)
RLOOP_TASK = IdleKind("rloop-task", "impls.tools.idle:park_rloop_tasks", suite_count=10_000)
GENERATORS_TASK = IdleKind(
    "generators-task",
    "impls.tools.idle:park_generators_model",
    suite_count=10_000,
)
GENERATOR = IdleKind("generator", "impls.tools.idle:park_generators")
COROUTINE = IdleKind(
    "coroutine",
    "impls.tools.idle:park_coroutines",
    suite_count=10_000,
)
# A parked greenlet keeps a copy of its slice of the C stack: ~8 KB and ~75 us to park.
GREENLET = IdleKind(
    "greenlet",
    "impls.tools.idle:park_greenlets",
    suite_count=10_000,
    stackful=True,
)
TRIO_TASK = IdleKind("trio-task", "impls.tools.idle:park_trio_tasks", suite_count=10_000)
# As the interpreters model runs one: in a thread of its own, blocked (on a pipe).
SUBINTERPRETER = IdleKind(
    "subinterpreter",
    "impls.tools.idle:park_subinterpreters",
    interpreter=True,
    runtimes=SUBINTERPRETERS,
)
IDLE_KINDS: dict[str, IdleKind] = by_name(
    THREAD, THREAD_SMALL_STACK, ASYNCIO_TASK, UVLOOP_TASK, RLOOP_TASK, GENERATORS_TASK,
    GENERATOR, COROUTINE, GREENLET, TRIO_TASK, SUBINTERPRETER,
)  # fmt: skip

# The idle kinds that are coroutines of some sort (not threads, nor interpreters): C2, C4.
COROUTINE_KINDS: tuple[str, ...] = tuple(
    k.name for k in IDLE_KINDS.values() if not (k.thread or k.interpreter)
)
# Those of the chapter's kind, which C2's "barely 3k" is about: no stack of their own.
STACKLESS_COROUTINE_KINDS: tuple[str, ...] = tuple(
    k for k in COROUTINE_KINDS if not IDLE_KINDS[k].stackful
)

# -- scenarios ----------------------------------------------------------------------------
NOISE_FLOOR = Scenario(
    "noise-floor",
    ("C6", "C9"),
    "one fixed CPU-bound loop, each run a fresh process on the crawler's CPUs: how much this "
    "machine alone moves a CPU figure, the floor under every coefficient of variation",
)
# What runs in the noise-floor scenario, named like a model in its runs (`python -m
# impls.tools.cpu_loop`); not a model.
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
BOTH_CORES = Scenario(
    "both-cores",
    ("C8",),
    'the many-links keep-alive site, unpinned: the three answers to "use both cores" on the '
    "pure core (subinterpreters on the GIL build, threads on the free-threaded one, "
    "`--processes 2` on the GIL build), and the C core's `--processes 2` beside them: pages/s "
    "and memory per connection",
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
    by_name(
        FEW_ACTIVE, FEW_ACTIVE_KEEP_ALIVE, LATENCY_SWEEP, SLEEPY, SLEEPY_KEEP_ALIVE, REALISTIC,
        MANY_LINKS_KEEP_ALIVE, BOTH_CORES, C100K,
    )
)  # fmt: skip
SCENARIOS: dict[str, Scenario] = by_name(
    NOISE_FLOOR, IDLE, FEW_ACTIVE, FEW_ACTIVE_KEEP_ALIVE, SLEEPY, SLEEPY_KEEP_ALIVE,
    LATENCY_SWEEP, REALISTIC, MANY_LINKS_KEEP_ALIVE, BOTH_CORES, C100K, INSTRUCTIONS,
)  # fmt: skip

# -- profiles: `c10k bench --profile NAME` (their runs: bench/harness/profiles.py) ---------
QUICK = ProfileName(
    "quick", "every model and scenario at tiny scale: a CI smoke test, not a measurement"
)
DEFAULT = ProfileName(
    "default", "what `tox -e bench` runs: every claim but C5 and C8 at 10,000 connections"
)
FULL = ProfileName(
    "full",
    "more points, more repetitions, concurrency up to the open-file limit; C5's run "
    "(with --scenarios idle,c100k)",
)
FREE_THREADING = ProfileName(
    "free-threading",
    "claim C8: few-active and a CPU-heavy keep-alive crawl at C 2-64, the idle thread, and "
    "the ways to use both cores, for --pythons 3.14,3.14t; unpinned unless --pin is given",
)
LOOPS = ProfileName(
    "loops",
    "the loop league: the asyncio model on each loop against asyncio's own (few-active, "
    "callgrind's count, realistic), on one runtime: --python 3.14 for every loop",
)
PROFILES: dict[str, ProfileName] = by_name(QUICK, DEFAULT, FULL, FREE_THREADING, LOOPS)

# -- peers: what a user would use instead (not models) -------------------------------------
SCRAPY = Peer(
    "scrapy",
    "impls.peers.scrapy_spider:run",
    "Scrapy spider on Twisted (a peer: what a user would use instead)",
    requires=("scrapy",),
    scenarios=(FEW_ACTIVE.name, SLEEPY.name, REALISTIC.name),
    # The sleepy site at L = 2 s on the 2-core dev VM: C 1,000 held; at C 2,000 and 3,000 the
    # server's peak stays at 1,200, Scrapy being CPU-bound (about 8 ms of CPU per page).
    max_concurrency=1000,
)
PEERS: dict[str, Peer] = by_name(SCRAPY)
# Every crawler `c10k crawl --model` runs, models first: for lookups by name, not comparisons.
CRAWLERS: dict[str, Model] = {**MODELS, **PEERS}


def _in_order(known: dict[str, Any], names: list[str] | set[str]) -> list[str]:
    """names in the catalog's order, unknown ones after, alphabetically."""
    return [k for k in known if k in names] + sorted(n for n in names if n not in known)


model_order = partial(_in_order, CRAWLERS)  # models, then peers, then unknown names
idle_order = partial(_in_order, IDLE_KINDS)
