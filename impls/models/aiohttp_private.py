"""Every use of aiohttp's private API, each behind one small function or class that says why."""

# aiohttp has no public way to do any of these, and each keeps the crawl contract
# (docs/contract.md) as the raw models keep it. tests/test_aiohttp_private_api.py checks
# each against the installed aiohttp and fails, naming the API, when a release changes it.

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, cast

import aiohttp
from aiohttp.client_proto import ResponseHandler
from aiohttp.http import RawResponseMessage

# The connection's error as aiohttp writes it into a ClientPayloadError's text (its repr).
RESET_ERROR_NAMES = ("ConnectionResetError", "BrokenPipeError")


def turn_off_hidden_retry(session: aiohttp.ClientSession) -> None:
    """Stop aiohttp (3.10+) sending a GET again when the connection resets or closes first:
    a hidden extra try (the Frontier owns retries; keep-alive mode makes the contract's
    narrower one itself, aiohttp_adapters.retry_on_a_fresh_connection). In aiohttp 3.14 it
    is `ClientSession._request`'s `retry_persistent_connection`; aiohttp's own test client
    sets `_retry_connection` the same way: there is no public switch.
    """
    session._retry_connection = False


def watch_connection_error(response: aiohttp.ClientResponse) -> Callable[[], BaseException | None]:
    """A getter of the error the response's connection ended with (an OSError after a
    reset), which only the private `ResponseHandler` keeps, in `exception()`: aiohttp ends a
    body delimited by EOF at a reset as at EOF. Call it before reading the body: aiohttp
    lets go of the connection when the body ends.
    """
    protocol: ResponseHandler | None = response.connection.protocol if response.connection else None
    return protocol.exception if protocol is not None else lambda: None


def disconnected_mid_head(exc: aiohttp.ServerDisconnectedError) -> bool:
    """Whether the server closed after some bytes of the head (else before any byte): then
    aiohttp hands the parser's partial message (a private `RawResponseMessage`) over as the
    error's `message`."""
    return isinstance(exc.message, RawResponseMessage)


def payload_error_names_reset(exc: aiohttp.ClientPayloadError) -> bool:
    """Whether a body cut short was cut by a reset (ECONNRESET/EPIPE), which aiohttp names
    only in the text ("Response payload is not completed: ... ConnectionResetError(...)")."""
    return any(name in str(exc) for name in RESET_ERROR_NAMES)


# --- each connection counted from connect to close; a fresh one on demand -----------------
# No public hook sees a connect fail, a connection close in the pool (TraceConfig sees a
# connect start; a socket_factory's socket is taken over by uvloop), the bytes before the
# parser, or opens a new connection while the pool holds an idle one. So the connector is
# subclassed where it makes and pools connections (three private names of BaseConnector),
# its protocol a subclass of the private ResponseHandler: asyncio's own methods, which
# every loop calls alike.


class CountedConnection(ResponseHandler):
    """aiohttp's protocol of one connection, which counts the bytes it receives and reports
    its end once: at the first of aiohttp's `close()` or `abort()` and the transport's
    `connection_lost()` (the server closed it in the pool), as the raw models report theirs
    right after their close(), not a loop iteration later.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(loop)
        self.bytes_received = 0  # every byte the socket delivered, to tell "before any byte"
        self.requests = 0  # requests sent on it: 2 or more, and it was reused
        self.on_closed: Callable[[], None] | None = None  # set by the connector once connected

    def data_received(self, data: bytes) -> None:
        self.bytes_received += len(data)
        super().data_received(data)

    def close(self) -> None:
        super().close()
        self._report_closed()

    def abort(self) -> None:
        super().abort()
        self._report_closed()

    def connection_lost(self, exc: BaseException | None) -> None:
        super().connection_lost(exc)
        self._report_closed()

    def _report_closed(self) -> None:
        on_closed, self.on_closed = self.on_closed, None
        if on_closed is not None:
            on_closed()


@dataclass
class Attempt:
    """One attempt of a request at a connection, as the connector saw it."""

    fresh: bool = False  # asked for a new connection, not one from the pool
    connection: CountedConnection | None = None
    bytes_before: int = 0  # the connection's bytes_received when the attempt took it

    def failed_before_the_response_on_a_reused_connection(self) -> bool:
        connection = self.connection
        return (
            connection is not None
            and connection.requests > 1
            and connection.bytes_received == self.bytes_before
        )


# Set around each attempt by the adapters' retry middleware, read by the connector (in
# the same task).
CURRENT_ATTEMPT: ContextVar[Attempt | None] = ContextVar("CURRENT_ATTEMPT", default=None)


class CountingConnector(aiohttp.TCPConnector):
    """A TCPConnector that calls opened() before each connect and closed() after each close,
    and opens a new connection for an attempt that asks for a fresh one. Private:
    `BaseConnector._factory` (the protocol factory), `_create_connection()` (called only for
    a new connection) and `_get()` (an idle pooled connection; None makes `connect()` open
    a new one).
    """

    def __init__(
        self, opened: Callable[[], None], closed: Callable[[], None], **options: Any
    ) -> None:
        super().__init__(**options)
        new_protocol = functools.partial(CountedConnection, self._loop)
        self._factory = cast("functools.partial[ResponseHandler]", new_protocol)
        self.report_opened = opened
        self.report_closed = closed

    async def _create_connection(self, *args: Any, **kwargs: Any) -> ResponseHandler:
        self.report_opened()
        try:
            connection = await super()._create_connection(*args, **kwargs)
        except BaseException:
            # Not connected, or connected and closed again (a timeout or cancellation
            # before aiohttp took it): the protocol, if any, was never handed over.
            self.report_closed()
            raise
        assert isinstance(connection, CountedConnection), "BaseConnector._factory changed"
        connection.on_closed = self.report_closed
        return connection

    async def _get(self, *args: Any, **kwargs: Any) -> aiohttp.connector.Connection | None:
        attempt = CURRENT_ATTEMPT.get()
        if attempt is not None and attempt.fresh:
            return None
        return await super()._get(*args, **kwargs)

    async def connect(self, *args: Any, **kwargs: Any) -> aiohttp.connector.Connection:
        # Public (a connector's documented method): a connection for one attempt, new or pooled.
        connection = await super().connect(*args, **kwargs)
        protocol = connection.protocol
        if isinstance(protocol, CountedConnection):
            protocol.requests += 1
            attempt = CURRENT_ATTEMPT.get()
            if attempt is not None:
                attempt.connection = protocol
                attempt.bytes_before = protocol.bytes_received
        return connection
