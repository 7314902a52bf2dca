"""httpx fitted to the crawl contract: connections counted, a stale one retried, error kinds."""

from __future__ import annotations

import contextlib
import http.cookiejar
import select
import socket
import typing
from collections.abc import Callable, Iterator

import httpcore
import httpx

from impls.core import ErrorKind, FetchError, Frontier, classify_os_error
from impls.core.http_base import retry_on_fresh_connection
from impls.models.httpx_private import CURRENT_ATTEMPT, Attempt, Pool, transport_on

# The contract's request headers; httpx's own Accept-Encoding (compression: the bytes
# would not be handed over as sent) and Connection: keep-alive go.
REQUEST_HEADERS = {"User-Agent": "c10k-bench", "Accept": "*/*"}
CLOSE_HEADERS = {**REQUEST_HEADERS, "Connection": "close"}


class CountedStream(httpcore.AsyncNetworkStream):
    """httpcore's stream of one connection, which tells the current attempt how many bytes
    it read, reports its close once, and answers "is_readable" by polling its socket.

    The pool asks every idle connection that (the server closed it?) each time it assigns
    or releases one; anyio answers by building a dict of all the stream's attributes, about
    25 us (a poll: 3 us). With 900 of 1,000 kept connections idle, the pool's passes took
    45-60 s of a crawl that asyncio's streams made in 3 s, and fetches timed out.
    """

    def __init__(self, stream: httpcore.AsyncNetworkStream, closed: Callable[[], None]) -> None:
        self.stream = stream
        self.closed: Callable[[], None] | None = closed
        self.socket: socket.socket = stream.get_extra_info("socket")

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data = await self.stream.read(max_bytes, timeout)
        attempt = CURRENT_ATTEMPT.get()
        if attempt is not None:
            attempt.received += len(data)
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self.stream.write(buffer, timeout)

    async def aclose(self) -> None:
        try:
            await self.stream.aclose()
        finally:
            closed, self.closed = self.closed, None
            if closed is not None:
                closed()

    def get_extra_info(self, info: str) -> typing.Any:
        if info == "is_readable":  # httpcore's own test (httpcore._utils.is_socket_readable)
            poll = select.poll()
            poll.register(self.socket, select.POLLIN)
            return bool(poll.poll(0))
        return self.stream.get_extra_info(info)


class CountingBackend(httpcore.AsyncNetworkBackend):
    """httpcore's anyio backend (what httpx uses on asyncio), connecting to the address found
    once before the crawl whatever the URL's host (no DNS per fetch, and --connect-to), and
    counting each connection open from before its connect to after its close."""

    def __init__(self, frontier: Frontier) -> None:
        self.backend = httpcore.AnyIOBackend()
        self.frontier = frontier

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        frontier = self.frontier
        frontier.opened()
        try:
            stream = await self.backend.connect_tcp(
                frontier.config.connect_host, port, timeout, local_address, socket_options
            )
        except BaseException:
            frontier.closed()
            raise
        return CountedStream(stream, frontier.closed)

    async def sleep(self, seconds: float) -> None:
        await self.backend.sleep(seconds)


class StaleRetryTransport(httpx.AsyncBaseTransport):
    """httpx's transport with the contract's one retry, which spends no try (the rule:
    http_base.retry_on_fresh_connection). httpcore's pool by itself drops an idle connection
    whose close has already arrived, but retries nothing.
    """

    def __init__(self, transport: httpx.AsyncHTTPTransport) -> None:
        self.transport = transport

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        attempt = CURRENT_ATTEMPT.get()
        try:
            return await self.transport.handle_async_request(request)
        except httpx.TransportError as exc:
            if attempt is None or not attempt.reused:
                raise
            kind = error_kind(exc, attempt.received)
            if not retry_on_fresh_connection(attempt.reused, attempt.received, kind):
                raise
        attempt.again_on_a_fresh_connection()
        return await self.transport.handle_async_request(request)

    async def aclose(self) -> None:
        await self.transport.aclose()


