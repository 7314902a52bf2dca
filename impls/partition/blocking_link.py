"""A blocking crawl's link (threads, gevent): to the coordinator, or a null one when alone."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from impls.core import Frontier, Job
from impls.core.partition import CoordinatorLost, LineBuffer
from impls.core.worker_link import WorkerLink
from impls.sockets import READ_SIZE

# How often the waiting main thread (or greenlet) looks for a worker's failure.
FAILURE_POLL_S = 0.1


class Link(Protocol):
    """What a blocking crawl asks of its link, alone or as one process of many."""

    def start(self) -> None:
        """Queue the root's job, if this process owns the root."""

    def finished(self, new_jobs: int) -> None:
        """A worker's job ended, having queued new_jobs."""

    def wait(self) -> None:
        """Until the crawl is over (or a worker failed): then stop the workers."""


class Jobs(Protocol):
    """The crawl's queue, as the link uses it (queue.Queue, gevent's JoinableQueue)."""

    def put(self, item: Job) -> None: ...

    def join(self) -> None: ...


class Crew(Protocol):
    """The workers of one blocking crawl, as the link sees them."""

    @property
    def frontier(self) -> Frontier: ...

    @property
    def jobs(self) -> Jobs: ...

    @property
    def failures(self) -> list[BaseException]: ...


class Event(Protocol):
    """threading.Event's part the link uses (gevent.event.Event has it too)."""

    def set(self) -> None: ...

    def wait(self, timeout: float | None = None) -> bool: ...


@dataclass(frozen=True)
class Runtime:
    """What a blocking style runs the link with: OS threads', or gevent's."""

    socket: Callable[..., socket.socket]  # a socket class, opened with fileno=
    event: Callable[[], Event]  # an event the reader sets when the coordinator says Done
    spawn: Callable[[Callable[[], None]], object]  # runs the reader beside the workers


class OneProcess:
    """The null link of a crawl that is the only process: the queue's join ends it."""

    def __init__(self, crew: Crew) -> None:
        self.crew = crew

    def start(self) -> None:
        for job in self.crew.frontier.start():
            self.crew.jobs.put(job)

    def finished(self, new_jobs: int) -> None:
        """No coordinator to tell."""

    def wait(self) -> None:
        self.crew.jobs.join()


class ToCoordinator:
    """One process of many: a reader feeds the coordinator's lines to the link's state.

    The state queues the forwarded URLs this process owns; after each job, `finished()`
    sends the outbox and, when no job is left, an Idle report. Every use of the state, and
    every send, happens under one lock (the threads model's: the frontier's; the gevent
    model's: a semaphore, as a send may yield), so the bytes leave in the order the state
    produced them (a Forwarded before the Idle that follows it).
    """

    def __init__(
        self, crew: Crew, sock: socket.socket, lock: AbstractContextManager[Any], runtime: Runtime
    ) -> None:
        self.crew = crew
        self.sock = sock
        self.lock = lock
        self.spawn = runtime.spawn
        self.over = runtime.event()  # set when the coordinator says the crawl is over
        self.state = WorkerLink(crew.frontier, crew.jobs.put, sock.sendall)

    def start(self) -> None:
        with self.lock:
            self.state.start()
        self.spawn(self.read)

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
        while not self.over.wait(FAILURE_POLL_S) and not self.crew.failures:
            pass


@contextlib.contextmanager
def link_for(crew: Crew, lock: AbstractContextManager[Any], runtime: Runtime) -> Iterator[Link]:
    """The crawl's link: a null one alone, else one to the coordinator (`lock` guards its
    state), whose socket is shut down at the end (which ends the reader, should it wait)."""
    partition = crew.frontier.partition
    if partition is None:
        yield OneProcess(crew)
        return
    with runtime.socket(fileno=partition.channel_fd) as sock:
        try:
            yield ToCoordinator(crew, sock, lock, runtime)
        finally:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
