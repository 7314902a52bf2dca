"""The trio model's link to its coordinator: a reader and a writer task in a nursery.

`serve()` feeds the coordinator's lines to the link's state, which queues the forwarded
URLs this process owns. The crawl's job channel holds one unit for it from the start, so
the workers' channel cannot close while the coordinator may still forward work; the unit
is let go when the coordinator says the crawl is over. The workers call `state.finished()`
after each job, which hands the outbox and, when no job is left, an Idle report to the
writer task through a memory channel, in order.
"""

from __future__ import annotations

import math
import socket
from collections.abc import Callable

import trio

from impls.core import Frontier, Job
from impls.core.partition import CoordinatorLost, LineBuffer
from impls.core.worker_link import WorkerLink
from impls.sockets import READ_SIZE


class TrioLink:
    def __init__(self, frontier: Frontier, put: Callable[[Job], None]) -> None:
        assert frontier.partition is not None, "a link needs a partitioned frontier"
        self.fd = frontier.partition.channel_fd
        self.outgoing, self.to_send = trio.open_memory_channel[bytes](math.inf)
        self.state = WorkerLink(frontier, put, self.outgoing.send_nowait)

    async def serve(self, let_go: Callable[[], None]) -> None:
        """Queue the root's job (if this process owns the root), then read the
        coordinator's lines until Done; then let go of the held unit."""
        stream = trio.SocketStream(trio.socket.from_stdlib_socket(socket.socket(fileno=self.fd)))
        async with stream, trio.open_nursery() as nursery:
            nursery.start_soon(self.send_all, stream)
            self.state.start()
            lines = LineBuffer()
            while not self.state.done:
                data = await stream.receive_some(READ_SIZE)
                if not data:
                    raise CoordinatorLost("the coordinator closed this worker's socket")
                for line in lines.feed(data):
                    self.state.take_line(line)
            self.outgoing.close()  # the writer sends what is left, then ends
        let_go()

    async def send_all(self, stream: trio.SocketStream) -> None:
        async with self.to_send:
            async for data in self.to_send:
                await stream.send_all(data)