def new_client(frontier: Frontier) -> httpx.AsyncClient:
    """A client that fetches as the raw models do: their connections, one try, bytes as sent.

    Keep-alive mode: a worker holds at most one connection, so at most C; the limit of C is
    a safety net. No idle timeout: the server decides when a kept connection ends (httpx's
    5 s would close one while its worker waits). Close mode: none kept, no cap.
    """
    config = frontier.config
    backend = CountingBackend(frontier)
    if config.keep_alive:
        pool = Pool(backend, connections=config.concurrency, kept=config.concurrency)
    else:
        pool = Pool(backend, connections=None, kept=0)
    client = httpx.AsyncClient(
        transport=StaleRetryTransport(transport_on(pool)),
        follow_redirects=False,  # the frontier queues a redirect's target
        timeout=None,  # the fetch bounds itself, connect to last byte (httpx's are per phase)
        trust_env=False,  # no proxy and no .netrc from the environment
        # No cookies kept or sent: the contract's requests are the same every time.
        cookies=http.cookiejar.CookieJar(http.cookiejar.DefaultCookiePolicy(allowed_domains=[])),
    )
    # The client's defaults cannot be left out by arguments: replace them.
    client.headers.clear()
    client.headers.update(REQUEST_HEADERS if config.keep_alive else CLOSE_HEADERS)
    return client


@contextlib.contextmanager
def an_attempt() -> Iterator[Attempt]:
    """The attempt of a fetch, which the transport, the pool and the stream report to."""
    attempt = Attempt()
    token = CURRENT_ATTEMPT.set(attempt)
    try:
        yield attempt
    finally:
        CURRENT_ATTEMPT.reset(token)


async def read_body(response: httpx.Response, max_body: int) -> bytes:
    """The body as sent, refused as soon as it is declared or counted over max_body."""
    declared = response.headers.get("Content-Length")
    if declared is not None and declared.isdigit() and int(declared) > max_body:
        raise FetchError(ErrorKind.TOO_LARGE, f"Content-Length {declared}")  # any status
    body = bytearray()
    async for chunk in response.aiter_raw():
        body += chunk
        if len(body) > max_body:
            raise FetchError(ErrorKind.TOO_LARGE, f"body over {max_body} bytes")
    return bytes(body)


def os_error_in(exc: BaseException) -> OSError | None:
    """The first OSError with an errno among the exception's causes: httpcore and anyio
    raise their own exceptions from the socket's."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, OSError) and cause.errno is not None:
            return cause
        cause = cause.__cause__ or cause.__context__
    return None


def error_kind(exc: BaseException, received: int) -> ErrorKind:
    """The contract's kind for an exception of httpx, given the bytes that came from the
    server in the attempt; EMFILE raises ResourceLimit."""
    # The whole fetch ran out of time (asyncio's timeout; before OSError, as it is one).
    if isinstance(exc, TimeoutError | httpx.TimeoutException):
        return ErrorKind.TIMEOUT
    os_error = os_error_in(exc)
    # Refused or unreachable while connecting (EMFILE: ResourceLimit).
    if isinstance(exc, httpx.ConnectError):
        return classify_os_error(os_error, connecting=True) if os_error else ErrorKind.CONNECT
    # Reset or broken pipe once connected, or closed under a read.
    if isinstance(exc, httpx.NetworkError | OSError):
        return classify_os_error(os_error, connecting=False) if os_error else ErrorKind.RESET
    # Closed before any byte is a reset; garbage, a head closed half-way or a body cut
    # short is a broken response.
    if isinstance(exc, httpx.RemoteProtocolError):
        return ErrorKind.RESET if received == 0 else ErrorKind.PROTOCOL
    if isinstance(exc, httpx.ProtocolError):
        return ErrorKind.PROTOCOL
    raise exc  # not a failure of the fetch: a bug, let it end the crawl
