"""How a profile's scenarios are built: crawl points, idle runs and scenarios from a few numbers."""

from __future__ import annotations

from collections.abc import Sequence

from bench.harness.costs import SWEEP_CPU_PER_PAGE_S
from bench.harness.points import CrawlPoint, IdleSpec, LatencyRule, Scenario
from bench.harness.site import ServeOptions
from c10k import catalog
from c10k.durations import Latency

# The realistic sites' latency: lognormal, median 50 ms, sigma 0.5.
REALISTIC_LATENCY = Latency("lognormal", 0.05, 0.5)


def sleepy_timeout_s(latency_s: float) -> float:
    """A sleepy point's --timeout: generous, as when the machine saturates, fetches wait long
    in queues (kernel and loop); a timeout would add retries and blur the throughput."""
    return max(30.0, 10 * latency_s)


def sleepy_points(
    concurrencies: Sequence[int],
    latency_s: float,
    waves: int,
    workers: int = 0,
    repetitions: int | None = None,
    cap: int | None = None,
    models: tuple[str, ...] | None = None,
    choice: LatencyRule | None = None,
    processes: int = 1,
) -> tuple[CrawlPoint, ...]:
    """A wide site of exactly waves*C pages per C, all in flight at once, `waves` times over,
    its root (the hub that lists them) answering at once; the other options are CrawlPoint's.
    With `processes` > 1, each point is crawled by that many processes, one per part of the
    site, against a server of as many workers (unless told) on as many loopback addresses:
    each process stays under its own open-file limit and each address under its own
    ephemeral ports. The latency must outlast the ramp (about 38 s to open 100,000
    connections on the 2-core dev VM)."""
    return tuple(
        CrawlPoint(
            sleepy_site(waves * c, latency_s, workers or processes, addresses=processes),
            concurrency=c,
            timeout_s=sleepy_timeout_s(latency_s),
            check_peak=True,
            repetitions=repetitions,
            cap=cap,
            models=models,
            processes=processes,
            choice=choice,
        )
        for c in concurrencies
    )


def sleepy_site(pages: int, latency_s: float, workers: int = 1, addresses: int = 1) -> ServeOptions:
    """A wide site after a root that answers at once, in a part per address (per process)."""
    return ServeOptions(
        pages=pages,
        links=0,
        shape="wide",
        latency=Latency("fixed", latency_s),
        workers=workers,
        addresses=addresses,
        root_latency=False,
        parts=addresses,
    )


def sweep_points(
    concurrency: int, latencies_s: Sequence[float], target_s: float
) -> tuple[CrawlPoint, ...]:
    """Fixed concurrency, latency varied; pages sized so each run lasts about target_s."""
    points = []
    for latency_s in latencies_s:
        by_cpu = int(target_s / SWEEP_CPU_PER_PAGE_S)
        by_wait = int(concurrency * target_s / latency_s) if latency_s > 0 else by_cpu
        pages = max(3 * concurrency, min(by_cpu, by_wait))
        points.append(
            CrawlPoint(
                ServeOptions(
                    pages=pages, links=0, shape="wide", latency=Latency("fixed", latency_s)
                ),
                concurrency=concurrency,
            )
        )
    return tuple(points)


def few_active_points(
    pages: int, concurrencies: Sequence[int], links: int = 10
) -> tuple[CrawlPoint, ...]:
    """A deep site of `links` links a page at each concurrency; with many links (the
    many-links scenario), the crawler's CPU per page (parsing, link extraction, the
    frontier) is several times the server's, so the crawler limits."""
    server = ServeOptions(pages=pages, links=links, shape="deep")
    return tuple(CrawlPoint(server, concurrency=c) for c in concurrencies)


