"""A worker process's side of a shared crawl (sans-I/O): its open jobs and its reports."""

from __future__ import annotations

from collections.abc import Callable

from impls.core.frontier import Frontier, Job
from impls.core.partition import FORWARD_BATCH, Done, Forwarded, Idle, ProtocolError, decode, encode


class WorkerLink:
    """A worker process's side of the partition: the jobs it has, what it tells the
    coordinator and when. No I/O: the model passes how to queue a job (`put`) and how to
    send bytes to the coordinator (`write`), and feeds it the lines it reads.

    The model calls `start()` for the root's job, `take_line()` for each line from the
    coordinator, and `finished(n)` when a job ends having queued n new ones. After each,
    what is due is written: the outbox as one Forwarded, then an Idle report if no job is
    left. The forwards go first, so the coordinator has routed every URL this worker found
    before it reads that the worker is idle.
    """

    def __init__(
        self, frontier: Frontier, put: Callable[[Job], object], write: Callable[[bytes], object]
    ) -> None:
        assert frontier.partition is not None, "a link needs a partitioned frontier"
        self.frontier = frontier
        self.partition = frontier.partition
        self.put = put
        self.write = write
        self.open_jobs = 0  # queued or in flight
        self.received = 0  # forwarded URLs taken in from the coordinator
        self.done = False
        self._reported: int | None = None  # `received` at the last Idle sent

    def start(self) -> None:
        """The root's job, if this process owns the root; an Idle report if not."""
        self.queue_jobs(self.frontier.start())

    def take_line(self, line: bytes) -> None:
        """A line from the coordinator: queue the jobs of the URLs it forwards (those not
        seen here), or note that the crawl is over (Done)."""
        message = decode(line)
        if isinstance(message, Done):
            self.done = True
        elif isinstance(message, Forwarded):
            self.received += len(message.urls)
            receive = self.frontier.receive
            self.queue_jobs([j for url, b in message.urls if (j := receive(url, b)) is not None])
        else:
            raise ProtocolError(f"a worker does not take {type(message).__name__}")

    def finished(self, new_jobs: int) -> None:
        """A job ended, having queued new_jobs (itself: the model's put)."""
        self.open_jobs += new_jobs - 1
        self.flush()

    def queue_jobs(self, jobs: list[Job]) -> None:
        for job in jobs:
            self.put(job)
        self.open_jobs += len(jobs)
        self.flush()

    @property
    def idle(self) -> bool:
        return self.open_jobs == 0

    def flush(self) -> None:
        if data := self.outgoing():
            self.write(data)

    def outgoing(self) -> bytes:
        """The bytes due now (maybe none). An Idle is sent once per count received:
        between two, only a forwarded URL can have given this worker new work."""
        outbox = self.partition.take_outbox()
        data = b"".join(
            encode(Forwarded(outbox[i : i + FORWARD_BATCH]))
            for i in range(0, len(outbox), FORWARD_BATCH)
        )
        if self.open_jobs == 0 and self._reported != self.received:
            self._reported = self.received
            data += encode(Idle(self.received))
        return data
