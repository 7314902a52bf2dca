"""The private aiohttp API of impls/models/aiohttp_private.py, checked on the installed aiohttp."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import socket
from collections.abc import AsyncIterator

import aiohttp
import pytest

from impls.models import aiohttp_private
from tests.asyncio_helpers import LOOPS, reset, run_on

# Written and checked against aiohttp 3.14.5: every release from FIRST up to (not
# including) PAST is expected to keep the private API below. Outside it, re-check each
# function of impls/models/aiohttp_private.py against aiohttp's source, then move the range.
FIRST, PAST = (3, 14), (3, 15)
VERSION = aiohttp.__version__


def changed(api: str, how: str) -> str:
    """The failure message: which private API the installed aiohttp changed, and how."""
    return (
        f"aiohttp {VERSION} changed its private {api}: {how} (see impls/models/aiohttp_private.py)"
    )


@contextlib.asynccontextmanager
async def server(reply: bytes, then: str, connections: list[int]) -> AsyncIterator[str]:
    """A server on 127.0.0.1 that answers every request with `reply`, then closes or resets.

    Yields a URL on it; each connection appends 1 to `connections`.
    """

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        await reader.readuntil(b"\r\n\r\n")
        writer.write(reply)
        await writer.drain()
        if then == "reset":
            reset(writer)
        writer.close()

    listener = await asyncio.start_server(handle, "127.0.0.1", 0)
    async with listener:
        yield f"http://127.0.0.1:{listener.sockets[0].getsockname()[1]}/"


def session() -> aiohttp.ClientSession:
    return aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5))


async def failure_of(reply: bytes, then: str, read_body: bool = False) -> BaseException:
    """The exception aiohttp raises when a GET (and, if asked, its body) meets this server."""
    async with server(reply, then, []) as url, session() as client:
        try:
            async with client.get(url) as response:
                if read_body:
                    await response.read()
        except aiohttp.ClientError as exc:
            return exc
    raise AssertionError(f"aiohttp {VERSION} raised nothing for {reply!r}, then {then}")


def test_installed_aiohttp_is_in_the_range_these_checks_were_written_against() -> None:
    installed = tuple(int(part) for part in VERSION.split(".")[:2])
    assert FIRST <= installed < PAST, (
        f"aiohttp {VERSION} is outside {FIRST} to {PAST} (not included), the range that "
        "tests/test_aiohttp_private_api.py was written against: re-check every private API "
        "of impls/models/aiohttp_private.py against this release, then move FIRST and PAST "
        "and the aiohttp bound in pyproject.toml"
    )


# --- ClientSession._retry_connection (turn_off_hidden_retry) ---------------------------


async def connections_for_one_get(turn_off: bool) -> int:
    """How many connections one GET opens against a server that closes before any byte."""
    connections: list[int] = []
    async with server(b"", "close", connections) as url, session() as client:
        if turn_off:
            aiohttp_private.turn_off_hidden_retry(client)
        with contextlib.suppress(aiohttp.ServerDisconnectedError):
            await (await client.get(url)).release()
    return len(connections)


def test_retry_connection_is_an_attribute_that_defaults_to_on() -> None:
    async def default() -> object:
        async with session() as client:
            return getattr(client, "_retry_connection", "missing")

    assert asyncio.run(default()) is True, changed(
        "ClientSession._retry_connection", "no longer an attribute that is True by default"
    )


def test_aiohttp_still_retries_a_get_by_itself() -> None:
    # Else the hidden retry is gone, and turn_off_hidden_retry may be too.
    assert asyncio.run(connections_for_one_get(turn_off=False)) == 2, changed(
        "ClientSession._retry_connection", "a GET is no longer sent again after a disconnect"
    )


def test_retry_connection_false_turns_the_retry_off() -> None:
    assert asyncio.run(connections_for_one_get(turn_off=True)) == 1, changed(
        "ClientSession._retry_connection", "setting it to False no longer stops the retry"
    )


# --- ResponseHandler.exception() (watch_connection_error) ------------------------------


async def error_after_eof_body(then: str) -> tuple[object, BaseException | None]:
    """The response's protocol, and the error it kept, after a body delimited by EOF."""
    reply = b"HTTP/1.1 200 OK\r\n\r\n" + b"x" * 50
    async with server(reply, then, []) as url, session() as client, client.get(url) as response:
        protocol = response.connection.protocol if response.connection else None
        connection_error = aiohttp_private.watch_connection_error(response)
        while await response.content.readany():
            pass
        return protocol, connection_error()