def both_cores_points(
    pages: int, links: int, concurrencies: Sequence[int], workers: int = 2
) -> tuple[CrawlPoint, ...]:
    """The many-links site at each concurrency, crawled by each answer to "use `workers`
    cores" on the pure core, each on its build (`answers`), and by `--processes` on the C
    core beside them, for what the C-accelerated core buys."""
    server = ServeOptions(pages=pages, links=links, shape="deep", parts=workers)
    pure, c_core, gil_only, free_only = catalog.CORE_PURE, catalog.CORE_C, False, True
    # (model, its build, its core, --processes, --interpreters): subinterpreters and
    # --processes on a GIL build, threads and a loop per thread (CPython's advice) on a
    # free-threaded one.
    answers = (
        (catalog.INTERPRETERS.name, gil_only, pure, 1, workers),
        (catalog.THREADS.name, free_only, pure, 1, 0),
        (catalog.ASYNCIO_THREADS.name, free_only, pure, 1, 0),
        (catalog.ASYNCIO_THREADS_UVLOOP.name, free_only, pure, 1, 0),
        (catalog.CALLBACKS.name, gil_only, pure, workers, 0),
        (catalog.ASYNCIO.name, gil_only, pure, workers, 0),
        (catalog.CALLBACKS.name, gil_only, c_core, workers, 0),
    )
    return tuple(
        CrawlPoint(
            server,
            concurrency=c,
            models=(model,),
            core=core,
            processes=processes,
            interpreters=interpreters,
            free_threaded=free_threaded,
        )
        for c in concurrencies
        for model, free_threaded, core, processes, interpreters in answers
    )


def idle_specs(
    thread_count: int,
    unit_count: int,
    tracemalloc_threads: int,
    tracemalloc_units: int,
    thread_cap: int,
    other_loop_units: int | None = None,
    machine_ceiling: bool = False,
) -> tuple[IdleSpec, ...]:
    """The idle runs; C4 is settled by asyncio tasks, bare coroutines and generators at
    unit_count, and `other_loop_units` (default unit_count) sizes the other loops' tasks and
    the greenlets, whose 1,000,000 cost half a minute each (a greenlet: over a minute and
    8 GB) and add no claim: they join it from 100,000 units. With machine_ceiling, threads
    are also started in several processes at once, up to the machine's ceiling (C5's)."""
    thread_kinds = [k.name for k in catalog.IDLE_KINDS.values() if k.thread]
    coroutine_kinds = catalog.COROUTINE_KINDS
    settled = (catalog.ASYNCIO_TASK.name, catalog.GENERATOR.name, catalog.COROUTINE.name)
    specs = [IdleSpec(kind, thread_count) for kind in thread_kinds]
    specs += [
        IdleSpec(kind, unit_count if kind in settled else other_loop_units or unit_count)
        for kind in coroutine_kinds
    ]
    # Whole interpreters: a count of their own, and no tracemalloc run (it sees one only).
    specs += [
        IdleSpec(k.name, INTERPRETERS_PARKED) for k in catalog.IDLE_KINDS.values() if k.interpreter
    ]
    specs += [IdleSpec(kind, tracemalloc_threads, "tracemalloc", steps=1) for kind in thread_kinds]
    specs += [IdleSpec(kind, tracemalloc_units, "tracemalloc", steps=1) for kind in coroutine_kinds]
    # The threads' ceiling in one process; with machine_ceiling, C5 on the machine too:
    # threads started by several processes at once, past one process's vm.max_map_count, up
    # to the machine's kernel.pid_max.
    ceilings = (1, MACHINE_THREAD_PROCESSES) if machine_ceiling else (1,)
    specs += [
        IdleSpec(
            catalog.THREAD.name, thread_cap, "until-failure", steps=1, cap=thread_cap, processes=n
        )
        for n in ceilings
    ]
    return tuple(specs)


# Idle subinterpreters per run, whatever the profile: about 4.5 MB and 25-60 ms each on the
# 2-core dev VM (CPython 3.14.7), and 20 give a steady slope.
INTERPRETERS_PARKED = 20

# Processes that start threads at once for the machine's thread ceiling: each stops near
# 22,000 (vm.max_map_count), so two reach pid_max's 32,768; four share the load evenly.
MACHINE_THREAD_PROCESSES = 4

