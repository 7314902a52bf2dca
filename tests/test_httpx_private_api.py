"""The private httpx and httpcore API of impls/models/httpx_private.py, checked on the
installed releases, and the httpcore bugs its workarounds are for, still there."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import socket
import ssl
from collections.abc import AsyncIterator

import httpcore
import httpx
import pytest

from impls.models import httpx_adapters, httpx_private

# Written and checked against httpx 0.28.1 and httpcore 1.0.9: every release from FIRST up
# to (not including) PAST is expected to keep the private API below. Outside it, re-check
# each class and function of impls/models/httpx_private.py against the source, then move
# the range and the bounds in pyproject.toml.
RANGES = {httpx: ((0, 28), (0, 29)), httpcore: ((1, 0), (1, 1))}

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
JUNK = b"\x00junk"


def changed(api: str, how: str) -> str:
    """The failure message: which private API the installed release changed, and how."""
    versions = f"httpx {httpx.__version__}, httpcore {httpcore.__version__}"
    return f"{versions} changed {api}: {how} (see impls/models/httpx_private.py)"


@pytest.mark.parametrize("module", RANGES, ids=lambda module: module.__name__)
def test_installed_releases_are_in_the_range_these_checks_were_written_against(
    module: object,
) -> None:
    version = str(getattr(module, "__version__", ""))
    first, past = RANGES[module]  # type: ignore[index]
    installed = tuple(int(part) for part in version.split(".")[:2])
    assert first <= installed < past, (
        f"{getattr(module, '__name__', '')} {version} is outside {first} to {past} (not "
        "included), the range that tests/test_httpx_private_api.py was written against: "
        "re-check every private API of impls/models/httpx_private.py against this release"
    )


@contextlib.asynccontextmanager
async def server(replies: list[bytes], connections: list[int]) -> AsyncIterator[str]:
    """A server on 127.0.0.1 that answers the requests of each connection with `replies` in
    turn (the last one again and again); each connection appends 1 to `connections`."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        answered = 0
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            while await reader.readuntil(b"\r\n\r\n"):
                writer.write(replies[min(answered, len(replies) - 1)])
                answered += 1
                await writer.drain()
        writer.close()

    listener = await asyncio.start_server(handle, "127.0.0.1", 0)
    async with listener:
        yield f"http://127.0.0.1:{listener.sockets[0].getsockname()[1]}/"


def counting_pool(made: list[httpcore.AsyncConnectionInterface]) -> httpx_private.Pool:
    class Counting(httpx_private.Pool):
        def create_connection(self, origin: httpcore.Origin) -> httpcore.AsyncConnectionInterface:
            made.append(super().create_connection(origin))
            return made[-1]

    return Counting(httpcore.AnyIOBackend(), connections=4, kept=4)


async def get(client: httpx.AsyncClient, url: str, fresh: bool = False) -> int:
    attempt = httpx_private.Attempt(fresh=fresh)
    token = httpx_private.CURRENT_ATTEMPT.set(attempt)
    try:
        return (await client.get(url)).status_code
    finally:
        httpx_private.CURRENT_ATTEMPT.reset(token)


# --- AsyncHTTPTransport._pool, AsyncConnectionPool.create_connection() ----------------------


