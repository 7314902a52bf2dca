"""A blocking worker process's link to its coordinator (threads, gevent): a reader, a writer.

The reader (a thread, or a greenlet) feeds the coordinator's lines to the link's state,
which queues the forwarded URLs this process owns; the workers call `finished()` after
each job, which sends the outbox and, when no job is left, an Idle report. Every use of the
state, and every send, happens under one lock (the threads model's: the frontier's; the
gevent model's: a semaphore, as a send may yield), so the bytes leave in the order the
state produced them (a Forwarded before the Idle that follows it).
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Callable
from typing import Protocol, TypeVar

from impls.core.partition import CoordinatorLost, LineBuffer
from impls.core.worker_link import WorkerLink
from impls.models.blocking import Lock, Workers
from impls.sockets import READ_SIZE

# How often the waiting main thread (or greenlet) looks for a worker's failure.
FAILURE_POLL_S = 0.1


class Event(Protocol):
    """threading.Event's part the link uses (gevent.event.Event has it too)."""

    def set(self) -> None: ...

    def wait(self, timeout: float | None = None) -> bool: ...


class BlockingLink:
    """The link of one blocking crawl: its workers (`crew`), its socket, an event set
    when the coordinator says the crawl is over, and the lock around the state."""

    def __init__(self, crew: Workers, sock: socket.socket, over: Event, lock: Lock) -> None:
        self.crew = crew
        self.sock = sock
        self.over = over
        self.lock = lock
        self.state = WorkerLink(crew.frontier, crew.jobs.put, sock.sendall)
        crew.link = self

    def queue_root(self) -> None:
        with self.lock:
            self.state.start()

    def finished(self, new_jobs: int) -> None:
        with self.lock:
            self.state.finished(new_jobs)

    def read(self) -> None:
        """The reader: take the coordinator's lines until Done (or a failure, recorded)."""
        lines = LineBuffer()
        try:
            while not self.state.done:
                data = self.sock.recv(READ_SIZE)
                if not data:
                    raise CoordinatorLost("the coordinator closed this worker's socket")
                for line in lines.feed(data):
                    with self.lock:
                        self.state.take_line(line)
        except Exception as exc:  # the main thread raises it once the workers stop
            self.crew.failures.append(exc)
        finally:
            self.over.set()

    def wait(self) -> None:
        """Until the coordinator says the crawl is over, or a worker fails."""
        while not self.over.wait(FAILURE_POLL_S) and not self.crew.failures:
            pass


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
