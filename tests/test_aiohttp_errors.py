"""aiohttp's exceptions mapped to the contract's error kinds, and its headers as the core's (the
faults, fault by fault, against the raw models: tests/test_client_faults.py)."""

from __future__ import annotations

import asyncio
import errno
import os

import aiohttp
import pytest
from aiohttp.client_reqrep import ConnectionKey

from impls.core import ErrorKind, ResourceLimit, Response
from impls.models import aiohttp_adapters, aiohttp_client, asyncio_streams
from tests.fault_server import client_of, fault_server, frontier_for, job_for

AIOHTTP = client_of(aiohttp_adapters.new_session, aiohttp_client.fetch)


async def both_responses(path: str) -> tuple[Response, Response]:
    requests: list[str] = []
    async with fault_server(requests) as port:
        frontier = frontier_for(port)
        job = job_for(frontier, path)
        async with AIOHTTP(frontier) as fetch:
            return await asyncio_streams.fetch(
                job, frontier, [], asyncio_streams.open_stream
            ), await fetch(job)


def test_headers_are_converted_as_the_core_parses_them() -> None:
    raw, via_aiohttp = asyncio.run(both_responses("/headers"))
    assert via_aiohttp == raw
    assert raw.headers["x-twice"] == "a, b"
    assert raw.headers["location"] == b"/caf\xc3\xa9?q=\xff".decode("latin-1")


def connector_error(code: int) -> aiohttp.ClientConnectorError:
    key = ConnectionKey("127.0.0.1", 80, False, True, None, None, None)
    return aiohttp.ClientConnectorError(key, OSError(code, os.strerror(code)))


def test_connector_errors_map_by_errno() -> None:
    assert aiohttp_adapters.error_kind(connector_error(errno.ECONNREFUSED)) == ErrorKind.CONNECT
    assert aiohttp_adapters.error_kind(connector_error(errno.ENETUNREACH)) == ErrorKind.CONNECT
    with pytest.raises(ResourceLimit):  # out of file descriptors ends the crawl
        aiohttp_adapters.error_kind(connector_error(errno.EMFILE))


def test_server_disconnected_before_any_byte_is_reset() -> None:
    assert aiohttp_adapters.error_kind(aiohttp.ServerDisconnectedError()) == ErrorKind.RESET


def test_unknown_exception_is_not_swallowed() -> None:
    with pytest.raises(ValueError):
        aiohttp_adapters.error_kind(ValueError("a bug"))