REALISTIC_FAULTS = "reset=0.01,hang=0.005,500=0.01,truncate=0.005,garbage=0.005"


def realistic_point(pages: int, concurrency: int, timeout_s: float = 1.0) -> CrawlPoint:
    return CrawlPoint(
        ServeOptions(
            pages=pages,
            links=10,
            shape="deep",
            latency=REALISTIC_LATENCY,
            bandwidth="256KiB",
            faults=REALISTIC_FAULTS,
        ),
        concurrency=concurrency,
        timeout_s=timeout_s,  # hangs cost timeout * tries at the end of the crawl: keep small
        max_tries=2,
    )


def docs_point(pages: int, links: int, concurrency: int) -> CrawlPoint:
    """A documentation site (`c10k serve --preset docs`: 50-200 KB pages, hundreds of links
    a page, every href form of the wild) with a realistic latency: the core's cost shows."""
    return CrawlPoint(
        ServeOptions(
            pages=pages,
            links=links,
            shape="docs",
            seed=0,
            latency=REALISTIC_LATENCY,
            preset="docs",
        ),
        concurrency=concurrency,
    )


def fitted(
    about: catalog.Scenario,
    points: tuple[CrawlPoint, ...],
    repetitions: int = 1,
    steady_heap: bool = False,
) -> Scenario:
    """A scenario whose memory per connection is fitted from C 1,000 up, when its points
    reach C 3,000 (below that, over every point)."""
    reach = max((p.concurrency for p in points), default=0)
    return Scenario(
        about,
        points=points,
        repetitions=repetitions,
        fit_min_concurrency=1000 if reach >= 3000 else 0,
        steady_heap=steady_heap,
    )


def scenarios(
    *,
    loops: int,
    idle: tuple[IdleSpec, ...],
    few_active: tuple[CrawlPoint, ...],
    few_reps: int,
    few_warmups: int,
    sleepy: tuple[CrawlPoint, ...],
    sleepy_keep_alive: tuple[CrawlPoint, ...],
    sweep: tuple[CrawlPoint, ...],
    realistic: tuple[CrawlPoint, ...],
    repetitions: int,
    instructions: tuple[CrawlPoint, ...] = (),
    c100k: tuple[CrawlPoint, ...] = (),
    few_cap: int | None = None,
    few_keep_alive_reps: int | None = None,
) -> tuple[Scenario, ...]:
    """A profile's scenarios in the order they run: both few-active modes at the same points,
    and `repetitions` for the sleepy, sweep and realistic scenarios."""
    return (
        # First, before anything has warmed the machine: the floor under every CV.
        Scenario(catalog.NOISE_FLOOR, loops=loops),
        Scenario(catalog.IDLE, idle=idle),
        Scenario(
            catalog.FEW_ACTIVE,
            points=few_active,
            repetitions=few_reps,
            warmups=few_warmups,
            cap=few_cap,
        ),
        # Both modes at the same points, each with its warm-up: the few-active site's server
        # is shared, so the close mode's warm-up has already built its pages.
        Scenario(
            catalog.FEW_ACTIVE_KEEP_ALIVE,
            points=few_active,
            repetitions=few_keep_alive_reps or few_reps,
            warmups=few_warmups,
        ),
        fitted(catalog.SLEEPY, sleepy, repetitions, steady_heap=True),
        fitted(catalog.SLEEPY_KEEP_ALIVE, sleepy_keep_alive, repetitions),
        Scenario(catalog.LATENCY_SWEEP, points=sweep, repetitions=repetitions),
        Scenario(catalog.REALISTIC, points=realistic, repetitions=repetitions),
        # Under the sleepy scenario's heap conditions, which its workers inherit: memory per
        # connection in one process and across several is then compared like for like.
        fitted(catalog.C100K, c100k, steady_heap=True),
        # Once per model: a count under callgrind does not vary from run to run.
        Scenario(catalog.INSTRUCTIONS, points=instructions, counted=True),
    )
