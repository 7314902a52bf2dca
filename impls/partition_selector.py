"""The callbacks model's link to its coordinator: one more socket in the crawl's selector.

Its callback reads the coordinator's messages and hands the crawler the jobs of the URLs
forwarded here; the crawler calls `finished()` after each job, which writes the outbox
and, when no job is left, an Idle report. Writes that do not fit the socket's buffer wait
for it to be writable, in order. One thread runs it all: no lock.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
from collections.abc import Callable

from impls.core import Frontier, Job
from impls.core.partition import CoordinatorLost, LineBuffer, WorkerLink, decode
from impls.sockets import READ_SIZE


class SelectorLink:
    def __init__(
        self,
        frontier: Frontier,
        selector: selectors.BaseSelector,
        queue_jobs: Callable[[list[Job]], None],
    ) -> None:
        assert frontier.partition is not None, "a link needs a partitioned frontier"
        self.frontier = frontier
        self.selector = selector
        self.queue_jobs = queue_jobs
        self.state = WorkerLink(frontier.partition)
        self.lines = LineBuffer()
        self.unsent = bytearray()
        self.sock = socket.socket(fileno=frontier.partition.channel_fd)
        self.sock.setblocking(False)
        # The crawler closes every registered socket at its end, this one too.
        selector.register(self.sock, selectors.EVENT_READ, self.ready)

    def start(self) -> list[Job]:
        """The root's job, if this process owns the root (an Idle report goes out if not)."""
        jobs = self.frontier.start()
        self.state.queued(len(jobs))
        self._flush()
        return jobs

    def finished(self, new_jobs: int) -> None:
        """A job ended that queued new_jobs: write what is due."""
        self.state.finished(new_jobs)
        self._flush()

    def ready(self) -> None:
        """The selector's callback: the socket can be read, or written, or both."""
        self._write()
        try:
            data = self.sock.recv(READ_SIZE)
        except BlockingIOError:
            return  # only writable
        if not data:
            raise CoordinatorLost("the coordinator closed this worker's socket")
        receive = self.frontier.receive
        for line in self.lines.feed(data):
            urls = self.state.take(decode(line))
            jobs = [job for url, budget in urls if (job := receive(url, budget)) is not None]
            self.queue_jobs(jobs)
            self.state.queued(len(jobs))
        self._flush()

    def _flush(self) -> None:
        if data := self.state.outgoing():
            self.unsent += data
            self._write()

    def _write(self) -> None:
        if not self.unsent:
            return
        with contextlib.suppress(BlockingIOError):  # full: the selector says when it is not
            del self.unsent[: self.sock.send(self.unsent)]
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if self.unsent else 0)
        self.selector.modify(self.sock, events, self.ready)
