"""The asyncio model: async/await, asyncio.Queue, N worker tasks, raw streams, the shared parser."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from c10k.system import LoopFactory, uvloop_loop_factory
from impls.core import ErrorKind, FetchError, Frontier, Job, ResponseParser, classify_os_error
from impls.core.outcomes import Response
from impls.sockets import READ_SIZE

Fetch = Callable[[Job], Awaitable[Response]]  # one try of one job; raises FetchError


async def fetch(job: Job, frontier: Frontier) -> Response:
    """One try of one URL on its own connection, all of it within the config's timeout."""
    config = frontier.config
    parser = ResponseParser(config.max_body)
    writer: asyncio.StreamWriter | None = None
    try:
        async with asyncio.timeout(config.timeout):  # connect to last byte, trickles included
            reader, writer = await asyncio.open_connection(
                config.connect_host, frontier.origin.port, limit=READ_SIZE
            )
            writer.write(job.request)  # small enough for the socket buffer: no drain needed
            while True:
                data = await reader.read(READ_SIZE)
                response = parser.feed(data) if data else parser.feed_eof()
                if response is not None:
                    return response
    except TimeoutError as exc:  # before OSError: TimeoutError is one
        raise FetchError(ErrorKind.TIMEOUT, f"no response within {config.timeout} s") from exc
    except OSError as exc:  # EMFILE raises ResourceLimit from classify_os_error
        raise FetchError(classify_os_error(exc, connecting=writer is None), str(exc)) from exc
    finally:
        if writer is not None:
            writer.close()  # the transport closes its socket on the next loop iteration


async def work(frontier: Frontier, queue: asyncio.Queue[Job], fetch: Fetch) -> None:
    """A worker: take a job, fetch it, queue what the frontier says; forever, until cancelled."""
    while True:
        job = await queue.get()
        frontier.opened()
        started = time.perf_counter()
        try:
            response = await fetch(job)
        except FetchError as exc:
            new_jobs = frontier.on_error(job, exc.kind, time.perf_counter() - started)
        else:
            new_jobs = frontier.on_response(job, response, time.perf_counter() - started)
        finally:
            frontier.closed()
        for new_job in new_jobs:
            queue.put_nowait(new_job)
        queue.task_done()


async def crawl(frontier: Frontier, fetch: Fetch) -> None:
    """The chapter's crawl(): N workers on one queue, until the queue is joined."""
    queue: asyncio.Queue[Job] = asyncio.Queue()
    for job in frontier.start():
        queue.put_nowait(job)
    workers = [
        asyncio.create_task(work(frontier, queue, fetch))
        for _ in range(frontier.config.concurrency)
    ]
    # The chapter awaits queue.join(); a worker only ever ends by raising (ResourceLimit or a
    # bug), and then join() would wait forever, so wait for whichever comes first.
    joined = asyncio.create_task(queue.join())
    try:
        await asyncio.wait([joined, *workers], return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in [joined, *workers]:
            task.cancel()
        await asyncio.gather(joined, *workers, return_exceptions=True)
    for worker in workers:
        if not worker.cancelled() and worker.exception() is not None:
            worker.result()  # re-raise the first failure


def run_on(main: Coroutine[Any, Any, None], loop_factory: LoopFactory | None = None) -> None:
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        runner.run(main)


def run(frontier: Frontier) -> None:
    run_on(crawl(frontier, lambda job: fetch(job, frontier)))  # asyncio's own selector loop


def run_uvloop(frontier: Frontier) -> None:
    run_on(crawl(frontier, lambda job: fetch(job, frontier)), uvloop_loop_factory())
