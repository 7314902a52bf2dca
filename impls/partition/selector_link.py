"""The callbacks model's link: one more socket in the crawl's selector, or a null link alone."""

from __future__ import annotations

import contextlib
import selectors
import socket
from collections.abc import Callable
from typing import Protocol

from impls.core import Frontier, Job
from impls.core.partition import CoordinatorLost, LineBuffer
from impls.core.worker_link import WorkerLink
from impls.sockets import READ_SIZE


class Link(Protocol):
    """What the callbacks crawl asks of its link, alone or as one process of many."""

    def start(self) -> None:
        """Hand the crawler the root's job, if this process owns the root."""

    def finished(self, new_jobs: int) -> None:
        """A job ended, having handed the crawler new_jobs."""

    @property
    def done(self) -> bool:
        """No job can come from elsewhere any more: the crawl ends once none is in flight."""


class OneProcess:
    """The null link of a crawl that is the only process: no job comes from elsewhere."""

    done = True

    def __init__(self, frontier: Frontier, put: Callable[[Job], None]) -> None:
        self.frontier = frontier
        self.put = put

    def start(self) -> None:
        for job in self.frontier.start():
            self.put(job)

    def finished(self, new_jobs: int) -> None:
        """No coordinator to tell."""


class ToCoordinator:
    """One process of many: the coordinator's socket, watched by the crawl's selector.

    Its callback feeds the coordinator's lines to the link's state, which hands the crawler
    the jobs of the URLs forwarded here; after each job, `finished()` writes the outbox and,
    when no job is left, an Idle report. Bytes that do not fit the socket's buffer wait, in
    order, for it to be writable. One thread runs it all: no lock.
    """

    def __init__(
        self, frontier: Frontier, selector: selectors.BaseSelector, put: Callable[[Job], None]
    ) -> None:
        assert frontier.partition is not None, "a link needs a partitioned frontier"
        self.selector = selector
        self.lines = LineBuffer()
        self.unsent = bytearray()
        self.sock = socket.socket(fileno=frontier.partition.channel_fd)
        self.sock.setblocking(False)
        # The crawler closes every registered socket at its end, this one too.
        selector.register(self.sock, selectors.EVENT_READ, self.ready)
        self.state = WorkerLink(frontier, put, self.write)

    def start(self) -> None:
        self.state.start()

    def finished(self, new_jobs: int) -> None:
        self.state.finished(new_jobs)

    @property
    def done(self) -> bool:
        return self.state.done

    def ready(self) -> None:
        """The selector's callback: the socket can be read, or written, or both."""
        self.send_unsent()
        try:
            data = self.sock.recv(READ_SIZE)
        except BlockingIOError:
            return  # only writable
        if not data:
            raise CoordinatorLost("the coordinator closed this worker's socket")
        for line in self.lines.feed(data):
            self.state.take_line(line)

    def write(self, data: bytes) -> None:
        self.unsent += data
        self.send_unsent()

    def send_unsent(self) -> None:
        if not self.unsent:
            return
        with contextlib.suppress(BlockingIOError):  # full: the selector says when it is not
            del self.unsent[: self.sock.send(self.unsent)]
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if self.unsent else 0)
        self.selector.modify(self.sock, events, self.ready)


def link_for(
    frontier: Frontier, selector: selectors.BaseSelector, put: Callable[[Job], None]
) -> Link:
    """The crawl's link: a null one alone, else one to the coordinator, in the selector."""
    if frontier.partition is None:
        return OneProcess(frontier, put)
    return ToCoordinator(frontier, selector, put)
