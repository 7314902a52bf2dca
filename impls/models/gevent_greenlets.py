"""The gevent model: the threads model's blocking code on greenlets, scheduled by gevent's hub."""

# N greenlets take jobs from a gevent.queue.JoinableQueue and run the threads model's worker
# and fetch with gevent's own sockets, which look blocking to the greenlet and yield to the
# hub instead. Nothing is monkey-patched: the stdlib stays as it is for the harness and every
# other model.

from __future__ import annotations

import contextlib
import socket

import gevent
import gevent.queue
import gevent.socket

from impls.core import Frontier
from impls.models.threads import Workers


def connect(address: tuple[str, int], timeout: float) -> socket.socket:
    """A connected gevent socket whose blocking calls wait for at most `timeout` seconds (not
    gevent's create_connection, which resolves even an IP literal on a pool of threads)."""
    sock = gevent.socket.socket(socket.AF_INET6 if ":" in address[0] else socket.AF_INET)
    try:
        sock.settimeout(timeout)
        sock.connect(address)
    except BaseException:
        sock.close()
        raise
    return sock  # type: ignore[no-any-return]  # gevent's socket has socket.socket's API


def run(frontier: Frontier) -> None:
    jobs = gevent.queue.JoinableQueue()
    for job in frontier.start():
        jobs.put(job)
    # A greenlet runs until it blocks on a socket or the queue, so nothing preempts the
    # frontier's code: no locks.
    crew = Workers(frontier, jobs, contextlib.nullcontext(), contextlib.nullcontext(), connect)
    workers = [gevent.spawn(crew.work) for _ in range(frontier.config.concurrency)]
    jobs.join()  # every job done (after a failure, the rest drained)
    crew.stop(len(workers))
    gevent.joinall(workers)
    crew.raise_failure()
