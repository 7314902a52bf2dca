"""The asyncio-threads model: an event loop per thread, each with its share of the workers."""

# CPython's advice for asyncio on the free-threaded build: one event loop per thread. The
# loops share the frontier under one lock (held only to record a result) and its connection
# count under another, as the threads model's threads do. A future belongs to its loop, so
# the one queue (Jobs) hands a job, or the end of the crawl, to another loop through its
# call_soon_threadsafe.

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from typing import TypeVar

from c10k.system import LoopFactory, loop_factory, usable_cores
from impls.core.frontier import Fetch, Frontier, Job, shares
from impls.core.outcomes import FetchError, first_failure
from impls.models import asyncio_streams

Loop = asyncio.AbstractEventLoop
T = TypeVar("T")


def run(frontier: Frontier) -> None:
    crawl_in_threads(frontier)  # asyncio's own selector loop in each thread


def run_uvloop(frontier: Frontier) -> None:
    crawl_in_threads(frontier, loop_factory("uvloop"))


def crawl_in_threads(frontier: Frontier, loop_factory: LoopFactory | None = None) -> None:
    """A thread per CPU this process may run on (at most one per worker), each running an
    event loop of its own with its share of the C workers, until every job is done in every
    loop; the first failure is raised once every loop has ended."""
    crawl = Loops(frontier, Jobs(frontier.start()))
    concurrency = frontier.config.concurrency
    threads = [
        threading.Thread(target=crawl.run_loop, args=(workers, loop_factory), daemon=True)
        for workers in shares(concurrency, min(concurrency, usable_cores()))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if crawl.jobs.failure is not None:
        raise crawl.jobs.failure


class Loops:
    """What the loops of one crawl share: the frontier under its lock, its connection count
    under another (as in the threads model), and the jobs."""

    def __init__(self, frontier: Frontier, jobs: Jobs) -> None:
        self.frontier = frontier
        self.jobs = jobs
        self.lock = threading.Lock()  # the frontier's, held while it takes a result
        self.counted = CountedFrontier(frontier)  # what a fetch uses of it

    def run_loop(self, workers: int, loop_factory: LoopFactory | None) -> None:
        """A thread: its own event loop, its workers on it until the crawl is over."""
        try:
            asyncio_streams.run_on(self.crawl_loop(workers), loop_factory)
        except BaseException as exc:  # the loop did not start
            self.jobs.fail(exc)

    async def crawl_loop(self, workers: int) -> None:
        """This loop's workers on raw streams. A failure ends the crawl while this loop still
        runs (no job is handed to a closed loop), to be raised by the crawl's thread."""
        try:
            await asyncio_streams.on_streams(
                self.counted, asyncio_streams.open_stream, lambda fetch: self.crawl(workers, fetch)
            )
        except BaseException as exc:
            self.jobs.fail(first_failure(exc))

    async def crawl(self, workers: int, fetch: Fetch) -> None:
        """The asyncio model's crawl() on this loop's share of the workers and the one queue,
        until every job is done in every loop; a worker that raises ends it everywhere."""
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(self.work(fetch)) for _ in range(workers)]
            await self.jobs.join()
            for task in tasks:
                task.cancel()

    async def work(self, fetch: Fetch) -> None:
        """A worker: take a job, fetch it, record it, queue what the frontier says; until
        cancelled. The page is parsed before the lock is taken: without a GIL, in parallel."""
        frontier, jobs, lock = self.frontier, self.jobs, self.lock
        while True:
            job = await jobs.get()
            started = time.perf_counter()
            try:
                response = await fetch(job)
            except FetchError as exc:
                with lock:
                    new_jobs = frontier.on_error(job, exc.kind, time.perf_counter() - started)
            else:
                elapsed = time.perf_counter() - started
                urls = frontier.offered_urls(job, response)
                with lock:
                    new_jobs = frontier.on_response(job, response, elapsed, urls)
            jobs.put(new_jobs)
            jobs.task_done()


class CountedFrontier:
    """The frontier as a fetch uses it (asyncio_streams.Counted), its connection count under
    a lock of its own."""

    def __init__(self, frontier: Frontier) -> None:
        self.frontier = frontier
        self.config = frontier.config
        self.origin = frontier.origin
        self.response_parser = frontier.response_parser
        self.counting = threading.Lock()

    def opened(self) -> None:
        with self.counting:
            self.frontier.opened()

    def closed(self) -> None:
        with self.counting:
            self.frontier.closed()


class Jobs:
    """queue.Queue's put, get, task_done and join for workers on several event loops.

    A job goes to the worker that has waited longest, in whichever loop, through a future of
    that loop; the end, to every loop. The crawl is over when no job is left undone, or at
    the first failure (`failure`): then nothing more is queued or handed.
    """

    def __init__(self, jobs: list[Job]) -> None:
        self.lock = threading.Lock()
        self.queued = deque(jobs)
        self.unfinished = len(jobs)
        self.waiting: deque[tuple[Loop, asyncio.Future[Job]]] = deque()
        self.joining: list[tuple[Loop, asyncio.Future[None]]] = []
        self.over = not jobs
        self.failure: BaseException | None = None

    def put(self, jobs: list[Job]) -> None:
        with self.lock:
            if self.over:  # after a failure: the crawl is ending
                return
            self.unfinished += len(jobs)
            for job in jobs:
                if self.waiting:
                    loop, taker = self.waiting.popleft()
                    loop.call_soon_threadsafe(resolve, taker, job)
                else:
                    self.queued.append(job)

    async def get(self) -> Job:
        with self.lock:
            if self.queued:
                return self.queued.popleft()
            loop = asyncio.get_running_loop()
            taker: asyncio.Future[Job] = loop.create_future()
            self.waiting.append((loop, taker))
        return await taker

    def task_done(self) -> None:
        with self.lock:
            self.unfinished -= 1
            if self.unfinished == 0:
                self._end()

    async def join(self) -> None:
        """Until the crawl is over: every job done, in every loop (or a failure)."""
        with self.lock:
            if self.over:
                return
            loop = asyncio.get_running_loop()
            ended: asyncio.Future[None] = loop.create_future()
            self.joining.append((loop, ended))
        await ended

    def fail(self, exc: BaseException) -> None:
        """End the crawl with exc, unless it has failed already."""
        with self.lock:
            if self.failure is None:
                self.failure = exc
            self._end()

    def _end(self) -> None:
        """Under the lock: over. Each loop, told, cancels its workers."""
        self.over = True
        self.queued.clear()
        self.waiting.clear()
        for loop, ended in self.joining:
            loop.call_soon_threadsafe(resolve, ended, None)
        self.joining.clear()


def resolve(future: asyncio.Future[T], result: T) -> None:
    """In the future's loop: its result, unless it was cancelled (its worker's loop is ending)."""
    if not future.done():
        future.set_result(result)
