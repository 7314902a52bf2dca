"""Every use of httpx's and httpcore's private API, each behind one small class or function."""

# httpx offers no public way to do any of these, and each keeps the crawl contract
# (docs/contract.md) as the raw models keep it. tests/test_httpx_private_api.py checks each
# against the installed httpx and httpcore and fails, naming the API, when a release
# changes it.

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

import httpcore
import httpx


@dataclass
class Attempt:
    """One attempt of a fetch's request at a connection, as the connection pool saw it."""

    fresh: bool = False  # asks the pool for a new connection, not one it keeps
    reused: bool = False  # the pool gave it a connection that carried a request before
    received: int = 0  # bytes read on its connection during this attempt

    def again_on_a_fresh_connection(self) -> None:
        self.fresh, self.reused, self.received = True, False, 0


# Set by the fetch, read by the connections and their streams (the pool assigns a
# connection, and reads from it, in the sending task).
CURRENT_ATTEMPT: ContextVar[Attempt | None] = ContextVar("CURRENT_ATTEMPT", default=None)


class Connection(httpcore.AsyncHTTPConnection):
    """httpcore's HTTP/1.1 connection, which says whether an attempt reuses it, and is not
    given to an attempt that asks for a fresh connection, nor to another request while one
    is starting on it.

    Private: the pool picks a kept connection among those whose `is_available()` is true,
    in the sending task (`AsyncConnectionPool._assign_requests_to_connections`, which also
    runs for other queued requests: one queued when no connection could be made may see an
    answer meant for another, and get a new connection). False makes the pool open one.

    A connection stays idle until its request has taken its locks (each a turn of the
    loop), and the pool gives it meanwhile to every request that asks, all but one of which
    fail (ConnectionNotAvailable) and ask again together: at 1,000 kept connections the herd
    grew to hundreds and fetches timed out (encode/httpcore#822, #1110). So a connection is
    not available from the moment a request enters it.
    """

    requests = 0  # requests sent on it: 1 or more before an attempt, and it is reused
    starting = False  # a request has entered it and is not yet answered (or failed)

    def is_available(self) -> bool:
        attempt = CURRENT_ATTEMPT.get()
        fresh = attempt is not None and attempt.fresh
        return not (fresh or self.starting) and super().is_available()

    def is_idle(self) -> bool:
        """Never idle, for the pool's purposes: it closes an idle connection only as surplus
        over `max_keepalive_connections` or to make room at `max_connections`, neither of
        which happens here (keep-alive: C of each for C workers; close mode: none outlives
        its response). Its test of surplus counts every connection for every idle one
        (encode/httpcore#1035): with 900 kept idle, one pass took half a second."""
        return False

    def has_expired(self) -> bool:
        """httpcore's rule (an idle connection whose socket is readable: the server closed
        it), and the contract's: bytes after the last whole response, which httpcore would
        read as the next response (`ResponseParser.reusable`). Private:
        `AsyncHTTPConnection._connection` and its `_h11_state`, whose `trailing_data`
        (public in h11) holds the bytes received and not yet parsed.
        """
        return super().has_expired() or self.bytes_nobody_asked_for()

    def bytes_nobody_asked_for(self) -> bool:
        http11 = self._connection
        if not isinstance(http11, httpcore.AsyncHTTP11Connection) or not http11.is_idle():
            return False
        data, _ = http11._h11_state.trailing_data
        return bool(data)

    async def handle_async_request(self, request: httpcore.Request) -> httpcore.Response:
        attempt = CURRENT_ATTEMPT.get()
        if attempt is not None:
            attempt.reused = self.requests > 0
        self.requests += 1
        self.starting = True
        try:
            return await super().handle_async_request(request)
        finally:
            self.starting = False  # active now (not available), or idle, closed or failed


class Pool(httpcore.AsyncConnectionPool):
    """httpcore's pool of the Connection above, on `backend`. Private: `create_connection()`,
    the pool's only maker of connections (not underscored, not documented either)."""

    def __init__(
        self, backend: httpcore.AsyncNetworkBackend, connections: int | None, kept: int
    ) -> None:
        super().__init__(
            max_connections=connections,
            max_keepalive_connections=kept,
            keepalive_expiry=None,  # the server decides when a kept connection ends
            network_backend=backend,
        )
        self.backend = backend

    def create_connection(self, origin: httpcore.Origin) -> httpcore.AsyncConnectionInterface:
        return Connection(origin=origin, network_backend=self.backend)


def transport_on(pool: Pool) -> httpx.AsyncHTTPTransport:
    """httpx's transport (its request and response conversion, its exception mapping) on
    this pool. Private: `AsyncHTTPTransport._pool`, which it makes itself and which no
    argument replaces (it takes limits, but no network backend and no pool). Its own pool,
    and the SSL context made for it, go unused: verify=False keeps it from loading the CA
    bundle, about 25 ms of each crawl (an https origin gets httpcore's default context)."""
    transport = httpx.AsyncHTTPTransport(verify=False)
    transport._pool = pool
    return transport
