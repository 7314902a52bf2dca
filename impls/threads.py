"""The threads model: blocking sockets, N worker threads, queue.Queue with task_done/join."""

from __future__ import annotations

import queue
import socket
import threading

from impls.blocking import Workers
from impls.core import Frontier, Job, ResourceLimit


def run(frontier: Frontier) -> None:
    config = frontier.config
    jobs: queue.Queue[Job | None] = queue.Queue()
    # Two locks: the frontier, shared by every worker, and its connection count apart.
    crew = Workers(frontier, jobs, threading.Lock(), threading.Lock(), socket.create_connection)
    crew.queue_root()
    if config.stack_size:
        threading.stack_size(config.stack_size)
    workers = []
    try:
        for _ in range(config.concurrency):
            thread = threading.Thread(target=crew.work, daemon=True)
            thread.start()
            workers.append(thread)
    except RuntimeError as exc:  # "can't start new thread": a limit of the machine
        crew.failures.append(ResourceLimit(f"started {len(workers)} threads, then: {exc}"))
        if not workers:
            raise crew.failures[0] from exc
    jobs.join()
    crew.stop(len(workers))
    for thread in workers:
        thread.join()
    crew.raise_failure()