def test_the_transport_loads_no_ca_bundle_for_the_pool_it_does_not_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Loading the CA bundle took about 25 ms of each crawl; the transport's own pool, for which
    it was made, is replaced."""

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("the transport loaded a CA bundle")

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", refused)
    made: list[httpcore.AsyncConnectionInterface] = []
    pool = counting_pool(made)
    assert httpx_private.transport_on(pool)._pool is pool


async def requests_through_our_pool(
    fresh_third: bool,
) -> tuple[list[httpcore.AsyncConnectionInterface], list[int]]:
    made: list[httpcore.AsyncConnectionInterface] = []
    connections: list[int] = []
    async with server([OK], connections) as url:
        transport = httpx_private.transport_on(counting_pool(made))
        async with httpx.AsyncClient(transport=transport) as client:
            for fresh in (False, False, fresh_third, False):
                assert await get(client, url, fresh) == 200
    return made, connections


def test_the_transport_has_a_pool_it_sends_through() -> None:
    pool = getattr(httpx.AsyncHTTPTransport(), "_pool", None)
    assert isinstance(pool, httpcore.AsyncConnectionPool), changed(
        "AsyncHTTPTransport._pool", f"it is {pool!r}"
    )
    made, connections = asyncio.run(requests_through_our_pool(fresh_third=False))
    assert len(made) == len(connections) == 1, changed(
        "AsyncHTTPTransport._pool or AsyncConnectionPool.create_connection()",
        f"4 GETs on a kept connection made {len(made)} connections of the pool's, "
        f"{len(connections)} in all",
    )
    assert isinstance(made[0], httpx_private.Connection)
    assert made[0].requests == 4


def test_a_fresh_attempt_is_given_a_new_connection_and_the_kept_one_stays() -> None:
    made, connections = asyncio.run(requests_through_our_pool(fresh_third=True))
    # The pool asked is_available() in the task that sends: the fresh attempt got a new one.
    assert len(made) == len(connections) == 2, changed(
        "AsyncConnectionPool._assign_requests_to_connections()",
        f"a fresh attempt among 4 GETs made {len(made)} connections",
    )
    assert [getattr(connection, "requests", 0) for connection in made] in ([3, 1], [2, 2])


# --- AsyncHTTPConnection._connection, AsyncHTTP11Connection._h11_state ----------------------


async def junk_after_the_first_response() -> tuple[list[int], bytes]:
    made: list[httpcore.AsyncConnectionInterface] = []
    connections: list[int] = []
    async with server([OK + JUNK, OK], connections) as url:
        transport = httpx_private.transport_on(counting_pool(made))
        async with httpx.AsyncClient(transport=transport) as client:
            assert await get(client, url) == 200
            http11 = getattr(made[0], "_connection", None)
            state = getattr(http11, "_h11_state", None)
            waiting, _ = getattr(state, "trailing_data", (b"", False))
            assert await get(client, url) == 200
    return connections, waiting


def test_bytes_after_a_whole_response_end_the_connection() -> None:
    connections, waiting = asyncio.run(junk_after_the_first_response())
    assert waiting == JUNK, changed(
        "AsyncHTTPConnection._connection._h11_state.trailing_data",
        f"bytes after a whole response are not found there ({waiting!r})",
    )
    assert len(connections) == 2, changed(
        "AsyncConnectionPool (has_expired)", "a connection with bytes waiting was reused"
    )


# --- the errors' causes: the socket's OSError under httpcore's and anyio's ------------------


async def refused() -> BaseException:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
        async with httpx.AsyncClient() as client:
            try:
                await client.get(url)
            except httpx.ConnectError as exc:
                return exc
    raise AssertionError("no ConnectError")


def test_a_refused_connect_keeps_its_errno_among_the_causes() -> None:
    error = httpx_adapters.os_error_in(asyncio.run(refused()))
    assert error is not None and error.errno == errno.ECONNREFUSED, changed(
        "the causes of httpx.ConnectError", f"the socket's error is not among them ({error!r})"
    )


# --- the httpcore bugs worked around, still there (when one is fixed, drop its workaround) --


def test_httpcore_still_counts_every_connection_as_idle_surplus() -> None:
    """encode/httpcore#1035: one idle connection of two, max_keepalive_connections=1, and
    the pool closes it. When this fails, Connection.is_idle() may go back to httpcore's."""

    class Stub(httpcore.AsyncHTTPConnection):
        def __init__(self, idle: bool) -> None:
            super().__init__(httpcore.Origin(b"http", b"127.0.0.1", 80))
            self.idle = idle

        def is_idle(self) -> bool:
            return self.idle

        def has_expired(self) -> bool:
            return False

        def is_closed(self) -> bool:
            return False

    pool = httpcore.AsyncConnectionPool(max_connections=4, max_keepalive_connections=1)
    idle = Stub(idle=True)
    pool._connections = [Stub(idle=False), idle]
    closing = pool._assign_requests_to_connections()
    assert closing == [idle], "httpcore fixed #1035: Connection.is_idle() may be httpcore's again"
