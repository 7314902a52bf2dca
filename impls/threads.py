"""The threads model: blocking sockets, N worker threads, queue.Queue with task_done/join."""

from __future__ import annotations

import queue
import socket
import threading
import time

from impls.core import (
    ErrorKind,
    FetchError,
    Frontier,
    Job,
    ResourceLimit,
    ResponseParser,
    classify_os_error,
)
from impls.core.outcomes import Response
from impls.sockets import READ_SIZE


def fetch(job: Job, frontier: Frontier) -> Response:
    """One try of one URL on a blocking socket, all of it within the config's timeout."""
    config = frontier.config
    deadline = time.monotonic() + config.timeout
    parser = ResponseParser(config.max_body)
    connecting = True
    try:
        with socket.create_connection(
            (config.connect_host, frontier.origin.port), timeout=config.timeout
        ) as sock:
            connecting = False
            sock.sendall(job.request)
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:  # a trickle of bytes must not stretch the fetch
                    raise FetchError(ErrorKind.TIMEOUT, f"no response within {config.timeout} s")
                sock.settimeout(remaining)
                data = sock.recv(READ_SIZE)
                response = parser.feed(data) if data else parser.feed_eof()
                if response is not None:
                    return response
    except OSError as exc:
        raise FetchError(classify_os_error(exc, connecting), str(exc)) from exc


def run(frontier: Frontier) -> None:
    config = frontier.config
    lock = threading.Lock()  # the frontier is shared by every worker
    jobs: queue.Queue[Job | None] = queue.Queue()
    failures: list[BaseException] = []

    def worker() -> None:
        while (job := jobs.get()) is not None:
            try:
                if not failures:  # after a failure, drain the queue so join() returns
                    crawl_one(job)
            except BaseException as exc:
                failures.append(exc)
            finally:
                jobs.task_done()
        jobs.task_done()

    def crawl_one(job: Job) -> None:
        with lock:
            frontier.opened()
        started = time.perf_counter()
        try:
            response = fetch(job, frontier)
        except FetchError as exc:
            with lock:
                frontier.closed()
                new_jobs = frontier.on_error(job, exc.kind, time.perf_counter() - started)
        else:
            with lock:
                frontier.closed()
                new_jobs = frontier.on_response(job, response, time.perf_counter() - started)
        for new_job in new_jobs:
            jobs.put(new_job)

    for job in frontier.start():
        jobs.put(job)
    if config.stack_size:
        threading.stack_size(config.stack_size)
    workers = []
    try:
        for _ in range(config.concurrency):
            thread = threading.Thread(target=worker, daemon=True)
            thread.start()
            workers.append(thread)
    except RuntimeError as exc:  # "can't start new thread": a limit of the machine
        failures.append(ResourceLimit(f"started {len(workers)} threads, then: {exc}"))
        if not workers:
            raise failures[0] from exc
    jobs.join()
    for _ in workers:
        jobs.put(None)
    for thread in workers:
        thread.join()
    if failures:
        raise failures[0]
