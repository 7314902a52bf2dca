"""httpx's exceptions mapped to the contract's error kinds, fault by fault, as the raw models;
the body limit; the stale connection's one retry; the bytes of the request line."""

from __future__ import annotations

import asyncio
import errno
import socket
from collections.abc import Awaitable

import httpcore
import httpx
import pytest

from impls.core import ErrorKind, Job, ResourceLimit, Response
from impls.models import asyncio_streams, httpx_adapters, httpx_client
from tests.test_aiohttp_errors import (
    FAULTS,
    KEPT,
    LENIENT_IN_AIOHTTP_ONLY,
    fault_server,
    frontier_for,
    job_for,
    outcome,
)
from tests.tinysite import TinySite

# The faults that end a reused connection before any byte of the response, as a server
# does that closes an idle connection just as it is reused: keep-alive mode sends the
# request once more, on a new connection (where the fault comes again and counts).
ENDED_BEFORE_ANY_BYTE = {"/reset", "/close"}


async def both_outcomes(
    path: str, keep_alive: bool = False
) -> tuple[int | ErrorKind, int | ErrorKind, list[str]]:
    """The outcome of one fetch by the raw streams and by httpx, and the requests made."""
    requests: list[str] = []
    async with fault_server(requests) as port:
        frontier = frontier_for(port, keep_alive)
        async with httpx_adapters.new_client(frontier) as client:
            raw, via_httpx = await asyncio.gather(
                outcome(
                    lambda job: asyncio_streams.fetch(job, frontier, []), job_for(frontier, path)
                ),
                outcome(
                    lambda job: httpx_client.fetch(client, job, frontier), job_for(frontier, path)
                ),
            )
    return raw, via_httpx, requests


@pytest.mark.parametrize("keep_alive", [False, True], ids=["close", "keep-alive"])
@pytest.mark.parametrize("path", FAULTS)
def test_httpx_and_raw_streams_agree_on_each_fault(path: str, keep_alive: bool) -> None:
    expected = FAULTS[path][1]
    # Two requests, the same target: one each, so httpx retried nothing by itself.
    assert asyncio.run(both_outcomes(path, keep_alive)) == (expected, expected, [path, path])


@pytest.mark.parametrize("path", LENIENT_IN_AIOHTTP_ONLY)
def test_lenient_parsing_agrees(path: str) -> None:
    raw, via_httpx, _ = asyncio.run(both_outcomes(path))
    assert raw == via_httpx == 200


async def outcome_on_a_reused_connection(path: str) -> tuple[int | ErrorKind, list[str]]:
    """The outcome of a fetch on a connection that served KEPT first, and the requests."""
    requests: list[str] = []
    async with fault_server(requests) as port:
        frontier = frontier_for(port, keep_alive=True)
        async with httpx_adapters.new_client(frontier) as client:

            def fetch(job: Job) -> Awaitable[Response]:
                return httpx_client.fetch(client, job, frontier)

            assert await outcome(fetch, job_for(frontier, KEPT)) == 200
            return await outcome(fetch, job_for(frontier, path)), requests


@pytest.mark.parametrize("path", FAULTS)
def test_a_reused_connection_is_retried_once_only_before_any_byte(path: str) -> None:
    sent = [path, path] if path in ENDED_BEFORE_ANY_BYTE else [path]
    assert asyncio.run(outcome_on_a_reused_connection(path)) == (FAULTS[path][1], [KEPT, *sent])


def test_refused_connection_is_connect() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        frontier = frontier_for(sock.getsockname()[1])

        async def fetch() -> int | ErrorKind:
            async with httpx_adapters.new_client(frontier) as client:
                return await outcome(
                    lambda job: httpx_client.fetch(client, job, frontier), job_for(frontier, "/")
                )

        assert asyncio.run(fetch()) == ErrorKind.CONNECT
    assert (frontier.peak_in_flight, frontier.in_flight) == (1, 0)


def raised_from(os_error: OSError, wrapper: type[httpx.TransportError]) -> httpx.TransportError:
    """An httpx error raised as httpx raises it: from httpcore's, from anyio's OSError."""
    try:
        try:
            try:
                raise OSError("All connection attempts failed") from os_error
            except OSError as exc:
                raise httpcore.ConnectError(str(exc)) from exc
        except httpcore.ConnectError as exc:
            raise wrapper(str(exc)) from exc
    except httpx.TransportError as exc:
        return exc


def test_connect_errors_map_by_errno() -> None:
    for code, kind in ((errno.ECONNREFUSED, ErrorKind.CONNECT), (errno.ENETUNREACH, "connect")):
        exc = raised_from(OSError(code, "failed"), httpx.ConnectError)
        assert httpx_adapters.error_kind(exc, 0) == kind
    with pytest.raises(ResourceLimit):  # out of file descriptors ends the crawl
        httpx_adapters.error_kind(raised_from(OSError(errno.EMFILE, "x"), httpx.ConnectError), 0)


def test_a_read_error_is_a_reset_and_a_closed_head_depends_on_the_bytes() -> None:
    reset = raised_from(ConnectionResetError(errno.ECONNRESET, "reset"), httpx.ReadError)
    assert httpx_adapters.error_kind(reset, 10) == ErrorKind.RESET
    closed = httpx.RemoteProtocolError("Server disconnected without sending a response.")
    assert httpx_adapters.error_kind(closed, 0) == ErrorKind.RESET
    assert httpx_adapters.error_kind(closed, 5) == ErrorKind.PROTOCOL
    assert httpx_adapters.error_kind(TimeoutError(), 5) == ErrorKind.TIMEOUT


def test_unknown_exception_is_not_swallowed() -> None:
    with pytest.raises(ValueError):
        httpx_adapters.error_kind(ValueError("a bug"), 0)


TARGETS = ["/caf%C3%A9?q=%zz&a=b", "/a%2Fb", "/x?y=/z"]


@pytest.mark.parametrize("target", TARGETS)
def test_the_request_line_carries_the_target_as_the_raw_models_send_it(target: str) -> None:
    """httpx would quote a URL's path again; the target extension sends it as given."""
    with TinySite({}) as site:
        frontier = frontier_for(int(site.root.rsplit(":", 1)[1].rstrip("/")))
        job = job_for(frontier, target)

        async def fetch() -> None:
            async with httpx_adapters.new_client(frontier) as client:
                assert (
                    await outcome(lambda job: httpx_client.fetch(client, job, frontier), job) == 404
                )
            assert await outcome(lambda job: asyncio_streams.fetch(job, frontier, []), job) == 404

        asyncio.run(fetch())
    assert site.hits == {target: 2}
