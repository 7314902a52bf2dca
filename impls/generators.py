"""The generators model: the chapter's crawler on its own Future, Task, loop and Queue."""

from __future__ import annotations

import socket
import time
from typing import Any

from impls.core import ErrorKind, FetchError, Frontier, Job, ResponseParser, classify_os_error
from impls.core.outcomes import Response
from impls.generators_loop import Coro, EventLoop, Future, Queue
from impls.sockets import READ_SIZE, address_family


def fetch(loop: EventLoop, frontier: Frontier, job: Job) -> Coro[Response]:
    """One try of one URL: connect, send the request, read until the response is whole."""
    host, port = frontier.config.connect_host, frontier.origin.port
    try:
        sock = socket.socket(address_family(host), socket.SOCK_STREAM)
    except OSError as exc:  # out of descriptors raises ResourceLimit here
        raise FetchError(classify_os_error(exc, connecting=True), str(exc)) from exc
    sock.setblocking(False)
    frontier.opened()
    connecting = True
    try:
        yield from loop.sock_connect(sock, (host, port))
        connecting = False
        yield from loop.sock_sendall(sock, job.request)
        parser = ResponseParser(frontier.config.max_body)
        while True:
            data = yield from loop.sock_recv(sock, READ_SIZE)
            response = parser.feed(data) if data else parser.feed_eof()
            if response is not None:
                return response
    except OSError as exc:
        raise FetchError(classify_os_error(exc, connecting), str(exc)) from exc
    finally:  # also when a timeout or a cancellation is thrown in at a yield
        loop.close_socket(sock)
        frontier.closed()


def crawl_one(loop: EventLoop, frontier: Frontier, queue: Queue[Job], job: Job) -> Coro[None]:
    """Fetch a job within the timeout, record its outcome, queue the jobs it leads to."""
    task = loop.current_task
    assert task is not None
    timeout = frontier.config.timeout
    # The timer throws a timeout into this task wherever it waits inside fetch().
    timer = loop.call_later(
        timeout, task.throw, FetchError(ErrorKind.TIMEOUT, f"no response within {timeout} s")
    )
    started = time.perf_counter()
    try:
        response = yield from fetch(loop, frontier, job)
    except FetchError as exc:
        new_jobs = frontier.on_error(job, exc.kind, time.perf_counter() - started)
    else:
        new_jobs = frontier.on_response(job, response, time.perf_counter() - started)
    finally:
        timer.cancel()
    for new_job in new_jobs:
        queue.put_nowait(new_job)


def work(loop: EventLoop, frontier: Frontier, queue: Queue[Job]) -> Coro[None]:
    while True:
        job = yield from queue.get()
        try:
            yield from crawl_one(loop, frontier, queue, job)
        finally:
            queue.task_done()


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


def run(frontier: Frontier) -> None:
    loop = EventLoop()
    try:
        loop.run_until_complete(crawl(loop, frontier))
    finally:
        loop.close()
