"""The generators model's link to its coordinator: a reader task and a writer task.

`serve()` reads the coordinator's messages and queues the forwarded URLs this process owns,
and returns when the coordinator says the crawl is over; the crawl waits for it instead of
the queue's join(). The workers call `finished()` after each job, which queues the outbox
and, when no job is left, an Idle report for the writer task, which sends them in order.
The chapter's loop waits for one event per socket, so the writer has a socket of its own:
a duplicate of the reader's descriptor.
"""

from __future__ import annotations

import socket

from impls.core import Frontier, Job
from impls.core.partition import CoordinatorLost, LineBuffer, WorkerLink, decode
from impls.generators_loop import Coro, EventLoop, Future, Queue
from impls.sockets import READ_SIZE


class GeneratorsLink:
    def __init__(self, loop: EventLoop, frontier: Frontier, queue: Queue[Job]) -> None:
        assert frontier.partition is not None, "a link needs a partitioned frontier"
        self.loop = loop
        self.frontier = frontier
        self.queue = queue
        self.state = WorkerLink(frontier.partition)
        self.reader = socket.socket(fileno=frontier.partition.channel_fd)
        self.writer = self.reader.dup()
        for sock in (self.reader, self.writer):
            sock.setblocking(False)
        self.unsent = bytearray()
        self.writing: Future[None] | None = None  # the writer task, while bytes wait

    def serve(self) -> Coro[None]:
        """Queue the root's job (if this process owns the root), then the forwarded URLs,
        until Done."""
        try:
            self.queue_jobs(self.frontier.start())
            lines = LineBuffer()
            receive = self.frontier.receive
            while not self.state.done:
                data = yield from self.loop.sock_recv(self.reader, READ_SIZE)
                if not data:
                    raise CoordinatorLost("the coordinator closed this worker's socket")
                for line in lines.feed(data):
                    urls = self.state.take(decode(line))
                    self.queue_jobs([j for url, b in urls if (j := receive(url, b)) is not None])
            while self.writing is not None:  # nothing is sent after Done, but finish what is
                yield from self.writing
        finally:
            for sock in (self.reader, self.writer):
                self.loop.close_socket(sock)

    def finished(self, new_jobs: int) -> None:
        """A worker ended a job that queued new_jobs: send what is due."""
        self.state.finished(new_jobs)
        self._send()

    def queue_jobs(self, jobs: list[Job]) -> None:
        for job in jobs:
            self.queue.put_nowait(job)
        self.state.queued(len(jobs))
        self._send()

    def _send(self) -> None:
        if data := self.state.outgoing():
            self.unsent += data
            if self.writing is None:
                self.writing = self.loop.create_task(self._write())

    def _write(self) -> Coro[None]:
        try:
            while self.unsent:
                data, self.unsent = bytes(self.unsent), bytearray()
                yield from self.loop.sock_sendall(self.writer, data)
        finally:
            self.writing = None
