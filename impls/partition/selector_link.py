"""The callbacks model's link to its coordinator: one more socket in the crawl's selector.

Its callback feeds the coordinator's lines to the link's state, which hands the crawler
the jobs of the URLs forwarded here; the crawler calls `state.finished()` after each job,
which writes the outbox and, when no job is left, an Idle report. Bytes that do not fit the
socket's buffer wait, in order, for it to be writable. One thread runs it all: no lock.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
from collections.abc import Callable

from impls.core import Frontier, Job
from impls.core.partition import CoordinatorLost, LineBuffer
from impls.core.worker_link import WorkerLink
from impls.sockets import READ_SIZE


class SelectorLink:
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
