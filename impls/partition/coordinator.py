"""`c10k crawl --processes P`: start P worker processes, route their URLs, end and merge."""

# Each worker is `c10k crawl ... --partition I/P --channel-fd FD --json` in a fresh
# interpreter (its own open-file limit), joined to this process by a socketpair. A worker
# forwards the URLs other workers own; this process routes each to its owner (a star: every
# forward passes here), tells the workers the crawl is over by the end rule of
# impls/core/partition.py, and merges their documents into one. Its waits are all bounded,
# and it stops its workers (by PID) when one fails or on Ctrl-C.

from __future__ import annotations

import contextlib
import math
import selectors
import socket
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Protocol, TypeVar

from impls.core.outcomes import PartFailed
from impls.core.partition import (
    Done,
    Forwarded,
    Idle,
    LineBuffer,
    ProtocolError,
    Termination,
    decode,
    encode,
    route,
)

WorkerFailed = PartFailed
POLL_S = 0.5  # how often the loop looks at its workers when no message comes
EXIT_WAIT_S = 60.0  # after Done: time for a worker to end its crawl and print its document
STOP_GRACE_S = 2.0  # SIGTERM, then SIGKILL after this long
TAIL_CHARS = 300  # of a failed worker's stderr, in the one-line error


class Endpoint(Protocol):
    """This end of one worker's socketpair, and what the loop asks of the worker: a process
    (Worker, below) or a subinterpreter (impls/models/interpreter_shares.py)."""

    index: int
    channel: socket.socket
    lines: LineBuffer
    unsent: bytearray
    waiting_to_write: bool  # registered for EVENT_WRITE too
    ended: bool  # its socket reached EOF

    def exited(self) -> bool:
        """Whether the worker has stopped (before Done: it failed)."""

    def failure(self, what: str) -> WorkerFailed:
        """The error for this worker, once it has stopped (waited for, bounded)."""


@dataclass
class Worker:
    """One worker process and this end of its socketpair."""

    index: int
    concurrency: int
    connect_to: str
    process: subprocess.Popen[bytes]
    channel: socket.socket
    stdout: IO[bytes]
    stderr: IO[bytes]
    lines: LineBuffer = field(default_factory=LineBuffer)
    unsent: bytearray = field(default_factory=bytearray)
    waiting_to_write: bool = False  # registered for EVENT_WRITE too
    ended: bool = False  # its socket reached EOF

    def name(self) -> str:
        return f"worker {self.index} (pid {self.process.pid})"

    def exited(self) -> bool:
        return self.process.poll() is not None

    def stderr_tail(self) -> str:
        self.stderr.seek(0)
        text = self.stderr.read().decode(errors="replace").strip()
        return " | ".join(text[-TAIL_CHARS:].splitlines()) or "no output on stderr"

    def failure(self, what: str) -> WorkerFailed:
        """The error for this worker, once it has exited (waited for, bounded)."""
        try:
            code = self.process.wait(STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            code = None
        status = "is still running" if code is None else f"exited with code {code}"
        # A limit of the machine (exit 3) stays one for the user.
        message = f"{self.name()} {what} and {status}: {self.stderr_tail()}"
        return WorkerFailed(message, 3 if code == 3 else 1)


Started = TypeVar("Started")


@contextlib.contextmanager
def stopped_on_failure(
    started: list[Started], stop: Callable[[list[Started]], None]
) -> Iterator[None]:
    """Starting the shares one by one: when one fails, those started so far are stopped and
    the failure goes on."""
    try:
        yield
    except BaseException:
        stop(started)
        raise


class Coordinator:
    """The loop: read each worker's messages, route the forwards, say Done at the end."""

    def __init__(self, workers: Sequence[Endpoint]) -> None:
        self.workers = workers
        self.termination = Termination(len(workers))
        self.selector = selectors.DefaultSelector()
        self.done_sent = False

    def run(self) -> None:
        """Until every worker has been told Done and has closed its socket."""
        for worker in self.workers:
            self.selector.register(worker.channel, selectors.EVENT_READ, worker)
        deadline = math.inf  # set when Done is sent
        try:
            while not all(worker.ended for worker in self.workers):
                if time.monotonic() > deadline:
                    late = next(worker for worker in self.workers if not worker.ended)
                    raise late.failure(f"kept its socket open {EXIT_WAIT_S:.0f} s after Done")
                for key, events in self.selector.select(POLL_S):
                    if events & selectors.EVENT_WRITE:
                        self.write(key.data)
                    if events & selectors.EVENT_READ:
                        self.read(key.data)
                self.check_exits()
                if not self.done_sent and self.termination.over:
                    self.done_sent = True
                    deadline = time.monotonic() + EXIT_WAIT_S
                    for worker in self.workers:
                        self.send(worker, encode(Done()))
        finally:
            self.selector.close()

    def read(self, worker: Endpoint) -> None:
        try:
            data = worker.channel.recv(1 << 20)
        except BlockingIOError:
            return
        except OSError as exc:
            raise worker.failure(f"broke its socket ({exc})") from exc
        if not data:
            if not self.done_sent or worker.lines.pending:
                raise worker.failure("closed its socket before the crawl ended")
            worker.ended = True
            self.selector.unregister(worker.channel)
            return
        for line in worker.lines.feed(data):
            try:
                message = decode(line)
                if isinstance(message, Forwarded):
                    for owner, urls in route(message.urls, len(self.workers)).items():
                        self.termination.forwarded(owner, len(urls))
                        self.send(self.workers[owner], encode(Forwarded(urls)))
                elif isinstance(message, Idle):
                    self.termination.idle(worker.index, message.received)
                else:
                    raise ProtocolError("a worker sent Done")
            except ProtocolError as exc:
                raise worker.failure(f"broke the protocol ({exc})") from exc

    def send(self, worker: Endpoint, data: bytes) -> None:
        if worker.ended:
            return
        worker.unsent += data
        self.write(worker)

    def write(self, worker: Endpoint) -> None:
        try:
            sent = worker.channel.send(worker.unsent)
        except BlockingIOError:
            sent = 0
        except OSError as exc:
            raise worker.failure(f"stopped reading its socket ({exc})") from exc
        del worker.unsent[:sent]
        # Watch for room to write only while bytes wait: a full buffer must not block us.
        if worker.waiting_to_write != bool(worker.unsent):
            worker.waiting_to_write = bool(worker.unsent)
            events = selectors.EVENT_READ | (selectors.EVENT_WRITE if worker.unsent else 0)
            self.selector.modify(worker.channel, events, worker)

    def check_exits(self) -> None:
        """A worker that exited before Done failed, whatever its socket says yet."""
        for worker in self.workers:
            if not self.done_sent and worker.exited():
                raise worker.failure("exited before the crawl ended")
