"""The plan's cost model: the seconds each run is expected to take, keyed by the catalog's names."""

from __future__ import annotations

from dataclasses import dataclass

from c10k import catalog

# Measured on the 2-core dev VM: CPU per page rounded up from quick-profile runs, a start-up
# the median of what a crawl took beyond its waits and CPU over the quick and default
# profiles' runs (docs/notes/2026-11-29-plan-estimates.md). Every crawler of the catalog and
# every idle kind has its row (tests/test_catalog_tables.py); an unknown name gets UNKNOWN.


@dataclass(frozen=True)
class CrawlCost:
    """One crawl's native costs: what callgrind slows down, and what the plan adds waits to."""

    startup_s: float  # interpreter start and imports of one crawl
    cpu_per_page_s: float  # crawler CPU per page (user + sys)


# The models, the peers, and the crawler core alone replaying a crawl (catalog.CORE_REPLAY).
CRAWL_COSTS: dict[str, CrawlCost] = {
    catalog.THREADS.name: CrawlCost(startup_s=0.05, cpu_per_page_s=700e-6),
    catalog.CALLBACKS.name: CrawlCost(startup_s=0.15, cpu_per_page_s=450e-6),
    catalog.GENERATORS.name: CrawlCost(startup_s=0.15, cpu_per_page_s=550e-6),
    catalog.ASYNCIO.name: CrawlCost(startup_s=0.15, cpu_per_page_s=650e-6),
    catalog.ASYNCIO_UVLOOP.name: CrawlCost(startup_s=0.15, cpu_per_page_s=550e-6),
    catalog.ASYNCIO_RLOOP.name: CrawlCost(startup_s=0.2, cpu_per_page_s=550e-6),
    catalog.ASYNCIO_VELOXLOOP.name: CrawlCost(startup_s=0.2, cpu_per_page_s=550e-6),
    catalog.ASYNCIO_ZUVLOOP.name: CrawlCost(startup_s=0.2, cpu_per_page_s=550e-6),
    catalog.ASYNCIO_ZLOOP.name: CrawlCost(startup_s=0.2, cpu_per_page_s=550e-6),
    # the asyncio models' rows hold them: CI's quick run of 2026-11-29 gave medians of 408 and
    # 383 µs per page, against asyncio's 485 and asyncio-uvloop's 366
    catalog.ASYNCIO_THREADS.name: CrawlCost(startup_s=0.15, cpu_per_page_s=650e-6),
    catalog.ASYNCIO_THREADS_UVLOOP.name: CrawlCost(startup_s=0.15, cpu_per_page_s=550e-6),
    catalog.AIOHTTP.name: CrawlCost(startup_s=0.2, cpu_per_page_s=1300e-6),
    catalog.AIOHTTP_UVLOOP.name: CrawlCost(startup_s=0.2, cpu_per_page_s=1200e-6),
    # about twice aiohttp's at C 10 (one run each, deep site)
    catalog.HTTPX.name: CrawlCost(startup_s=0.2, cpu_per_page_s=2500e-6),
    catalog.GEVENT.name: CrawlCost(startup_s=0.1, cpu_per_page_s=900e-6),
    catalog.TRIO.name: CrawlCost(startup_s=0.15, cpu_per_page_s=750e-6),
    # Its subinterpreters start (their imports) in 0.15 s more than callbacks; on the pure
    # core, 1.5x the C core's CPU per page (measured on 3.14.7)
    catalog.INTERPRETERS.name: CrawlCost(startup_s=0.35, cpu_per_page_s=700e-6),
    # 6.5-9 ms of CPU per page on the quick sites, 74 ms on the docs preset
    catalog.SCRAPY.name: CrawlCost(startup_s=0.9, cpu_per_page_s=8000e-6),
    catalog.CORE_REPLAY: CrawlCost(startup_s=0.1, cpu_per_page_s=500e-6),
}
UNKNOWN = CrawlCost(startup_s=0.5, cpu_per_page_s=1e-3)  # a name the catalog does not know

# Starting, measuring and releasing one idle unit of each kind.
IDLE_START_S: dict[str, float] = {
    catalog.THREAD.name: 120e-6,
    catalog.THREAD_SMALL_STACK.name: 110e-6,
    catalog.ASYNCIO_TASK.name: 12e-6,
    catalog.UVLOOP_TASK.name: 10e-6,
    catalog.RLOOP_TASK.name: 10e-6,
    catalog.GENERATORS_TASK.name: 12e-6,
    catalog.GENERATOR.name: 3e-6,
    catalog.COROUTINE.name: 2e-6,
    catalog.GREENLET.name: 80e-6,  # a greenlet copies its ~8 KB slice of the C stack
    catalog.TRIO_TASK.name: 30e-6,
    catalog.SUBINTERPRETER.name: 80e-3,  # 25-60 ms to start on the dev VM, then its close
}

SWEEP_CPU_PER_PAGE_S = 500e-6  # sizes latency-sweep sites (one site serves every model)
CONNECT_S = 60e-6  # opening one connection during a ramp
SERVER_RATE = 8000.0  # pages/s one server worker gives while a crawler shares the machine
# Per thread of a model with a thread per worker (catalog.Model.thread_per_worker), started
# and torn down per crawl, and per thread of the idle scenario's ceiling: starting threads
# until the machine refuses one, then ending them all, took 29.5 s of wall time for 22,076
# threads on the dev VM (10.6 s to start them, the rest the kernel tearing them down: 41 s
# of system CPU), 40 s and more on a loaded one. The start time per thread alone
# underestimates it tenfold.
THREAD_CEILING_S_PER_THREAD = 1.4e-3
# A crawl under callgrind against the same crawl's native start-up and CPU: 20-30x for the
# models on the dev VM, imports included.
CALLGRIND_SLOWDOWN = 30.0
# A model's CPU per page on the pure core over its figure above, which is the C core's (the
# interpreters model's row is on the pure core already): the interpreters model's 700 µs
# over the callbacks model's 450 µs, rounded up.
PURE_CORE_CPU_FACTOR = 1.6
CPU_LOOP_S = 0.2  # one noise-floor run: interpreter start-up and the fixed loop
RUN_OVERHEAD_S = 0.1  # stats reset, stats and manifest comparison, writing results.json
IDLE_PROGRAM_S = 0.15  # one idle run's interpreter start-up and imports
SERVER_START_S = 1.5  # `c10k serve` start, its manifest download, and its stop


def native_costs(name: str) -> tuple[float, float]:
    """The start-up and CPU per page (seconds) of a crawler or the core replay; a name of the
    catalog must have its row (a KeyError otherwise)."""
    known = name in catalog.CRAWLERS or name == catalog.CORE_REPLAY
    cost = CRAWL_COSTS[name] if known else UNKNOWN
    return cost.startup_s, cost.cpu_per_page_s