@pytest.mark.parametrize("loop", LOOPS)
def test_response_handler_keeps_a_reset_at_the_end_of_an_eof_body(loop: str) -> None:
    protocol, error = run_on(loop, error_after_eof_body("reset"))
    api = "aiohttp.client_proto.ResponseHandler"
    assert isinstance(protocol, aiohttp.client_proto.ResponseHandler), changed(
        api, f"the response's connection.protocol is a {type(protocol).__name__}"
    )
    assert isinstance(error, OSError) and error.errno == errno.ECONNRESET, changed(
        f"{api}.exception()", f"after a reset it gives {error!r}, not an ECONNRESET OSError"
    )


@pytest.mark.parametrize("loop", LOOPS)
def test_response_handler_keeps_no_os_error_at_a_clean_close(loop: str) -> None:
    _, error = run_on(loop, error_after_eof_body("close"))
    # aiohttp 3.14 keeps ServerDisconnectedError there, which is no OSError.
    assert not isinstance(error, OSError), changed(
        "aiohttp.client_proto.ResponseHandler.exception()", f"after a clean close: {error!r}"
    )


# --- RawResponseMessage as ServerDisconnectedError.message (disconnected_mid_head) -----


@pytest.mark.parametrize(
    ("reply", "mid_head"), [(b"HTTP/1.1 200 OK\r\nContent-Le", True), (b"", False)]
)
def test_server_disconnected_carries_the_partial_head(reply: bytes, mid_head: bool) -> None:
    exc = asyncio.run(failure_of(reply, "close"))
    assert isinstance(exc, aiohttp.ServerDisconnectedError), changed(
        "ServerDisconnectedError", f"a close after {reply!r} raises {exc!r}"
    )
    assert aiohttp_private.disconnected_mid_head(exc) is mid_head, changed(
        "aiohttp.http.RawResponseMessage",
        f"a close after {reply!r} gives ServerDisconnectedError.message={exc.message!r}",
    )


# --- the text of ClientPayloadError (payload_error_names_reset) ------------------------

OK_HEAD = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
CHUNKED_HEAD = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
CUT_BODIES = {"content-length": OK_HEAD + b"x" * 50, "chunked": CHUNKED_HEAD + b"10\r\nabc"}


@pytest.mark.parametrize("then", ["reset", "close"])
@pytest.mark.parametrize("body", CUT_BODIES)
def test_payload_error_text_names_a_reset_only_after_one(body: str, then: str) -> None:
    exc = asyncio.run(failure_of(CUT_BODIES[body], then, read_body=True))
    assert isinstance(exc, aiohttp.ClientPayloadError), changed(
        "ClientPayloadError", f"a {body} body cut by a {then} raises {exc!r}"
    )
    assert aiohttp_private.payload_error_names_reset(exc) is (then == "reset"), changed(
        f"text of ClientPayloadError (matched for {aiohttp_private.RESET_ERROR_NAMES})",
        f"a {body} body cut by a {then} gives {str(exc)!r}",
    )


# --- BaseConnector._factory, _create_connection(), _get() (CountingConnector) ----------

KEPT_REPLY = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


