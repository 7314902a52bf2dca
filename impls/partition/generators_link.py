"""The generators model's link to its coordinator: a reader task and a writer task.

`serve()` feeds the coordinator's lines to the link's state, which queues the forwarded
URLs this process owns, and returns when the coordinator says the crawl is over; the crawl
waits for it instead of the queue's join(). The workers call `state.finished()` after each
job, which hands the outbox and, when no job is left, an Idle report to the writer task,
which sends them in order. The chapter's loop waits for one event per socket, so the
writer has a socket of its own: a duplicate of the reader's descriptor.
"""

from __future__ import annotations

import socket

from impls.core import Frontier, Job
from impls.core.partition import CoordinatorLost, LineBuffer
from impls.core.worker_link import WorkerLink
from impls.models.generators_loop import Coro, EventLoop, Future, Queue
from impls.sockets import READ_SIZE


class GeneratorsLink:
    def __init__(self, loop: EventLoop, frontier: Frontier, queue: Queue[Job]) -> None:
        assert frontier.partition is not None, "a link needs a partitioned frontier"
        self.loop = loop
        self.reader = socket.socket(fileno=frontier.partition.channel_fd)
        self.writer = self.reader.dup()
        for sock in (self.reader, self.writer):
            sock.setblocking(False)
        self.unsent = bytearray()
        self.writing: Future[None] | None = None  # the writer task, while bytes wait
        self.state = WorkerLink(frontier, queue.put_nowait, self.write)

    def serve(self) -> Coro[None]:
        """Queue the root's job (if this process owns the root), then read the
        coordinator's lines until Done."""
        try:
            self.state.start()
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
