"""The trio model: a nursery of N workers, a memory channel for the queue, trio sockets."""

from __future__ import annotations

import math

import trio

from impls.core.frontier import Fetch, Frontier, Job, fetch_and_record
from impls.core.http_base import READ_SIZE, retry_on_fresh_connection
from impls.core.outcomes import ErrorKind, FetchError, Response, classify_os_error, first_failure

Socket = trio.socket.SocketType


def run(frontier: Frontier) -> None:
    try:
        trio.run(crawl, frontier)
    except BaseExceptionGroup as group:
        raise first_failure(group) from group


async def crawl(frontier: Frontier) -> None:
    """N workers in a nursery on one channel, opened with the root's job; the kept
    connections are closed last. A worker ends early only by raising (ResourceLimit or a
    bug): the nursery then cancels the others and raises it, in an exception group."""
    jobs = JobChannel(frontier.start())
    idle: list[Socket] = []
    try:
        async with trio.open_nursery() as nursery:
            for _ in range(frontier.config.concurrency):
                nursery.start_soon(work, frontier, jobs, lambda job: fetch(job, frontier, idle))
    finally:
        for sock in idle:
            release(sock, frontier)


async def work(frontier: Frontier, jobs: JobChannel, fetch: Fetch) -> None:
    """A worker: take a job, fetch it, queue what the frontier says; until the channel closes."""
    async for job in jobs.receive:
        for new_job in await fetch_and_record(frontier, job, fetch):
            jobs.put(new_job)
        jobs.done()


async def fetch(job: Job, frontier: Frontier, idle: list[Socket]) -> Response:
    """One try of one URL within the config's timeout, on a kept-alive connection or a new one
    (`idle`: those kept between fetches, at most one per worker)."""
    config = frontier.config
    new_parser = frontier.response_parser
    # The whole fetch, connect to last byte, a stale connection's resend included.
    deadline = trio.current_time() + config.timeout
    sock = idle.pop() if idle else None
    while True:
        reused = sock is not None
        parser = new_parser(config.max_body, config.keep_alive)
        try:
            with trio.fail_at(deadline):
                if sock is None:
                    sock = await connect(frontier)
                await send_all(sock, job.request)
                while (response := parser.feed(await sock.recv(READ_SIZE))) is None:
                    pass
        except trio.TooSlowError:
            failure = FetchError(ErrorKind.TIMEOUT, f"no response within {config.timeout} s")
        except OSError as exc:  # EMFILE raises ResourceLimit from classify_os_error
            failure = FetchError(classify_os_error(exc, connecting=sock is None), str(exc))
        except FetchError as exc:
            failure = exc
        except BaseException:  # cancelled: another worker failed and the crawl is ending
            release(sock, frontier)
            raise
        else:
            if parser.reusable:
                idle.append(sock)
            else:
                release(sock, frontier)
            return response
        release(sock, frontier)  # None: the connect failed, and counted itself closed
        sock = None
        if not retry_on_fresh_connection(reused, parser.received, failure.kind):
            raise failure


async def connect(frontier: Frontier) -> Socket:
    """A trio socket connected to the origin's address (an IP literal: no resolver thread),
    counted open just before; a connect that fails, socket() included, counts itself closed."""
    host = frontier.config.connect_host
    frontier.opened()
    sock: Socket | None = None
    try:
        sock = trio.socket.socket(trio.socket.AF_INET6 if ":" in host else trio.socket.AF_INET)
        await sock.connect((host, frontier.origin.port))
    except BaseException:  # EMFILE too, which fetch() turns into a ResourceLimit
        if sock is not None:
            sock.close()
        frontier.closed()
        raise
    return sock


async def send_all(sock: Socket, data: bytes) -> None:
    """A trio socket has no sendall(): send until every byte is gone (one send, nearly always)."""
    view = memoryview(data)
    while view:
        view = view[await sock.send(view) :]


def release(sock: Socket | None, frontier: Frontier) -> None:
    """Close a connection and count it closed (None: no connection, nothing to do)."""
    if sock is not None:
        sock.close()
        frontier.closed()


class JobChannel:
    """The queue: a memory channel, and a count of the jobs queued or being fetched. When
    none is left, the send side closes, and every worker's `async for` with it (trio's
    answer to the chapter's `queue.join()`)."""

    def __init__(self, jobs: list[Job]) -> None:
        self.send, self.receive = trio.open_memory_channel[Job](math.inf)
        self.pending = 0
        for job in jobs:
            self.put(job)
        if not self.pending:
            self.send.close()

    def put(self, job: Job) -> None:
        self.send.send_nowait(job)
        self.pending += 1

    def done(self) -> None:
        self.pending -= 1
        if not self.pending:
            self.send.close()
