"""What the async/await models share: one try of a job, timed and recorded in the frontier."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from impls.core import FetchError, Frontier, Job
from impls.core.outcomes import Response

Fetch = Callable[[Job], Awaitable[Response]]  # one try of one job; raises FetchError


async def fetch_and_record(frontier: Frontier, job: Job, fetch: Fetch) -> list[Job]:
    """Fetch the job, record its outcome (a response or an error kind) with the time it
    took, and return the new jobs the frontier hands back: links, redirects or a retry."""
    started = time.perf_counter()
    try:
        response = await fetch(job)
    except FetchError as exc:
        return frontier.on_error(job, exc.kind, time.perf_counter() - started)
    return frontier.on_response(job, response, time.perf_counter() - started)


def first_failure(exc: BaseException) -> BaseException:
    """The first exception in a (nested) exception group: what the CLI expects to see."""
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc
