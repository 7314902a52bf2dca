"""The generators model's link: a reader and a writer task, or a null link alone."""

from __future__ import annotations

import socket
from collections.abc import Generator, Iterable
from typing import Any, Protocol, TypeVar

from impls.core import Frontier, Job
from impls.core.partition import CoordinatorLost, LineBuffer
from impls.core.worker_link import WorkerLink
from impls.sockets import READ_SIZE

T = TypeVar("T")
Coro = Generator[Any, Any, T]  # a coroutine of the chapter's kind, driven by `yield from`


class Loop(Protocol):
    """The generators model's event loop (impls/models/generators_loop.py), as links use it."""

    def create_task(self, coro: Coro[None]) -> Iterable[Any]: ...

    def sock_recv(self, sock: socket.socket, size: int) -> Coro[bytes]: ...

    def sock_sendall(self, sock: socket.socket, data: bytes) -> Coro[None]: ...

    def close_socket(self, sock: socket.socket) -> None: ...


class Queue(Protocol):
    """The model's job queue, as links use it."""

    def put_nowait(self, item: Job) -> None: ...

    def join(self) -> Coro[None]: ...


class Link(Protocol):
    """What the generators crawl asks of its link, alone or as one process of many."""

    def start(self) -> None:
        """Queue the root's job, if this process owns the root."""

    def finished(self, new_jobs: int) -> None:
        """A worker's job ended, having queued new_jobs."""

    def serve(self) -> Coro[None]:
        """Return when the crawl is over."""


class OneProcess:
    """The null link of a crawl that is the only process: the queue's join ends it."""

    def __init__(self, frontier: Frontier, queue: Queue) -> None:
        self.frontier = frontier
        self.queue = queue

    def start(self) -> None:
        for job in self.frontier.start():
            self.queue.put_nowait(job)

    def finished(self, new_jobs: int) -> None:
        """No coordinator to tell."""

    def serve(self) -> Coro[None]:
        yield from self.queue.join()


class ToCoordinator:
    """One process of many: `serve()` reads the coordinator's lines into the link's state.

    The state queues the forwarded URLs this process owns, and serve() returns when the
    coordinator says the crawl is over. After each job, `finished()` hands the outbox and,
    when no job is left, an Idle report to a writer task, which sends them in order. The
    chapter's loop waits for one event per socket, so the writer has a socket of its own: a
    duplicate of the reader's descriptor.
    """

    def __init__(self, loop: Loop, frontier: Frontier, queue: Queue) -> None:
        assert frontier.partition is not None, "a link needs a partitioned frontier"
        self.loop = loop
        self.reader = socket.socket(fileno=frontier.partition.channel_fd)
        self.writer = self.reader.dup()
        for sock in (self.reader, self.writer):
            sock.setblocking(False)
        self.unsent = bytearray()
        self.writing: Iterable[Any] | None = None  # the writer task, while bytes wait
        self.state = WorkerLink(frontier, queue.put_nowait, self.write)

    def start(self) -> None:
        self.state.start()

    def finished(self, new_jobs: int) -> None:
        self.state.finished(new_jobs)

    def serve(self) -> Coro[None]:
        try:
            lines = LineBuffer()
            while not self.state.done:
                data = yield from self.loop.sock_recv(self.reader, READ_SIZE)
                if not data:
                    raise CoordinatorLost("the coordinator closed this worker's socket")
                for line in lines.feed(data):
                    self.state.take_line(line)
            while self.writing is not None:  # nothing is sent after Done, but finish what is
                yield from self.writing
        finally:
            for sock in (self.reader, self.writer):
                self.loop.close_socket(sock)

    def write(self, data: bytes) -> None:
        self.unsent += data
        if self.writing is None:
            self.writing = self.loop.create_task(self.send_unsent())

    def send_unsent(self) -> Coro[None]:
        try:
            while self.unsent:
                data, self.unsent = bytes(self.unsent), bytearray()
                yield from self.loop.sock_sendall(self.writer, data)
        finally:
            self.writing = None


def link_for(loop: Loop, frontier: Frontier, queue: Queue) -> Link:
    """The crawl's link: a null one alone, else one to the coordinator."""
    if frontier.partition is None:
        return OneProcess(frontier, queue)
    return ToCoordinator(loop, frontier, queue)
