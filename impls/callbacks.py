"""The callbacks model: a selectors loop, non-blocking sockets, Fetcher methods as callbacks."""

from __future__ import annotations

import contextlib
import errno
import functools
import heapq
import itertools
import os
import selectors
import socket
import time
from collections import deque
from collections.abc import Callable

from impls.core import ErrorKind, FetchError, Frontier, Job, ResponseParser, classify_os_error
from impls.core.outcomes import Response
from impls.sockets import READ_SIZE, address_family

# The deadline heap is swept of finished fetches when they are this many and most of it.
MIN_DEADLINES_TO_SWEEP = 100


def callback(method: Callable[[Fetcher], None]) -> Callable[[Fetcher], None]:
    """Make a Fetcher method a callback: a failure in it ends the try with the contract's kind."""

    @functools.wraps(method)
    def guarded(fetcher: Fetcher) -> None:
        try:
            method(fetcher)
        except BlockingIOError:
            pass  # not ready after all (a spurious wake-up): the registration stands
        except FetchError as exc:
            fetcher.fail(exc.kind)
        except OSError as exc:  # out of descriptors raises ResourceLimit, which ends the crawl
            fetcher.fail(classify_os_error(exc, fetcher.connecting))

    return guarded


class Fetcher:
    """One try of one job; the loop calls its methods when its socket is ready."""

    def __init__(self, crawler: Crawler, job: Job, sock: socket.socket) -> None:
        self.crawler = crawler
        self.job = job
        self.sock = sock
        self.parser = ResponseParser(crawler.frontier.config.max_body)
        self.unsent = memoryview(job.request)
        self.connecting = True
        self.done = False
        self.started = time.perf_counter()

    @callback
    def start(self) -> None:
        self.sock.setblocking(False)
        self.crawler.selector.register(self.sock, selectors.EVENT_WRITE, self.connected)
        error = self.sock.connect_ex(self.crawler.address)
        if error not in (0, errno.EINPROGRESS):
            raise OSError(error, os.strerror(error))

    @callback
    def connected(self) -> None:
        if error := self.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
            raise OSError(error, os.strerror(error))
        self.connecting = False
        self.send_request()

    @callback
    def writable(self) -> None:
        self.send_request()

    def send_request(self) -> None:
        sent = self.sock.send(self.unsent)
        self.unsent = self.unsent[sent:]
        # Changing only the callback of a registration costs no system call.
        if self.unsent:
            self.crawler.selector.modify(self.sock, selectors.EVENT_WRITE, self.writable)
        else:
            self.crawler.selector.modify(self.sock, selectors.EVENT_READ, self.readable)

    @callback
    def readable(self) -> None:
        data = self.sock.recv(READ_SIZE)
        response = self.parser.feed(data) if data else self.parser.feed_eof()
        if response is not None:
            self.succeed(response)

    def timed_out(self) -> None:
        self.fail(ErrorKind.TIMEOUT)

    def succeed(self, response: Response) -> None:
        self.close()
        frontier = self.crawler.frontier
        self.crawler.finished(frontier.on_response(self.job, response, self.elapsed()))

    def fail(self, kind: ErrorKind) -> None:
        self.close()
        self.crawler.finished(self.crawler.frontier.on_error(self.job, kind, self.elapsed()))

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def close(self) -> None:
        self.done = True
        with contextlib.suppress(KeyError):  # start() failed before registering
            self.crawler.selector.unregister(self.sock)
        self.sock.close()
        self.crawler.frontier.closed()


class Crawler:
    """The loop: start pending jobs up to the cap, run callbacks, expire deadlines."""

    def __init__(self, frontier: Frontier) -> None:
        config = frontier.config
        self.frontier = frontier
        self.address = (config.connect_host, frontier.origin.port)
        self.family = address_family(config.connect_host)
        self.selector = selectors.DefaultSelector()
        self.pending: deque[Job] = deque(frontier.start())
        self.in_flight = 0
        # (deadline, order, fetcher); a finished fetcher's entry stays until popped or swept.
        self.deadlines: list[tuple[float, int, Fetcher]] = []
        self.order = itertools.count()

    def run(self) -> None:
        limit = self.frontier.config.concurrency
        try:
            while True:
                while self.pending and self.in_flight < limit:
                    self.start(self.pending.popleft())
                if not self.in_flight:
                    return  # nothing in flight, so nothing pending either
                for key, _events in self.selector.select(self.time_to_next_deadline()):
                    key.data()
                self.expire_deadlines()
        finally:  # after a ResourceLimit, close whatever is still open
            for key in list(self.selector.get_map().values()):
                key.fileobj.close()  # type: ignore[union-attr]  # we register only sockets
            self.selector.close()

    def start(self, job: Job) -> None:
        try:
            sock = socket.socket(self.family, socket.SOCK_STREAM)
        except OSError as exc:  # out of descriptors raises ResourceLimit here
            self.pending.extend(self.frontier.on_error(job, classify_os_error(exc, True)))
            return
        self.frontier.opened()
        self.in_flight += 1
        fetcher = Fetcher(self, job, sock)
        deadline = time.monotonic() + self.frontier.config.timeout
        heapq.heappush(self.deadlines, (deadline, next(self.order), fetcher))
        fetcher.start()

    def finished(self, new_jobs: list[Job]) -> None:
        self.in_flight -= 1
        self.pending.extend(new_jobs)

    def time_to_next_deadline(self) -> float | None:
        if not self.deadlines:
            return None
        return max(0.0, self.deadlines[0][0] - time.monotonic())

    def expire_deadlines(self) -> None:
        now = time.monotonic()
        deadlines = self.deadlines
        while deadlines and (deadlines[0][2].done or deadlines[0][0] <= now):
            fetcher = heapq.heappop(deadlines)[2]
            if not fetcher.done:
                fetcher.timed_out()
        # Every fetch in flight has one entry; the others are finished fetches. Sweeping
        # them when they are the majority keeps the heap small at a constant cost per fetch.
        if len(deadlines) > MIN_DEADLINES_TO_SWEEP and len(deadlines) > 2 * self.in_flight:
            self.deadlines = [entry for entry in deadlines if not entry[2].done]
            heapq.heapify(self.deadlines)


def run(frontier: Frontier) -> None:
    Crawler(frontier).run()
