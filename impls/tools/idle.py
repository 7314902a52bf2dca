"""`--kind K --count N`: park N idle units of one kind, print their cost as JSON."""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable, Coroutine, Generator
from typing import Any

from c10k import catalog, probes
from c10k.fits import linear_fit
from c10k.system import LoopFactory, loop_factory, rloop_loop_factory
from impls.subinterpreters import Interpreter, new_interpreter
from impls.tools.thread_ceiling import threads_on_the_machine, threads_until_failure

PROG = f"python -m {__spec__.name}"  # this program, as `python -m` runs it
SCHEMA = "c10k-idle/1"
SMALL_STACK = 64 * 1024  # threading.stack_size refuses less than 32 KiB on Linux


class Unavailable(Exception):
    """The kind cannot be measured here (a missing module or model)."""


def rss_kib() -> int:
    return probes.proc_status_kib("self") or 0


def snapshot(n: int, started: float) -> dict[str, Any]:
    """One measured point: units parked so far, RSS, kernel memory, time spent starting."""
    elapsed = time.perf_counter() - started
    traced = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else None
    return {
        "n": n,
        "rss_kib": rss_kib(),
        "meminfo_kib": probes.meminfo(),
        "elapsed_s": elapsed,
        "traced_bytes": traced,
    }


def step_counts(count: int, steps: int) -> list[int]:
    """How many units to add at each step so the totals are count*i/steps."""
    totals = [count * i // steps for i in range(1, steps + 1)]
    return [b - a for a, b in zip([0, *totals], totals, strict=False)]


# -- threads ------------------------------------------------------------------------------


def park_threads(count: int, steps: int, stack_size: int) -> list[dict[str, Any]]:
    release = threading.Event()
    threads: list[threading.Thread] = []
    if stack_size:
        threading.stack_size(stack_size)
    started = time.perf_counter()
    points = [snapshot(0, started)]
    try:
        for batch in step_counts(count, steps):
            for _ in range(batch):
                thread = threading.Thread(target=release.wait, daemon=True)
                thread.start()
                threads.append(thread)
            points.append(snapshot(len(threads), started))
    finally:
        release.set()
        for thread in threads:
            thread.join()
    return points


# -- coroutines ---------------------------------------------------------------------------


class Waiter:
    """The chapter's Future, cut down: a result, callbacks, and `yield self` until resolved."""

    __slots__ = ("callbacks", "result")

    def __init__(self) -> None:
        self.result: object = None
        self.callbacks: list[Callable[[Waiter], None]] = []

    def __iter__(self) -> Generator[Waiter, None, None]:
        yield self

    __await__ = __iter__


def parked_generator(waiter: Waiter) -> Generator[Waiter, None, None]:
    yield from waiter


async def parked_coroutine(waiter: Waiter) -> None:
    await waiter


def park_suspended(
    count: int,
    steps: int,
    make: Callable[[], Generator[Any, None, None] | Coroutine[Any, Any, None]],
) -> list[dict[str, Any]]:
    """Generators or bare coroutines, each started and suspended on its own Waiter."""
    units: list[Any] = []
    started = time.perf_counter()
    points = [snapshot(0, started)]
    for batch in step_counts(count, steps):
        for _ in range(batch):
            unit = make()
            unit.send(None)
            units.append(unit)
        points.append(snapshot(len(units), started))
    for unit in units:
        unit.close()
    return points


async def _parked_task(event: asyncio.Event) -> None:
    await event.wait()


def park_tasks(count: int, steps: int, loop_factory: LoopFactory | None) -> list[dict[str, Any]]:
    """asyncio Tasks, each blocked on one shared asyncio.Event (a Future per waiter)."""

    async def main() -> list[dict[str, Any]]:
        event = asyncio.Event()
        tasks: list[asyncio.Task[None]] = []
        started = time.perf_counter()
        points = [snapshot(0, started)]
        for batch in step_counts(count, steps):
            tasks += [asyncio.create_task(_parked_task(event)) for _ in range(batch)]
            await asyncio.sleep(0)  # one loop pass runs every new task up to its await
            points.append(snapshot(len(tasks), started))
        event.set()
        await asyncio.gather(*tasks)
        return points

    with asyncio.Runner(loop_factory=loop_factory) as runner:
        return runner.run(main())


def park_generators_model(count: int, steps: int) -> list[dict[str, Any]]:
    """Tasks of the generators model's own loop (impls.models.generators_loop), each on a Future."""
    try:  # a subprocess of its own: importing the model's loop here isolates nothing we measure
        from impls.models.generators_loop import EventLoop, Future, Task
    except ImportError as exc:
        raise Unavailable(f"impls.models.generators_loop is not importable: {exc}") from None

    def parked(future: Future[None]) -> Generator[Future[Any], None, None]:
        yield from future

    loop = EventLoop()
    futures: list[Future[None]] = []
    tasks: list[Task[None]] = []
    started = time.perf_counter()
    points = [snapshot(0, started)]
    for batch in step_counts(count, steps):
        for _ in range(batch):
            future: Future[None] = Future()
            futures.append(future)
            tasks.append(Task(parked(future), loop))
        loop.run_once()  # one turn runs every new task up to its `yield from future`
        points.append(snapshot(len(tasks), started))
    for future in futures:
        future.set_result(None)
    while loop.ready:
        loop.run_once()
    loop.close()
    return points


def park_greenlets(count: int, steps: int) -> list[dict[str, Any]]:
    """gevent greenlets, each blocked on one shared gevent.event.Event (the gevent model's
    unit of waiting: a greenlet parked in the hub)."""
    try:
        import gevent
        import gevent.event
    except ImportError:
        raise Unavailable("gevent is not installed") from None
    event = gevent.event.Event()
    greenlets: list[gevent.Greenlet] = []
    started = time.perf_counter()
    points = [snapshot(0, started)]
    for batch in step_counts(count, steps):
        greenlets += [gevent.spawn(event.wait) for _ in range(batch)]
        gevent.sleep(0)  # one hub pass runs every new greenlet up to its wait
        points.append(snapshot(len(greenlets), started))
    event.set()
    gevent.joinall(greenlets)
    return points


def park_trio_tasks(count: int, steps: int) -> list[dict[str, Any]]:
    """trio tasks in one nursery, each blocked on one shared trio.Event."""
    try:  # not imported at the top: the other kinds' processes should not carry trio
        import trio
        import trio.testing
    except ImportError:
        raise Unavailable("trio is not installed") from None

    async def parked(event: trio.Event) -> None:
        await event.wait()

    async def main() -> list[dict[str, Any]]:
        event = trio.Event()
        parked_so_far = 0
        started = time.perf_counter()
        points = [snapshot(0, started)]
        async with trio.open_nursery() as nursery:
            for batch in step_counts(count, steps):
                for _ in range(batch):
                    nursery.start_soon(parked, event)
                parked_so_far += batch
                # trio runs a batch of tasks in random order: wait until every new task has
                # reached its await, not merely for one pass of the loop.
                await trio.testing.wait_all_tasks_blocked()
                points.append(snapshot(parked_so_far, started))
            event.set()
        return points

    return trio.run(main)


# -- subinterpreters ----------------------------------------------------------------------


def park_subinterpreters(count: int, steps: int) -> list[dict[str, Any]]:
    """Subinterpreters parked as the interpreters model runs each one, in a thread of its
    own: each says it is ready on one pipe, then blocks reading another until its write end
    closes. A point is read once every unit of its batch has said so."""
    ready_read, ready_write = os.pipe()
    release_read, release_write = os.pipe()
    wait = f"import os; os.write({ready_write}, b'.'); os.read({release_read}, 1)"
    parked: list[tuple[Interpreter, threading.Thread]] = []
    started = time.perf_counter()
    points = [snapshot(0, started)]
    try:
        for batch in step_counts(count, steps):
            for _ in range(batch):
                interpreter = new_interpreter()
                thread = threading.Thread(target=interpreter.exec, args=(wait,), daemon=True)
                thread.start()
                parked.append((interpreter, thread))
            for _ in range(batch):
                os.read(ready_read, 1)
            points.append(snapshot(len(parked), started))
    finally:
        os.close(release_write)  # every read now returns b"": each unit ends
        for interpreter, thread in parked:
            thread.join()
            interpreter.close()
        for fd in (ready_read, ready_write, release_read):
            os.close(fd)
    return points


# The catalog's entry points (c10k/catalog.py), each park_*(count, steps).
park_default_stack_threads = functools.partial(park_threads, stack_size=0)
park_small_stack_threads = functools.partial(park_threads, stack_size=SMALL_STACK)
park_asyncio_tasks = functools.partial(park_tasks, loop_factory=None)
park_generators = functools.partial(park_suspended, make=lambda: parked_generator(Waiter()))
park_coroutines = functools.partial(park_suspended, make=lambda: parked_coroutine(Waiter()))


def park_tasks_on(
    loop: str, loop_factory: Callable[[], LoopFactory], count: int, steps: int
) -> list[dict[str, Any]]:
    """park_tasks() on another event loop, unavailable where it is not installed."""
    try:
        factory = loop_factory()
    except ImportError:
        raise Unavailable(f"{loop} is not installed") from None
    return park_tasks(count, steps, factory)


park_uvloop_tasks = functools.partial(park_tasks_on, "uvloop", lambda: loop_factory("uvloop"))
park_rloop_tasks = functools.partial(park_tasks_on, "rloop", rloop_loop_factory)


def park(kind: str, count: int, steps: int) -> list[dict[str, Any]]:
    """Park `count` units of the catalog's idle kind, measuring at `steps` counts."""
    entry = catalog.IDLE_KINDS[kind]
    if why := entry.unavailable():
        raise Unavailable(why)
    return entry.load()(count, steps)


# -- the program --------------------------------------------------------------------------


def per_unit(points: list[dict[str, Any]]) -> dict[str, Any]:
    """Least-squares cost per unit: RSS, kernel memory (bytes) and start time (µs)."""
    ns = [float(p["n"]) for p in points]
    figures: dict[str, Any] = {}
    rss = linear_fit(ns, [p["rss_kib"] * 1024.0 for p in points])
    figures["rss_bytes"] = rss.slope
    figures["rss_r2"] = rss.r2
    for name in probes.KERNEL_GROWTH_FIELDS:
        values = [float(p["meminfo_kib"].get(name, 0)) * 1024 for p in points]
        figures[f"{name}_bytes"] = linear_fit(ns, values).slope
    figures["start_us"] = linear_fit(ns, [p["elapsed_s"] * 1e6 for p in points]).slope
    if points[-1]["traced_bytes"] is not None:
        traced = [float(p["traced_bytes"]) for p in points]
        figures["tracemalloc_bytes"] = linear_fit(ns, traced).slope
    return figures


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__)
    p.add_argument("--kind", required=True, choices=list(catalog.IDLE_KINDS))
    p.add_argument("--count", type=int, required=True, help="units to park (or the cap)")
    p.add_argument("--steps", type=int, default=5, help="measure RSS at this many counts")
    p.add_argument("--tracemalloc", action="store_true", help="trace Python allocations")
    p.add_argument("--until-failure", action="store_true", help="threads: start until one fails")
    p.add_argument("--cap", type=int, default=30_000, help="until-failure: most threads started")
    p.add_argument(
        "--memory-guard-mib",
        type=int,
        default=0,
        help="stop when MemAvailable falls below this (default: 10%% of MemTotal)",
    )
    p.add_argument(
        "--processes",
        type=int,
        default=1,
        help="until-failure: start threads in this many processes at once, each holding "
        "them until all have stopped: the machine's ceiling, not one process's (default 1)",
    )
    p.add_argument(
        "--pid-reserve",
        type=int,
        default=2048,
        help="PIDs left free for the rest of the machine (default 2048)",
    )
    return p


