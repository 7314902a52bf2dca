"""The threads model: blocking sockets, N worker threads, queue.Queue with task_done/join."""

from __future__ import annotations

import queue
import socket
import threading
from collections.abc import Callable

from impls.core import Frontier, Job, ResourceLimit
from impls.models.blocking import Workers
from impls.partition.blocking_link import BlockingLink, crawl_partitioned


def start_threads(crew: Workers) -> list[threading.Thread]:
    """One thread per unit of concurrency; fewer if the machine refuses one (then the
    failure is recorded and the crawl drains), none only by raising."""
    config = crew.frontier.config
    if config.stack_size:
        threading.stack_size(config.stack_size)
    workers: list[threading.Thread] = []
    try:
        for _ in range(config.concurrency):
            thread = threading.Thread(target=crew.work, daemon=True)
            thread.start()
            workers.append(thread)
    except RuntimeError as exc:  # "can't start new thread": a limit of the machine
        crew.failures.append(ResourceLimit(f"started {len(workers)} threads, then: {exc}"))
        if not workers:
            raise crew.failures[0] from exc
    return workers


def start_daemon(target: Callable[[], None]) -> None:
    threading.Thread(target=target, daemon=True).start()


def run(frontier: Frontier) -> None:
    jobs: queue.Queue[Job | None] = queue.Queue()
    # Two locks: the frontier, shared by every worker, and its connection count apart.
    crew = Workers(frontier, jobs, threading.Lock(), threading.Lock(), socket.create_connection)
    if frontier.partition is None:
        crew.queue_root()
        workers = start_threads(crew)
        jobs.join()
        crew.stop(len(workers))
    else:  # one process of many: the crawl ends when the coordinator says so
        with socket.socket(fileno=frontier.partition.channel_fd) as channel:
            link = BlockingLink(crew, channel, threading.Event(), crew.lock)
            workers = crawl_partitioned(link, start_daemon, lambda: start_threads(crew))
    for thread in workers:
        thread.join()
    crew.raise_failure()
