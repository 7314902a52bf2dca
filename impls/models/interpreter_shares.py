"""N subinterpreters in threads of this process, each crawling one part of the site."""

# Each subinterpreter (CPython 3.14+: a GIL of its own) runs, in a thread of its own, the
# callbacks model on one part of the site (in_interpreter.py), as a child of `--processes`
# would. Only a CrawlConfig (pickled), a byte each way on the start line and the part's
# document cross. A thread cannot be stopped: on a failure or Ctrl-C, `c10k crawl` ends the
# process.

from __future__ import annotations

import dataclasses
import os
import resource
import select
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from c10k.catalog import INTERPRETERS
from impls.cli.parts import POLL_S
from impls.core import CrawlConfig
from impls.core.frontier import shares
from impls.core.outcomes import PartFailed
from impls.models.in_interpreter import LIMIT, StartLineEnds, crawl_share
from impls.subinterpreters import new_interpreter


@dataclass
class Share:
    """One subinterpreter crawling its part in a thread of its own."""

    index: int
    thread: threading.Thread | None = None
    document: dict[str, Any] | None = None
    error: str = ""  # what stopped its crawl, in one line
    limit: bool = False  # a limit of the machine did
    # The thread's CPU, the subinterpreter's start-up (its imports) and close included.
    cpu_user_s: float = 0.0
    cpu_sys_s: float = 0.0

    def start(self, config: CrawlConfig, ends: StartLineEnds) -> None:
        self.thread = threading.Thread(
            target=self.crawl, args=(config, ends), name=self.name(), daemon=True
        )
        self.thread.start()

    def crawl(self, config: CrawlConfig, ends: StartLineEnds) -> None:
        """The thread: a new subinterpreter crawls the part; its answer kept, then it closes."""
        before = resource.getrusage(resource.RUSAGE_THREAD)
        try:
            interpreter = new_interpreter()
            try:
                answer = interpreter.call(crawl_share, config, ends)
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

    def join(self, timeout: float) -> None:
        if self.thread is not None:
            self.thread.join(timeout)

    def failure(self, what: str) -> PartFailed:
        status = f"stopped: {self.error}" if self.error else "ended"
        return PartFailed(f"{self.name()} {what} and {status}", 3 if self.limit else 1)


def part_configs(
    config: CrawlConfig, roots: Sequence[str], connect_to: Sequence[str] = ()
) -> list[CrawlConfig]:
    """Each subinterpreter's options: its part's root, its share of the concurrency, the
    model's core, and the (i mod n)-th address of connect_to, if any."""
    return [
        dataclasses.replace(
            config,
            root=root,
            concurrency=concurrency,
            core=INTERPRETERS.core,
            connect_host=connect_to[i % len(connect_to)] if connect_to else config.connect_host,
        )
        for i, (root, concurrency) in enumerate(
            zip(roots, shares(config.concurrency, len(roots)), strict=True)
        )
    ]


class StartLine:
    """Holds the shares until each has set its crawl up (subinterpreter started, imports
    done), so that they start together and --mark-crawl's marks leave the start-ups out. A
    share writes a byte to the `ready` pipe, then reads the `go` pipe until it closes."""

    def __init__(self) -> None:
        self.ready_read, self.ready_write = os.pipe()
        self.go_read, self.go_write = os.pipe()

    @property
    def ends(self) -> StartLineEnds:
        """A share's ends: (ready, go)."""
        return self.ready_write, self.go_read

    def wait(self, started: list[Share]) -> None:
        """Until every share is ready; PartFailed if one ends first."""
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


def wait_all(started: list[Share]) -> list[dict[str, Any]]:
    """Each share's document once every thread has ended; PartFailed as soon as one fails."""
    while True:
        if failed := [share for share in started if share.exited() and share.document is None]:
            raise failed[0].failure("failed")
        if not (running := [share for share in started if not share.exited()]):
            return [share.document for share in started if share.document is not None]
        running[0].join(POLL_S)


@dataclass(frozen=True)
class Crawled:
    """The shares' documents, and their threads' CPU, start-ups included."""

    documents: list[dict[str, Any]]
    threads_cpu_user_s: float
    threads_cpu_sys_s: float


def crawl_in_interpreters(
    configs: list[CrawlConfig], mark: Callable[[], None] | None = None
) -> Crawled:
    """One subinterpreter per config crawls its part, all started together; mark(), if
    given, as the crawl starts and ends. A share's failure (PartFailed) or Ctrl-C goes on
    to the caller at once; the other shares crawl on until they or the process end."""
    start_line = StartLine()
    started = [Share(index) for index in range(len(configs))]
    try:
        for share, config in zip(started, configs, strict=True):
            share.start(config, start_line.ends)
        start_line.wait(started)
        if mark:
            mark()
        start_line.go()
        documents = wait_all(started)
        if mark:
            mark()
        return Crawled(
            documents,
            sum(share.cpu_user_s for share in started),
            sum(share.cpu_sys_s for share in started),
        )
    finally:
        start_line.go()  # a share held there goes on, and ends by itself
        if all(share.exited() for share in started):  # else a pipe's number may be reused
            start_line.close()