def run(args: argparse.Namespace) -> dict[str, Any]:
    mode = "until-failure" if args.until_failure else "tracemalloc" if args.tracemalloc else "slope"
    result: dict[str, Any] = {
        "schema": SCHEMA,
        "kind": args.kind,
        "mode": mode,
        "count": args.count,
        "steps": args.steps,
        "python": sys.version.split()[0],
        "available": True,
        "note": None,
    }
    try:
        if args.until_failure:
            if not catalog.IDLE_KINDS[args.kind].thread:
                raise ValueError("--until-failure is for thread kinds only")
            total = probes.meminfo(("MemTotal",)).get("MemTotal", 0)
            guard = args.memory_guard_mib * 1024 or total // 10
            stack = SMALL_STACK if args.kind == catalog.THREAD_SMALL_STACK.name else 0
            if args.processes > 1:
                result["processes"] = args.processes
                result["failure"] = threads_on_the_machine(
                    args.processes, args.cap, stack, guard, args.pid_reserve
                )
            else:
                result["failure"] = threads_until_failure(args.cap, stack, guard, args.pid_reserve)
            return result
        if args.tracemalloc:
            tracemalloc.start()
        points = park(args.kind, args.count, args.steps)
        tracemalloc.stop()
    except Unavailable as exc:
        result["available"] = False
        result["note"] = str(exc)
        return result
    result["points"] = points
    result["per_unit"] = per_unit(points)
    return result


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.count < 0 or args.steps < 1 or args.processes < 1:
        parser().exit(2, f"{PROG}: error: --count >= 0, --steps >= 1 and --processes >= 1\n")
    if args.processes > 1 and not args.until_failure:
        parser().exit(2, f"{PROG}: error: --processes is for --until-failure\n")
    print(json.dumps(run(args)))
    return 0


if __name__ == "__main__":
    # The catalog finds each kind's function by importing this module by its name: let that be
    # this module, not a second copy (whose Unavailable this program's `except` would miss,
    # and whose code would sit in the memory being measured).
    sys.modules.setdefault(__spec__.name, sys.modules[__name__])
    sys.exit(main())
