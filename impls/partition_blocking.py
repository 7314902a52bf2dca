"""A blocking worker process's link to its coordinator (threads, gevent): a reader, a writer.

The reader (a thread, or a greenlet) takes the coordinator's messages and queues the
forwarded URLs this process owns; the workers call `finished()` after each job, which
sends the outbox and, when no job is left, an Idle report. Every use of the link's state,
and every send, happens under one lock (the threads model's: the frontier's; the gevent
model's: a semaphore, as a send may yield), so the bytes leave in the order the state
produced them (a Forwarded before the Idle that follows it).
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Callable
from typing import Protocol, TypeVar

from impls.blocking import Lock, Workers
from impls.core.partition import CoordinatorLost, LineBuffer, WorkerLink, decode
from impls.sockets import READ_SIZE

# How often the waiting main thread (or greenlet) looks for a worker's failure.
FAILURE_POLL_S = 0.1


class Event(Protocol):
    """threading.Event's part the link uses (gevent.event.Event has it too)."""

    def set(self) -> None: ...

    def wait(self, timeout: float | None = None) -> bool: ...


class BlockingLink:
    """The link of one blocking crawl: its workers (`crew`), its socket and an event set
    when the coordinator says the crawl is over."""

    def __init__(self, crew: Workers, sock: socket.socket, over: Event, lock: Lock) -> None:
        partition = crew.frontier.partition
        assert partition is not None, "a link needs a partitioned frontier"
        self.crew = crew
        self.sock = sock
        self.over = over
        self.lock = lock
        self.state = WorkerLink(partition)
        crew.link = self

    def queue_root(self) -> None:
        """The crawl's first job, if this process owns the root; an Idle report if not."""
        crew = self.crew
        with self.lock:
            jobs = crew.frontier.start()
            self.state.queued(len(jobs))
            self._send()
        for job in jobs:
            crew.jobs.put(job)

    def finished(self, new_jobs: int) -> None:
        """A worker ended a job that queued new_jobs: send what is due."""
        with self.lock:
            self.state.finished(new_jobs)
            self._send()

    def read(self) -> None:
        """The reader: queue the URLs forwarded here, until Done (or a failure, recorded)."""
        crew = self.crew
        lines = LineBuffer()
        try:
            while not self.state.done:
                data = self.sock.recv(READ_SIZE)
                if not data:
                    raise CoordinatorLost("the coordinator closed this worker's socket")
                for line in lines.feed(data):
                    with self.lock:
                        jobs = [
                            job
                            for url, budget in self.state.take(decode(line))
                            if (job := crew.frontier.receive(url, budget)) is not None
                        ]
                        self.state.queued(len(jobs))
                        self._send()
                    for job in jobs:
                        crew.jobs.put(job)
        except Exception as exc:  # the main thread raises it once the workers stop
            crew.failures.append(exc)
        finally:
            self.over.set()

    def wait(self) -> None:
        """Until the coordinator says the crawl is over, or a worker fails."""
        while not self.over.wait(FAILURE_POLL_S) and not self.crew.failures:
            pass

    def _send(self) -> None:
        if data := self.state.outgoing():
            self.sock.sendall(data)


Unit = TypeVar("Unit")  # a worker: a thread, a greenlet


def crawl_partitioned(
    link: BlockingLink,
    spawn_reader: Callable[[Callable[[], None]], object],
    start_workers: Callable[[], list[Unit]],
) -> list[Unit]:
    """A blocking crawl as one process of many: the root (if owned), the reader, the
    workers, until the coordinator says Done (or a worker fails); then one None per worker.
    The workers, for the caller to join."""
    link.queue_root()
    spawn_reader(link.read)
    workers = start_workers()
    link.wait()
    link.crew.stop(len(workers))
    with contextlib.suppress(OSError):  # ends the reader, should it still wait
        link.sock.shutdown(socket.SHUT_RDWR)
    return workers
