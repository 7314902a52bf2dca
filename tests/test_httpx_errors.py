"""httpx's exceptions mapped to the contract's error kinds, and the bytes of the request line
(the faults, fault by fault, against the raw models: tests/test_client_faults.py)."""

from __future__ import annotations

import asyncio
import errno

import httpcore
import httpx
import pytest

from impls.core import ErrorKind, ResourceLimit
from impls.models import asyncio_streams, httpx_adapters, httpx_client
from tests.fault_server import client_of, frontier_for, job_for, outcome
from tests.tinysite import TinySite

HTTPX = client_of(httpx_adapters.new_client, httpx_client.fetch)


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
            async with HTTPX(frontier) as via_httpx:
                assert await outcome(via_httpx, job) == 404
            assert (
                await outcome(
                    lambda job: asyncio_streams.fetch(
                        job, frontier, [], asyncio_streams.open_stream
                    ),
                    job,
                )
                == 404
            )

        asyncio.run(fetch())
    assert site.hits == {target: 2}