@contextlib.asynccontextmanager
async def kept_server(connections: list[int], close_after: bool = False) -> AsyncIterator[str]:
    """A server that answers request after request on a connection (or closes after one)."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            while await reader.readuntil(b"\r\n\r\n"):
                writer.write(KEPT_REPLY)
                await writer.drain()
                if close_after:
                    break
        writer.close()

    listener = await asyncio.start_server(handle, "127.0.0.1", 0)
    async with listener:
        yield f"http://127.0.0.1:{listener.sockets[0].getsockname()[1]}/"


def counting_session(events: list[str]) -> aiohttp.ClientSession:
    connector = aiohttp_private.CountingConnector(
        lambda: events.append("opened"), lambda: events.append("closed"), keepalive_timeout=None
    )
    return aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=5))


async def get(
    client: aiohttp.ClientSession, url: str, fresh: bool = False
) -> aiohttp_private.CountedConnection | None:
    """One GET, its body read; the counted connection it was made on (None: not counted)."""
    attempt = aiohttp_private.Attempt(fresh=fresh)
    token = aiohttp_private.CURRENT_ATTEMPT.set(attempt)
    try:
        async with client.get(url) as response:
            await response.read()
    finally:
        aiohttp_private.CURRENT_ATTEMPT.reset(token)
    return attempt.connection


async def three_gets_then_a_fresh_one() -> tuple[
    list[str], list[int], list[aiohttp_private.CountedConnection | None], list[str]
]:
    events: list[str] = []
    connections: list[int] = []
    async with kept_server(connections) as url:
        async with counting_session(events) as client:
            protocols = [await get(client, url) for _ in range(3)]
            during = list(events)
            protocols.append(await get(client, url, fresh=True))
        return during, connections, protocols, events


@pytest.mark.parametrize("loop", LOOPS)
def test_a_new_connection_is_made_by_create_connection_and_reused_from_the_pool(
    loop: str,
) -> None:
    during, connections, protocols, events = run_on(loop, three_gets_then_a_fresh_one())
    first = protocols[0]
    assert first is not None, changed(
        "BaseConnector._factory", "a new connection's protocol is not the one it made"
    )
    assert during == ["opened"] and protocols[:3] == [first] * 3, changed(
        "BaseConnector._create_connection()", f"three GETs on a kept connection gave {during}"
    )
    assert (first.requests, first.bytes_received) == (3, 3 * len(KEPT_REPLY)), changed(
        "ResponseHandler.data_received()", f"{first.bytes_received} bytes after 3 replies"
    )
    assert protocols[3] is not first and len(connections) == 2, changed(
        "BaseConnector._get()", "None no longer makes connect() open a new connection"
    )
    # Both closed when the session closes, each reported once.
    assert events == ["opened", "opened", "closed", "closed"], changed(
        "ResponseHandler.close()", f"the connector's events were {events}"
    )


async def events_of_a_refused_connect() -> list[str]:
    events: list[str] = []
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
        async with counting_session(events) as client:
            with contextlib.suppress(aiohttp.ClientConnectorError):
                await get(client, url)
    return events


def test_a_refused_connect_is_counted_closed() -> None:
    events = asyncio.run(events_of_a_refused_connect())
    assert events == ["opened", "closed"], changed(
        "BaseConnector._create_connection()", f"a refused connect gave {events}"
    )


async def events_of_a_close_in_the_pool() -> tuple[list[str], list[str]]:
    events: list[str] = []
    async with kept_server([], close_after=True) as url, counting_session(events) as client:
        protocol = await get(client, url)
        assert protocol is not None
        while protocol.transport is not None:  # until connection_lost(), not timed
            await asyncio.sleep(0.01)
        in_the_pool = list(events)
    return in_the_pool, events


@pytest.mark.parametrize("loop", LOOPS)
def test_a_close_by_the_server_in_the_pool_is_counted_once(loop: str) -> None:
    in_the_pool, events = run_on(loop, events_of_a_close_in_the_pool())
    assert in_the_pool == ["opened", "closed"], changed(
        "ResponseHandler.connection_lost()", f"a close in the pool gave {in_the_pool}"
    )
    assert events == ["opened", "closed"], changed(
        "ResponseHandler.close()", f"the session's close after it gave {events}"
    )
