"""An asyncio crawl's link (asyncio, aiohttp): a stream to the coordinator, or a null link."""

from __future__ import annotations

import asyncio
import socket
from typing import Protocol

from impls.core import Frontier, Job
from impls.core.partition import CoordinatorLost
from impls.core.worker_link import WorkerLink

# The longest line the coordinator may send: a batch of forwarded URLs from one page.
LINE_LIMIT = 64 * 1024 * 1024


class Link(Protocol):
    """What an asyncio crawl asks of its link, alone or as one process of many."""

    async def start(self) -> None:
        """Queue the root's job, if this process owns the root."""

    def finished(self, new_jobs: int) -> None:
        """A worker's job ended, having queued new_jobs."""

    async def serve(self) -> None:
        """Return when the crawl is over."""


class OneProcess:
    """The null link of a crawl that is the only process: the queue's join ends it."""

    def __init__(self, frontier: Frontier, queue: asyncio.Queue[Job]) -> None:
        self.frontier = frontier
        self.queue = queue

    async def start(self) -> None:
        for job in self.frontier.start():
            self.queue.put_nowait(job)

    def finished(self, new_jobs: int) -> None:
        """No coordinator to tell."""

    async def serve(self) -> None:
        await self.queue.join()


class ToCoordinator:
    """One process of many: `serve()` reads the coordinator's lines into the link's state.

    The state queues the forwarded URLs this process owns, and serve() returns when the
    coordinator says the crawl is over. After each job, `finished()` writes the outbox and,
    when no job is left, an Idle report. One loop runs it all, so the state needs no lock
    and the writes leave in the order the state produced them.
    """

    def __init__(self, frontier: Frontier, queue: asyncio.Queue[Job]) -> None:
        assert frontier.partition is not None, "a link needs a partitioned frontier"
        self.channel = socket.socket(fileno=frontier.partition.channel_fd)
        self.state = WorkerLink(frontier, queue.put_nowait, self.write)
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def start(self) -> None:
        """Connect the stream, then queue the root's job."""
        self.reader, self.writer = await asyncio.open_connection(
            sock=self.channel, limit=LINE_LIMIT
        )
        self.state.start()

    def finished(self, new_jobs: int) -> None:
        self.state.finished(new_jobs)

    async def serve(self) -> None:
        assert self.reader is not None and self.writer is not None, "start() first"
        try:
            while not self.state.done:
                line = await self.reader.readline()
                if not line.endswith(b"\n"):
                    raise CoordinatorLost("the coordinator closed this worker's socket")
                self.state.take_line(line)
        finally:
            self.writer.close()

    def write(self, data: bytes) -> None:
        # The coordinator always reads, so the transport's buffer stays short: no drain.
        assert self.writer is not None, "start() first"
        self.writer.write(data)


def link_for(frontier: Frontier, queue: asyncio.Queue[Job]) -> Link:
    """The crawl's link: a null one alone, else one to the coordinator."""
    if frontier.partition is None:
        return OneProcess(frontier, queue)
    return ToCoordinator(frontier, queue)
