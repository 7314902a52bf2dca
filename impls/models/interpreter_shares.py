"""N subinterpreters in threads of this process share one crawl; this, the main one, coordinates."""

# Each subinterpreter (concurrent.interpreters, CPython 3.14+: a GIL of its own) runs, in a
# thread of its own, the callbacks model on its share of the crawl (in_interpreter.py). It
# is joined to this interpreter by a socketpair, exactly as a worker process of
# `--processes` is: the same JSON lines, the same worker link (selector_link.ToCoordinator)
# and here the same Coordinator loop (impls/partition/coordinator.py), so the partition rules are
# impls/core/partition.py's. What crosses between interpreters: a CrawlConfig and a few
# ints in (Interpreter.call pickles them), a byte each way on the start line's pipes, the
# lines on the socket while the crawl runs, and the share's document out. A thread cannot be
# killed: to stop the shares, this end of each socket is shut down, and each crawl ends on
# the coordinator's loss (CoordinatorLost).

from __future__ import annotations

import contextlib
import dataclasses
import os
import resource
import select
import socket
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from c10k.catalog import INTERPRETERS
from impls.core import CrawlConfig
from impls.core.partition import LineBuffer, shares
from impls.models.in_interpreter import LIMIT, StartLineEnds, crawl_share
from impls.partition.coordinator import (
    EXIT_WAIT_S,
    POLL_S,
    STOP_GRACE_S,
    Coordinator,
    WorkerFailed,
    stopped_on_failure,
)
from impls.subinterpreters import new_interpreter


@dataclass
class Share:
    """One subinterpreter crawling its share in a thread of its own, and this end of its
    socketpair: a coordinator.Endpoint."""

    index: int
    channel: socket.socket
    lines: LineBuffer = field(default_factory=LineBuffer)
    unsent: bytearray = field(default_factory=bytearray)
    waiting_to_write: bool = False
    ended: bool = False
    thread: threading.Thread | None = None
    document: dict[str, Any] | None = None
    error: str = ""  # what stopped its crawl, in one line
    limit: bool = False  # a limit of the machine did
    # The thread's CPU, the subinterpreter's start-up (its imports) and close included.
    cpu_user_s: float = 0.0
    cpu_sys_s: float = 0.0

    def start(self, *crawl_args: Any) -> None:
        self.thread = threading.Thread(
            target=self.crawl, args=crawl_args, name=self.name(), daemon=True
        )
        self.thread.start()

    def crawl(self, config: CrawlConfig, count: int, channel_fd: int, ends: StartLineEnds) -> None:
        """The thread: a new subinterpreter crawls the share; its answer kept, then it closes."""
        before = resource.getrusage(resource.RUSAGE_THREAD)
        try:
            interpreter = new_interpreter()
            try:
                answer = interpreter.call(crawl_share, config, self.index, count, channel_fd, ends)
            finally:
                interpreter.close()
        except Exception as exc:  # ExecutionFailed's first line names the exception raised
            self.error = (str(exc).splitlines() or [type(exc).__name__])[0]
            return
        finally:
            after = resource.getrusage(resource.RUSAGE_THREAD)
            self.cpu_user_s = after.ru_utime - before.ru_utime
            self.cpu_sys_s = after.ru_stime - before.ru_stime
        if LIMIT in answer:
            self.error, self.limit = answer[LIMIT], True
        else:
            self.document = answer

    def name(self) -> str:
        return f"interpreter {self.index}"

    def exited(self) -> bool:
        return self.thread is not None and not self.thread.is_alive()

    def failure(self, what: str) -> WorkerFailed:
        if self.thread is not None:
            self.thread.join(STOP_GRACE_S)
        if not self.exited():
            status = "is still running"
        else:
            status = f"stopped: {self.error}" if self.error else "ended"
        return WorkerFailed(f"{self.name()} {what} and {status}", 3 if self.limit else 1)


def share_configs(
    config: CrawlConfig, count: int, connect_to: Sequence[str] = ()
) -> list[CrawlConfig]:
    """Each subinterpreter's options: its share of the concurrency (split as `--processes`
    splits it), the model's core, and the address it connects to (the (i mod n)-th of
    connect_to, if any)."""
    return [
        dataclasses.replace(
            config,
            concurrency=concurrency,
            core=INTERPRETERS.core,
            connect_host=connect_to[i % len(connect_to)] if connect_to else config.connect_host,
        )
        for i, concurrency in enumerate(shares(config.concurrency, count))
    ]


