"""The generators model: the chapter's crawler on its own Future, Task, loop and Queue."""

from __future__ import annotations

import socket
import time
from typing import Any

from impls.core.frontier import Frontier, Job
from impls.core.http_base import READ_SIZE, retry_on_fresh_connection
from impls.core.outcomes import ErrorKind, FetchError, Response, classify_os_error
from impls.models.generators_loop import Coro, EventLoop, Future, Queue


def run(frontier: Frontier) -> None:
    loop = EventLoop()
    try:
        loop.run_until_complete(crawl(loop, frontier))
    finally:
        loop.close()


def crawl(loop: EventLoop, frontier: Frontier) -> Coro[None]:
    """Start N workers, wait until the queue is joined, then cancel them (as in the chapter)."""
    queue: Queue[Job] = Queue()
    for job in frontier.start():
        queue.put_nowait(job)
    main = loop.current_task
    assert main is not None

    def stop_on_failure(worker: Future[Any]) -> None:
        # A worker fails only on a limit of the machine (ResourceLimit): end the crawl with it.
        if not worker.cancelled() and (exc := worker.exception()) is not None:
            main.throw(exc)

    workers = [
        loop.create_task(work(loop, frontier, queue)) for _ in range(frontier.config.concurrency)
    ]
    for worker in workers:
        worker.add_done_callback(stop_on_failure)
    try:
        yield from queue.join()
    finally:
        for worker in workers:
            worker.cancel()


def work(loop: EventLoop, frontier: Frontier, queue: Queue[Job]) -> Coro[None]:
    conn = Connection(loop, frontier)
    try:
        while True:
            job = yield from queue.get()
            try:
                yield from crawl_one(loop, conn, queue, job)
            finally:
                queue.task_done()
    finally:  # cancelled when the crawl ends, or in the middle of a fetch
        conn.close()


def crawl_one(loop: EventLoop, conn: Connection, queue: Queue[Job], job: Job) -> Coro[None]:
    """Fetch a job within the timeout, record its outcome, queue the jobs it leads to."""
    frontier = conn.frontier
    task = loop.current_task
    assert task is not None
    timeout = frontier.config.timeout
    # The timer throws a timeout into this task wherever it waits inside fetch().
    timer = loop.call_later(
        timeout, task.throw, FetchError(ErrorKind.TIMEOUT, f"no response within {timeout} s")
    )
    started = time.perf_counter()
    try:
        response = yield from fetch(loop, conn, job)
    except FetchError as exc:
        new_jobs = frontier.on_error(job, exc.kind, time.perf_counter() - started)
    else:
        new_jobs = frontier.on_response(job, response, time.perf_counter() - started)
    finally:
        timer.cancel()
    for new_job in new_jobs:
        queue.put_nowait(new_job)


def fetch(loop: EventLoop, conn: Connection, job: Job) -> Coro[Response]:
    """One try of one URL: connect (unless a connection is kept), send, read the response."""
    config = conn.frontier.config
    new_parser = conn.frontier.response_parser
    while True:
        reused = conn.sock is not None
        connecting = not reused
        parser = new_parser(config.max_body, config.keep_alive)
        try:
            try:
                sock = conn.sock or conn.open()
                if connecting:
                    yield from loop.sock_connect(sock, conn.address)
                    connecting = False
                yield from loop.sock_sendall(sock, job.request)
                while True:
                    data = yield from loop.sock_recv(sock, READ_SIZE)
                    if (response := parser.feed(data)) is not None:
                        if not parser.reusable:
                            conn.close()
                        return response
            except OSError as exc:
                raise FetchError(classify_os_error(exc, connecting), str(exc)) from exc
        except FetchError as exc:  # the timeout too, thrown in at a yield
            conn.close()
            if not retry_on_fresh_connection(reused, parser.received, exc.kind):
                raise


class Connection:
    """A worker's non-blocking socket, none between fetches unless kept alive; closed through
    the loop that watches it, and counted in the frontier from open() to close()."""

    def __init__(self, loop: EventLoop, frontier: Frontier) -> None:
        self.loop = loop
        self.frontier = frontier
        self.address = (frontier.config.connect_host, frontier.origin.port)
        self.sock: socket.socket | None = None

    def open(self) -> socket.socket:
        """A new non-blocking socket, counted open from here; connect it next."""
        self.frontier.opened()
        host = self.address[0]
        try:
            sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        except OSError:  # out of descriptors raises ResourceLimit from classify_os_error
            self.frontier.closed()  # there is no socket to close
            raise
        sock.setblocking(False)
        self.sock = sock
        return sock

    def close(self) -> None:
        if self.sock is not None:
            self.loop.close_socket(self.sock)
            self.sock = None
            self.frontier.closed()
