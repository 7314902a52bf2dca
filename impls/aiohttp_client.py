"""The aiohttp model: the chapter's stage 3, aiohttp.ClientSession driven by N worker tasks."""

from __future__ import annotations

import asyncio
import time

import aiohttp
from yarl import URL

from c10k.system import uvloop_loop_factory
from impls import asyncio_streams
from impls.aiohttp_adapters import convert_headers, error_kind, new_session, read_body
from impls.core import FetchError, Frontier, Job
from impls.core.outcomes import Response


async def fetch(session: aiohttp.ClientSession, job: Job, frontier: Frontier) -> Response:
    """One try of one URL: aiohttp's response, converted to the core's Response."""
    origin, config = frontier.origin, frontier.config
    # encoded=True: the target goes on the wire as the other models send it, not quoted again.
    url = URL(f"{origin.scheme}://{origin.netloc}{origin.request_target(job.url)}", encoded=True)
    try:
        async with session.get(url, allow_redirects=False) as response:
            headers = convert_headers(response.raw_headers)
            return Response(response.status, headers, await read_body(response, config.max_body))
    except (aiohttp.ClientError, OSError) as exc:  # TimeoutError is an OSError
        raise FetchError(error_kind(exc), str(exc) or type(exc).__name__) from exc


async def work(
    session: aiohttp.ClientSession, frontier: Frontier, queue: asyncio.Queue[Job]
) -> None:
    """The chapter's worker: take a job, fetch it, queue what the frontier says, forever.

    The session's connector counts the connections (opened before connect, closed after
    close), so the worker counts nothing: in keep-alive mode a connection outlives a fetch.
    """
    while True:
        job = await queue.get()
        started = time.perf_counter()
        try:
            response = await fetch(session, job, frontier)
        except FetchError as exc:
            new_jobs = frontier.on_error(job, exc.kind, time.perf_counter() - started)
        else:
            new_jobs = frontier.on_response(job, response, time.perf_counter() - started)
        for new_job in new_jobs:
            queue.put_nowait(new_job)
        queue.task_done()


async def crawl(frontier: Frontier) -> None:
    """The chapter's crawl(): N workers on one queue and one session, until the queue is joined."""
    queue: asyncio.Queue[Job] = asyncio.Queue()
    for job in frontier.start():
        queue.put_nowait(job)
    async with new_session(frontier) as session:
        # A worker ends only by raising (ResourceLimit or a bug): the group then cancels the
        # others and the join, and the first failure is raised as itself.
        try:
            async with asyncio.TaskGroup() as group:
                workers = [
                    group.create_task(work(session, frontier, queue))
                    for _ in range(frontier.config.concurrency)
                ]
                await queue.join()
                for worker in workers:
                    worker.cancel()
        except BaseExceptionGroup as failures:
            raise failures.exceptions[0] from None


def run(frontier: Frontier) -> None:
    asyncio_streams.run_on(crawl(frontier))  # asyncio's own selector loop


def run_uvloop(frontier: Frontier) -> None:
    asyncio_streams.run_on(crawl(frontier), uvloop_loop_factory())