class StartLine:
    """Holds the shares until each has set its crawl up (its subinterpreter started, its
    imports done): then they start together, and the crawl's marks (--mark-crawl) leave the
    start-ups out, as a one-process crawl's leave out its interpreter's. A share writes a
    byte to the `ready` pipe, then reads the `go` pipe until this end closes it."""

    def __init__(self) -> None:
        self.ready_read, self.ready_write = os.pipe()
        self.go_read, self.go_write = os.pipe()

    @property
    def ends(self) -> StartLineEnds:
        """A share's ends: where it says it is ready, where it waits to go."""
        return self.ready_write, self.go_read

    def wait(self, started: list[Share]) -> None:
        """Until every share is ready; WorkerFailed if one ends first."""
        waiting = len(started)
        while waiting:
            if select.select([self.ready_read], [], [], POLL_S)[0]:
                waiting -= len(os.read(self.ready_read, waiting))
            elif ended := [share for share in started if share.exited()]:
                raise ended[0].failure("exited before the crawl started")

    def go(self) -> None:
        if self.go_write >= 0:
            os.close(self.go_write)
            self.go_write = -1

    def close(self) -> None:
        """Once no share can use the pipes any more (its thread ended)."""
        self.go()
        for fd in (self.ready_read, self.ready_write, self.go_read):
            os.close(fd)


def start_shares(configs: list[CrawlConfig], ends: StartLineEnds) -> list[Share]:
    started: list[Share] = []
    with stopped_on_failure(started, stop):
        for index, config in enumerate(configs):
            ours, theirs = socket.socketpair()
            ours.setblocking(False)
            share = Share(index, ours)
            started.append(share)
            # The descriptor is the subinterpreter's from here on: its crawl closes it.
            share.start(config, len(configs), theirs.detach(), ends)
    return started


def stop(started: list[Share]) -> None:
    """Each crawl reads EOF from the coordinator and ends; a bounded wait for each."""
    for share in started:
        with contextlib.suppress(OSError):
            share.channel.shutdown(socket.SHUT_RDWR)
    for share in started:
        if share.thread is not None:
            share.thread.join(STOP_GRACE_S)


def collect(started: list[Share]) -> list[dict[str, Any]]:
    """Each share's document, once its thread has ended (bounded wait)."""
    documents = []
    for share in started:
        assert share.thread is not None
        share.thread.join(EXIT_WAIT_S)
        if share.thread.is_alive():
            raise share.failure(f"did not end {EXIT_WAIT_S:.0f} s after Done")
        if share.document is None:
            raise share.failure("returned no crawl document")
        documents.append(share.document)
    return documents


@dataclass(frozen=True)
class Crawled:
    """The shares' documents, and their threads' CPU, start-ups included (the document's
    figures count only the crawl)."""

    documents: list[dict[str, Any]]
    threads_cpu_user_s: float
    threads_cpu_sys_s: float


def crawl_in_interpreters(
    configs: list[CrawlConfig], mark: Callable[[], None] | None = None
) -> Crawled:
    """One subinterpreter per config crawls its share, coordinated from here to the end;
    mark(), if given, as the crawl starts (all set up) and as it ends. A share's failure
    (WorkerFailed) or Ctrl-C (KeyboardInterrupt) stops the others, then goes on to the
    caller."""
    start_line = StartLine()
    started = start_shares(configs, start_line.ends)
    try:
        start_line.wait(started)
        if mark:
            mark()
        start_line.go()
        Coordinator(started).run()
        if mark:
            mark()
        documents = collect(started)
        return Crawled(
            documents,
            sum(share.cpu_user_s for share in started),
            sum(share.cpu_sys_s for share in started),
        )
    except BaseException:
        start_line.go()  # a share held there goes on, to meet the coordinator's loss
        stop(started)
        raise
    finally:
        for share in started:
            share.channel.close()
        if all(share.exited() for share in started):  # else a pipe's number may be reused
            start_line.close()
