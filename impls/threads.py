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
from impls.sockets import READ_SIZE, HeldConnection


class Connection(HeldConnection):
    """A worker's blocking socket; the frontier's connection count under its own lock."""

    def __init__(self, frontier: Frontier, counting: threading.Lock) -> None:
        super().__init__(frontier)
        self.counting = counting

    def open(self, timeout: float) -> socket.socket:
        with self.counting:
            self.frontier.opened()
        try:
            self.sock = socket.create_connection(self.address, timeout=timeout)
        except OSError:
            with self.counting:
                self.frontier.closed()  # the connect failed: there is nothing to close
            raise
        return self.sock

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None
            with self.counting:
                self.frontier.closed()


def time_left(deadline: float, timeout: float) -> float:
    remaining = deadline - time.monotonic()
    if remaining <= 0:  # a trickle of bytes must not stretch the fetch
        raise FetchError(ErrorKind.TIMEOUT, f"no response within {timeout} s")
    return remaining


def fetch(job: Job, frontier: Frontier, conn: Connection) -> Response:
    """One try of one URL, all of it within the config's timeout (a stale retry included)."""
    config = frontier.config
    deadline = time.monotonic() + config.timeout
    while True:
        reused = conn.sock is not None
        parser = ResponseParser(config.max_body, config.keep_alive)
        connecting = not reused
        try:
            try:
                sock = conn.sock or conn.open(time_left(deadline, config.timeout))
                connecting = False
                # A reused socket still has its last fetch's timeout: the request is far
                # smaller than the socket's buffer, so sendall does not wait on it.
                sock.sendall(job.request)
                while True:
                    sock.settimeout(time_left(deadline, config.timeout))
                    data = sock.recv(READ_SIZE)
                    response = parser.feed(data) if data else parser.feed_eof()
                    if response is not None:
                        conn.finish(parser)
                        return response
            except OSError as exc:
                raise FetchError(classify_os_error(exc, connecting), str(exc)) from exc
        except FetchError as exc:
            if not conn.fail(reused, parser, exc.kind):
                raise


def run(frontier: Frontier) -> None:
    config = frontier.config
    lock = threading.Lock()  # the frontier is shared by every worker
    counting = threading.Lock()  # its connection count, apart: held only for an increment
    jobs: queue.Queue[Job | None] = queue.Queue()
    failures: list[BaseException] = []

    def worker() -> None:
        conn = Connection(frontier, counting)
        try:
            while (job := jobs.get()) is not None:
                try:
                    if not failures:  # after a failure, drain the queue so join() returns
                        crawl_one(job, conn)
                except BaseException as exc:
                    failures.append(exc)
                finally:
                    jobs.task_done()
            jobs.task_done()
        finally:
            conn.close()

    def crawl_one(job: Job, conn: Connection) -> None:
        started = time.perf_counter()
        try:
            response = fetch(job, frontier, conn)
        except FetchError as exc:
            with lock:
                new_jobs = frontier.on_error(job, exc.kind, time.perf_counter() - started)
        else:
            with lock:
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
