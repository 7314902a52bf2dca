"""The asyncio model: the chapter's crawler on async/await, asyncio.Queue and raw streams."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol

from c10k.system import LoopFactory, loop_factory
from impls.core.frontier import CrawlConfig, Fetch, Frontier, Job, fetch_and_record
from impls.core.http_base import READ_SIZE, ResponseParserBase, retry_on_fresh_connection
from impls.core.outcomes import (
    ErrorKind,
    FetchError,
    ResourceLimit,
    Response,
    classify_os_error,
    first_failure,
)
from impls.core.urls import Origin


def run(frontier: Frontier) -> None:
    run_on(crawl_streams(frontier, open_stream))  # asyncio's own selector loop


def run_streams_on(loop: str, frontier: Frontier) -> None:
    """The model on another event loop: the module `loop`'s new_event_loop."""
    run_on(crawl_streams(frontier, open_stream), loop_factory(loop))


# The catalog's entries for the model on the loops of the league that take asyncio's streams.
run_uvloop = functools.partial(run_streams_on, "uvloop")
run_veloxloop = functools.partial(run_streams_on, "veloxloop")
run_zuvloop = functools.partial(run_streams_on, "zuvloop")
run_zloop = functools.partial(run_streams_on, "zloop")


async def crawl(frontier: Frontier, fetch: Fetch) -> None:
    """The chapter's crawl(): N workers on one queue, cancelled once the queue is joined.

    In a task group: a worker ends early only by raising (ResourceLimit or a bug), which
    cancels the join and the other workers, and leaves in an exception group."""
    queue: asyncio.Queue[Job] = asyncio.Queue()
    for job in frontier.start():
        queue.put_nowait(job)
    async with asyncio.TaskGroup() as group:
        workers = [
            group.create_task(work(frontier, queue, fetch))
            for _ in range(frontier.config.concurrency)
        ]
        await queue.join()
        for worker in workers:
            worker.cancel()


async def work(frontier: Frontier, queue: asyncio.Queue[Job], fetch: Fetch) -> None:
    """A worker: take a job, fetch it, queue what the frontier says; forever, until cancelled."""
    while True:
        job = await queue.get()
        for new_job in await fetch_and_record(frontier, job, fetch):
            queue.put_nowait(new_job)
        queue.task_done()


async def fetch(job: Job, frontier: Counted, idle: list[Stream], connect: Connect) -> Response:
    """One try of one URL within the config's timeout, on a kept-alive connection or a new one.

    `idle` holds the connections kept alive between fetches, at most one per worker: a fetch
    takes one (or connects) and puts it back when the response allows."""
    config = frontier.config
    new_parser = frontier.response_parser
    # The whole fetch, connect to last byte, a stale connection's resend included.
    deadline = asyncio.get_running_loop().time() + config.timeout
    stream = idle.pop() if idle else None
    while True:
        reused = stream is not None
        parser = new_parser(config.max_body, config.keep_alive)
        try:
            async with asyncio.timeout_at(deadline):
                if stream is None:
                    frontier.opened()
                    stream = await connect(config.connect_host, frontier.origin.port)
                reader, writer = stream
                writer.write(job.request)  # smaller than the socket buffer: no drain needed
                while (response := parser.feed(await reader.read(READ_SIZE))) is None:
                    pass
        except TimeoutError:  # before OSError: TimeoutError is one
            failure = FetchError(ErrorKind.TIMEOUT, f"no response within {config.timeout} s")
        except OSError as exc:
            try:
                failure = FetchError(classify_os_error(exc, connecting=stream is None), str(exc))
            except ResourceLimit:  # EMFILE: the crawl ends, with this connection counted closed
                release(stream, frontier)
                raise
        except FetchError as exc:
            failure = exc
        except BaseException:  # cancelled: the crawl is ending
            release(stream, frontier)
            raise
        else:
            if parser.reusable:
                idle.append(stream)
            else:
                release(stream, frontier)
            return response
        release(stream, frontier)  # with None, the connect failed: nothing else is open
        stream = None
        if not retry_on_fresh_connection(reused, parser.received, failure.kind):
            raise failure


class Reader(Protocol):
    """An asyncio.StreamReader, or the like."""

    async def read(self, n: int) -> bytes: ...


class Writer(Protocol):
    """An asyncio.StreamWriter, or the like."""

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class Counted(Protocol):
    """What a fetch uses of the frontier (in the asyncio-threads model, counted under a lock)."""

    @property
    def config(self) -> CrawlConfig: ...

    @property
    def origin(self) -> Origin: ...

    @property
    def response_parser(self) -> type[ResponseParserBase]: ...

    def opened(self) -> None: ...

    def closed(self) -> None: ...


Stream = tuple[Reader, Writer]
Connect = Callable[[str, int], Awaitable[Stream]]  # (host, port) -> a connected stream


async def open_stream(host: str, port: int) -> Stream:
    """A connection as asyncio's streams: the model's own way to connect."""
    return await asyncio.open_connection(host, port, limit=READ_SIZE)


def release(stream: Stream | None, frontier: Counted) -> None:
    """Close a connection (None: its connect failed); either way it is counted closed."""
    if stream is not None:
        stream[1].close()  # the transport closes its socket on the next loop iteration
    frontier.closed()


async def crawl_streams(frontier: Frontier, connect: Connect) -> None:
    """crawl() with raw streams, which count their own connections."""
    await on_streams(frontier, connect, lambda fetch: crawl(frontier, fetch))


async def on_streams(
    frontier: Counted, connect: Connect, crawl: Callable[[Fetch], Awaitable[None]]
) -> None:
    """crawl(fetch), its fetch() on raw streams; the connections kept alive end last."""
    idle: list[Stream] = []
    try:
        await crawl(lambda job: fetch(job, frontier, idle, connect))
    finally:
        for stream in idle:
            release(stream, frontier)


def run_on(main: Coroutine[Any, Any, None], loop_factory: LoopFactory | None = None) -> None:
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        try:
            runner.run(main)
        except BaseExceptionGroup as group:  # a worker's failure, as the CLI expects it
            raise first_failure(group) from group
