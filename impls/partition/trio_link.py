"""The trio model's link: a reader and a writer task in a nursery, or a null link alone."""

from __future__ import annotations

import math
import socket
from typing import Protocol

import trio

from impls.core import Frontier, Job
from impls.core.partition import CoordinatorLost, LineBuffer
from impls.core.worker_link import WorkerLink
from impls.sockets import READ_SIZE


class Jobs(Protocol):
    """The crawl's job channel, as links use it: it closes when no unit is pending."""

    def put(self, job: Job) -> None: ...

    def hold(self) -> None: ...

    def done(self) -> None: ...


class Link(Protocol):
    """What the trio crawl asks of its link, alone or as one process of many.

    `start()` holds one unit of the job channel, so the workers' channel cannot close while
    a job may still come; `serve()`, a task in the crawl's nursery, lets it go when no job
    can come any more."""

    def start(self) -> None:
        """Hold a unit; queue the root's job, if this process owns the root."""

    def finished(self, new_jobs: int) -> None:
        """A worker's job ended, having queued new_jobs."""

    async def serve(self) -> None:
        """Let go of the held unit when the crawl may end."""


class OneProcess:
    """The null link of a crawl that is the only process: the root's job is all that comes."""

    def __init__(self, frontier: Frontier, jobs: Jobs) -> None:
        self.frontier = frontier
        self.jobs = jobs

    def start(self) -> None:
        self.jobs.hold()
        for job in self.frontier.start():
            self.jobs.put(job)

    def finished(self, new_jobs: int) -> None:
        """No coordinator to tell."""

    async def serve(self) -> None:
        self.jobs.done()  # with no root job, the channel closes here and the crawl ends


class ToCoordinator:
    """One process of many: `serve()` reads the coordinator's lines into the link's state.

    The state queues the forwarded URLs this process owns; the held unit is let go when the
    coordinator says the crawl is over. After each job, `finished()` hands the outbox and,
    when no job is left, an Idle report to the writer task through a memory channel, in
    order.
    """

    def __init__(self, frontier: Frontier, jobs: Jobs) -> None:
        assert frontier.partition is not None, "a link needs a partitioned frontier"
        self.fd = frontier.partition.channel_fd
        self.jobs = jobs
        self.outgoing, self.to_send = trio.open_memory_channel[bytes](math.inf)
        self.state = WorkerLink(frontier, jobs.put, self.outgoing.send_nowait)

    def start(self) -> None:
        self.jobs.hold()
        self.state.start()

    def finished(self, new_jobs: int) -> None:
        self.state.finished(new_jobs)

    async def serve(self) -> None:
        stream = trio.SocketStream(trio.socket.from_stdlib_socket(socket.socket(fileno=self.fd)))
        async with stream, trio.open_nursery() as nursery:
            nursery.start_soon(self.send_all, stream)
            lines = LineBuffer()
            while not self.state.done:
                data = await stream.receive_some(READ_SIZE)
                if not data:
                    raise CoordinatorLost("the coordinator closed this worker's socket")
                for line in lines.feed(data):
                    self.state.take_line(line)
            self.outgoing.close()  # the writer sends what is left, then ends
        self.jobs.done()

    async def send_all(self, stream: trio.SocketStream) -> None:
        async with self.to_send:
            async for data in self.to_send:
                await stream.send_all(data)


def link_for(frontier: Frontier, jobs: Jobs) -> Link:
    """The crawl's link: a null one alone, else one to the coordinator."""
    if frontier.partition is None:
        return OneProcess(frontier, jobs)
    return ToCoordinator(frontier, jobs)
