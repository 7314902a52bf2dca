"""An asyncio worker process's link to its coordinator: one task reads, the workers report.

`serve()` is the task: it reads the coordinator's lines into the link's state, which queues
the forwarded URLs this process owns, and returns when the coordinator says the crawl is
over; the crawl awaits it instead of the queue's join(). The workers call
`state.finished()` after each job, which writes the outbox and, when no job is left, an
Idle report. One loop runs it all, so the state needs no lock and the writes leave in the
order the state produced them.
"""

from __future__ import annotations

import asyncio
import socket

from impls.core import Frontier, Job
from impls.core.partition import CoordinatorLost
from impls.core.worker_link import WorkerLink

# The longest line the coordinator may send: a batch of forwarded URLs from one page.
LINE_LIMIT = 64 * 1024 * 1024


class AsyncioLink:
    def __init__(self, frontier: Frontier, queue: asyncio.Queue[Job]) -> None:
        assert frontier.partition is not None, "a link needs a partitioned frontier"
        self.channel = socket.socket(fileno=frontier.partition.channel_fd)
        self.state = WorkerLink(frontier, queue.put_nowait, self.write)
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        """Connect the stream and queue the root's job (if this process owns the root)."""
        self.reader, self.writer = await asyncio.open_connection(
            sock=self.channel, limit=LINE_LIMIT
        )
        self.state.start()

    async def serve(self) -> None:
        """Read the coordinator's lines until Done."""
        assert self.reader is not None and self.writer is not None, "open() first"
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
        assert self.writer is not None, "open() first"
        self.writer.write(data)
