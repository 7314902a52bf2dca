"""The httpx model: the chapter's stage 3 with another library, httpx.AsyncClient and N tasks."""

from __future__ import annotations

import asyncio

import httpx

from impls.core import FetchError, Frontier, Job
from impls.core.http_base import convert_headers
from impls.core.outcomes import Response
from impls.models import asyncio_streams
from impls.models.httpx_adapters import an_attempt, error_kind, new_client, read_body


async def fetch(client: httpx.AsyncClient, job: Job, frontier: Frontier) -> Response:
    """One try of one URL: httpx's response as the core's Response. The URL names ROOT (the
    backend connects where it was told); the target goes as the other models send it."""
    origin, config = frontier.origin, frontier.config
    target = origin.request_target(job.url).encode("ascii")
    with an_attempt() as attempt:
        try:
            # The whole fetch, connect to last byte, a stale connection's resend included.
            async with (
                asyncio.timeout(config.timeout),
                client.stream("GET", origin.root, extensions={"target": target}) as response,
            ):
                headers = convert_headers(response.headers.raw)
                body = await read_body(response, config.max_body)
                return Response(response.status_code, headers, body)
        except (httpx.TransportError, OSError) as exc:  # TimeoutError is an OSError
            kind = error_kind(exc, attempt.received)
            raise FetchError(kind, str(exc) or type(exc).__name__) from exc


async def crawl(frontier: Frontier) -> None:
    """The asyncio model's queue and N workers, each fetch made through one shared client,
    whose connections count themselves (httpx_adapters.CountingBackend)."""
    async with new_client(frontier) as client:
        await asyncio_streams.crawl(frontier, lambda job: fetch(client, job, frontier))


def run(frontier: Frontier) -> None:
    asyncio_streams.run_on(crawl(frontier))  # asyncio's own selector loop
