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

from impls.core.frontier import Frontier, Job
from impls.core.http_base import READ_SIZE, retry_on_fresh_connection
from impls.core.outcomes import ErrorKind, FetchError, Response, classify_os_error

# The deadline heap is swept of finished fetches when they are this many and most of it.
MIN_DEADLINES_TO_SWEEP = 100


def run(frontier: Frontier) -> None:
    Crawler(frontier).run()


class Crawler:
    """The loop: start pending jobs up to the cap, run callbacks, expire deadlines."""

    def __init__(self, frontier: Frontier) -> None:
        config = frontier.config
        self.frontier = frontier
        self.address = (config.connect_host, frontier.origin.port)
        self.family = socket.AF_INET6 if ":" in config.connect_host else socket.AF_INET
        self.selector = selectors.DefaultSelector()
        self.pending: deque[Job] = deque(frontier.start())
        self.idle: list[socket.socket] = []  # kept-alive connections between fetches
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
                    break  # nothing in flight, so nothing pending either: the crawl is over
                for key, _events in self.selector.select(self.time_to_next_deadline()):
                    key.data()
                self.expire_deadlines()
            while self.idle:
                self.close(self.idle.pop())
        finally:  # after a ResourceLimit, close whatever is still open
            for key in list(self.selector.get_map().values()):
                key.fileobj.close()  # type: ignore[union-attr]  # we register only sockets
            self.selector.close()

    def start(self, job: Job) -> None:
        self.in_flight += 1
        fetcher = Fetcher(self, job)
        deadline = time.monotonic() + self.frontier.config.timeout
        heapq.heappush(self.deadlines, (deadline, next(self.order), fetcher))
        fetcher.start(self.idle.pop() if self.idle else None)

    def keep(self, sock: socket.socket) -> None:
        """Keep a connection for the next fetch; should the server close it first, drop it."""
        self.idle.append(sock)
        # Same events, another callback: no system call.
        self.selector.modify(sock, selectors.EVENT_READ, functools.partial(self.drop, sock))

    def drop(self, sock: socket.socket) -> None:
        """An idle connection became readable: the server closed it (or sent unasked bytes)."""
        self.idle.remove(sock)
        self.close(sock)

    def close(self, sock: socket.socket) -> None:
        with contextlib.suppress(KeyError):  # the connect failed before registering
            self.selector.unregister(sock)
        sock.close()
        self.frontier.closed()

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
                fetcher.fail(ErrorKind.TIMEOUT)
        # Every fetch in flight has one entry; the others are finished fetches. Sweeping
        # them when they are the majority keeps the heap small at a constant cost per fetch.
        if len(deadlines) > MIN_DEADLINES_TO_SWEEP and len(deadlines) > 2 * self.in_flight:
            self.deadlines = [entry for entry in deadlines if not entry[2].done]
            heapq.heapify(self.deadlines)


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
    """One fetch of one job; the loop calls its methods when its socket is ready."""

    sock: socket.socket

    def __init__(self, crawler: Crawler, job: Job) -> None:
        self.crawler = crawler
        self.job = job
        self.holding = False  # a connection counted open is this fetcher's to close
        self.done = False
        self.started = time.perf_counter()

    def start(self, idle: socket.socket | None) -> None:
        """Send the request on an idle kept-alive connection, or on a new one (idle None)."""
        frontier = self.crawler.frontier
        config = frontier.config
        new_parser = frontier.response_parser
        self.reused = idle is not None
        self.connecting = idle is None
        self.parser = new_parser(config.max_body, config.keep_alive)
        self.unsent = memoryview(self.job.request)
        if idle is None:
            self.connect()
        else:
            self.sock, self.holding = idle, True
            self.writable()

    @callback
    def connect(self) -> None:
        crawler = self.crawler
        crawler.frontier.opened()
        try:
            self.sock = socket.socket(crawler.family, socket.SOCK_STREAM)
        except OSError:  # out of descriptors raises ResourceLimit from classify_os_error
            crawler.frontier.closed()  # there is no socket to close
            raise
        self.holding = True
        self.sock.setblocking(False)
        crawler.selector.register(self.sock, selectors.EVENT_WRITE, self.connected)
        error = self.sock.connect_ex(crawler.address)
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
        if (response := self.parser.feed(self.sock.recv(READ_SIZE))) is not None:
            self.succeed(response)

    def succeed(self, response: Response) -> None:
        if self.parser.reusable:
            self.holding = False
            self.crawler.keep(self.sock)
        else:
            self.close()
        self.done = True
        frontier = self.crawler.frontier
        self.crawler.finished(frontier.on_response(self.job, response, self.elapsed()))

    def fail(self, kind: ErrorKind) -> None:
        self.close()
        if retry_on_fresh_connection(self.reused, self.parser.received, kind):
            self.start(None)  # within the same deadline
            return
        self.done = True
        self.crawler.finished(self.crawler.frontier.on_error(self.job, kind, self.elapsed()))

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def close(self) -> None:
        if self.holding:
            self.holding = False
            self.crawler.close(self.sock)
