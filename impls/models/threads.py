"""The threads model: blocking sockets, N worker threads, queue.Queue with task_done/join."""

from __future__ import annotations

import queue
import socket
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

from impls.core.frontier import Frontier, Job
from impls.core.http_base import READ_SIZE, retry_on_fresh_connection
from impls.core.outcomes import ErrorKind, FetchError, ResourceLimit, Response, classify_os_error

Lock = AbstractContextManager[Any]  # threading.Lock, or nullcontext() where nothing preempts
# create_connection's shape: (address, timeout) -> a connected socket with that timeout.
Connect = Callable[[tuple[str, int], float], socket.socket]


def run(frontier: Frontier) -> None:
    jobs: queue.Queue[Job | None] = queue.Queue()
    for job in frontier.start():
        jobs.put(job)
    # Two locks: the frontier, shared by every worker, and its connection count.
    crew = Workers(frontier, jobs, threading.Lock(), threading.Lock(), socket.create_connection)
    workers = start_threads(crew)
    jobs.join()  # every job done (after a failure, the rest drained)
    crew.stop(len(workers))
    for thread in workers:
        thread.join()
    crew.raise_failure()


def start_threads(crew: Workers) -> list[threading.Thread]:
    """One thread per unit of concurrency; fewer if the machine refuses one (then the
    failure is recorded and the crawl drains), none only by raising."""
    config = crew.frontier.config
    if config.stack_size:
        threading.stack_size(config.stack_size)
    workers: list[threading.Thread] = []
    try:
        for _ in range(config.concurrency):
            thread = threading.Thread(target=crew.work, daemon=True)
            thread.start()
            workers.append(thread)
    except RuntimeError as exc:  # "can't start new thread": a limit of the machine
        crew.failures.append(ResourceLimit(f"started {len(workers)} threads, then: {exc}"))
        if not workers:
            raise crew.failures[0] from exc
    return workers


@dataclass
class Workers:
    """What the workers of one crawl share: the frontier under its lock, the queue (None
    stops a worker) and the first failure, after which the queue drains. The gevent model
    runs this code on greenlets, with its own queue, locks and connect."""

    frontier: Frontier
    jobs: JobQueue
    lock: Lock  # the frontier's, held while it takes a result
    counting: Lock  # its connection count, apart: held only for an increment
    connect: Connect
    failures: list[BaseException] = field(default_factory=list)

    def work(self) -> None:
        """A worker: take a job, fetch it, queue what the frontier says; until it takes None.
        Its connection outlives a fetch in keep-alive mode, closed at the end."""
        conn = Connection(self.frontier, self.counting, self.connect)
        jobs = self.jobs
        try:
            while (job := jobs.get()) is not None:
                try:
                    if not self.failures:  # after a failure, drain the queue so join() returns
                        self.crawl_one(job, conn)
                except BaseException as exc:
                    self.failures.append(exc)
                finally:
                    jobs.task_done()
            jobs.task_done()
        finally:
            conn.close()

    def crawl_one(self, job: Job, conn: Connection) -> None:
        """Fetch a job, record its outcome, queue the jobs it leads to."""
        frontier = self.frontier
        started = time.perf_counter()
        try:
            response = fetch(job, frontier, conn)
        except FetchError as exc:
            with self.lock:
                new_jobs = frontier.on_error(job, exc.kind, time.perf_counter() - started)
        else:
            elapsed = time.perf_counter() - started
            # The page is parsed before the lock is taken: without a GIL, threads parse in
            # parallel, and the lock guards only the crawl's shared state.
            urls = frontier.offered_urls(job, response)
            with self.lock:
                new_jobs = frontier.on_response(job, response, elapsed, urls)
        for new_job in new_jobs:
            self.jobs.put(new_job)

    def stop(self, workers: int) -> None:
        """Once the crawl is over: one None per worker."""
        for _ in range(workers):
            self.jobs.put(None)

    def raise_failure(self) -> None:
        if self.failures:
            raise self.failures[0]


def fetch(job: Job, frontier: Frontier, conn: Connection) -> Response:
    """One try of one URL, all of it within the config's timeout (a stale retry included);
    each call blocks its thread (or greenlet) until the socket is ready."""
    config = frontier.config
    new_parser = frontier.response_parser
    deadline = time.monotonic() + config.timeout
    while True:
        reused = conn.sock is not None
        parser = new_parser(config.max_body, config.keep_alive)
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
                    if (response := parser.feed(sock.recv(READ_SIZE))) is not None:
                        if not parser.reusable:
                            conn.close()
                        return response
            except OSError as exc:
                raise FetchError(classify_os_error(exc, connecting), str(exc)) from exc
        except FetchError as exc:
            conn.close()
            if not retry_on_fresh_connection(reused, parser.received, exc.kind):
                raise


def time_left(deadline: float, timeout: float) -> float:
    remaining = deadline - time.monotonic()
    if remaining <= 0:  # a trickle of bytes must not stretch the fetch
        raise FetchError(ErrorKind.TIMEOUT, f"no response within {timeout} s")
    return remaining


class Connection:
    """A worker's blocking socket, none between fetches unless kept alive; the frontier's
    connection count (opened just before connect, closed just after) under the model's lock."""

    def __init__(self, frontier: Frontier, counting: Lock, connect: Connect) -> None:
        self.frontier = frontier
        self.address = (frontier.config.connect_host, frontier.origin.port)
        self.sock: socket.socket | None = None
        self.counting = counting
        self.connect = connect

    def open(self, timeout: float) -> socket.socket:
        with self.counting:
            self.frontier.opened()
        try:
            self.sock = self.connect(self.address, timeout)
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


class JobQueue(Protocol):
    """queue.Queue's part the workers use (gevent's JoinableQueue has it too)."""

    def get(self) -> Job | None: ...

    def put(self, item: Job | None) -> None: ...

    def task_done(self) -> None: ...

    def join(self) -> None: ...
