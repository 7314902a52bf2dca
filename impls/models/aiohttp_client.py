"""The aiohttp model: the chapter's stage 3, aiohttp.ClientSession driven by N worker tasks."""

from __future__ import annotations

import aiohttp
from yarl import URL

from c10k.system import loop_factory
from impls.core import FetchError, Frontier, Job
from impls.core.http_base import convert_headers
from impls.core.outcomes import Response
from impls.models import asyncio_streams
from impls.models.aiohttp_adapters import error_kind, new_session, read_body


async def fetch(session: aiohttp.ClientSession, job: Job, frontier: Frontier) -> Response:
    """One try of one URL: aiohttp's response, converted to the core's Response."""
    origin, config = frontier.origin, frontier.config
    # The URL names the address to connect to (aiohttp resolves no IP literal, so its
    # resolver cannot redirect one: --connect-to); the session's Host header names ROOT's.
    # encoded=True: the target goes on the wire as the other models send it, not quoted again.
    host = config.connect_host
    authority = f"[{host}]:{origin.port}" if ":" in host else f"{host}:{origin.port}"
    url = URL(f"{origin.scheme}://{authority}{origin.request_target(job.url)}", encoded=True)
    try:
        async with session.get(url, allow_redirects=False) as response:
            headers = convert_headers(response.raw_headers)
            return Response(response.status, headers, await read_body(response, config.max_body))
    except (aiohttp.ClientError, OSError) as exc:  # TimeoutError is an OSError
        raise FetchError(error_kind(exc), str(exc) or type(exc).__name__) from exc


async def crawl(frontier: Frontier) -> None:
    """The asyncio model's queue and N workers, each fetch made through one shared session,
    whose connector counts the connections (aiohttp_private.CountingConnector)."""
    async with new_session(frontier) as session:
        await asyncio_streams.crawl(frontier, lambda job: fetch(session, job, frontier))


def run(frontier: Frontier) -> None:
    asyncio_streams.run_on(crawl(frontier))  # asyncio's own selector loop


def run_uvloop(frontier: Frontier) -> None:
    asyncio_streams.run_on(crawl(frontier), loop_factory("uvloop"))
