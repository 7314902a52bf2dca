"""The gevent model: the threads model's blocking code on greenlets, scheduled by gevent's hub.

N greenlets take jobs from a gevent.queue.JoinableQueue and fetch with gevent's own
sockets, which look blocking to the greenlet and yield to the hub instead. Nothing is
monkey-patched: the stdlib stays as it is for the harness and every other model.
"""

from __future__ import annotations

import contextlib
import socket

import gevent
import gevent.event
import gevent.lock
import gevent.queue
import gevent.socket

from impls.core import Frontier
from impls.models.blocking import Workers
from impls.partition.blocking_link import BlockingLink, crawl_partitioned
from impls.sockets import address_family


def connect(address: tuple[str, int], timeout: float) -> socket.socket:
    """A connected gevent socket whose blocking calls wait for at most `timeout` seconds.

    Not gevent.socket.create_connection: it resolves even an address literal on gevent's
    resolver, a pool of OS threads; the crawl's address is resolved already."""
    sock = gevent.socket.socket(address_family(address[0]), socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(address)
    except BaseException:
        sock.close()
        raise
    return sock  # type: ignore[no-any-return]  # gevent's socket has socket.socket's API


def run(frontier: Frontier) -> None:
    jobs = gevent.queue.JoinableQueue()
    # A greenlet runs until it blocks on a socket or the queue, so nothing preempts the
    # frontier's code: no locks.
    crew = Workers(frontier, jobs, contextlib.nullcontext(), contextlib.nullcontext(), connect)

    def start_workers() -> list[gevent.Greenlet]:
        return [gevent.spawn(crew.work) for _ in range(frontier.config.concurrency)]

    if frontier.partition is None:
        crew.queue_root()
        workers = start_workers()
        jobs.join()
        crew.stop(len(workers))
    else:  # one process of many: the crawl ends when the coordinator says so
        with gevent.socket.socket(fileno=frontier.partition.channel_fd) as channel:
            # A send to the coordinator may yield: a semaphore keeps the link's bytes in order.
            link = BlockingLink(crew, channel, gevent.event.Event(), gevent.lock.Semaphore())
            workers = crawl_partitioned(link, gevent.spawn, start_workers)
    gevent.joinall(workers)
    crew.raise_failure()
