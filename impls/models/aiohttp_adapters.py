"""aiohttp fitted to the crawl contract: session, headers, body limit, error kinds."""

from __future__ import annotations

import errno
import math
from typing import Any

import aiohttp

from impls.core import ErrorKind, FetchError, Frontier, classify_os_error
from impls.core.http_base import MAX_HEADER_BYTES
from impls.models import aiohttp_private

# The contract's request headers (Host aiohttp adds, GET and HTTP/1.1 are its defaults);
# without Connection: close, HTTP/1.1 keeps the connection.
REQUEST_HEADERS = {"User-Agent": "c10k-bench"}
CLOSE_HEADERS = {**REQUEST_HEADERS, "Connection": "close"}


def new_session(frontier: Frontier) -> aiohttp.ClientSession:
    """A session that fetches as the raw models do: their connections, one try, bytes as sent."""
    config = frontier.config
    pooling: dict[str, Any]
    if config.keep_alive:
        # aiohttp's pool keeps each connection for the next fetch. A worker holds at most one
        # and opens one only when none is idle, so at most C are held; the limit of C is a
        # safety net. No idle timeout: the server decides when a kept connection ends
        # (aiohttp's 15 s would close one while its worker waits for work).
        pooling = {"limit": config.concurrency, "keepalive_timeout": None}
    else:
        # One connection per fetch; no cap (aiohttp's default is 100): the N workers are it.
        pooling = {"limit": 0, "force_close": True}
    connector = aiohttp_private.CountingConnector(
        frontier.opened,
        frontier.closed,
        limit_per_host=0,
        # The URL names the address to connect to, an IP literal: aiohttp resolves none (and
        # the threaded resolver, unlike aiodns's, costs nothing to make).
        resolver=aiohttp.ThreadedResolver(),
        use_dns_cache=False,
        **pooling,
    )
    session = aiohttp.ClientSession(
        connector=connector,
        # ceil_threshold: aiohttp rounds deadlines over 5 s up to whole seconds; keep it exact.
        # The whole fetch, the hidden retry of keep-alive mode included.
        timeout=aiohttp.ClientTimeout(total=config.timeout, ceil_threshold=math.inf),
        cookie_jar=aiohttp.DummyCookieJar(),
        headers=(REQUEST_HEADERS if config.keep_alive else CLOSE_HEADERS)
        | {"Host": frontier.origin.netloc},
        skip_auto_headers=("Accept-Encoding",),  # ask for no compression ...
        auto_decompress=False,  # ... and hand over the bytes as sent, as the core does
        # The core accepts header lines as long as its whole head limit; aiohttp's default
        # (8190) would turn a long header into a protocol error only here.
        max_line_size=MAX_HEADER_BYTES,
        max_field_size=MAX_HEADER_BYTES,
        max_headers=MAX_HEADER_BYTES,  # no count limit (default 128): the size limit rules
        middlewares=(retry_on_a_fresh_connection,) if config.keep_alive else (),
    )
    aiohttp_private.turn_off_hidden_retry(session)
    return session


async def retry_on_a_fresh_connection(
    request: aiohttp.ClientRequest, send: aiohttp.ClientHandlerType
) -> aiohttp.ClientResponse:
    """Keep-alive mode's one retry, which spends no try (http_base.retry_on_fresh_connection);
    aiohttp's own (turned off) would also retry a new connection, after some bytes of the
    head, and on the next pooled connection rather than a new one."""
    first = aiohttp_private.Attempt()
    token = aiohttp_private.CURRENT_ATTEMPT.set(first)
    try:
        try:
            return await send(request)
        except (aiohttp.ClientError, OSError) as exc:  # TimeoutError is an OSError
            stale = first.failed_before_the_response_on_a_reused_connection()
            if not (stale and error_kind(exc) is ErrorKind.RESET):
                raise
        aiohttp_private.CURRENT_ATTEMPT.set(aiohttp_private.Attempt(fresh=True))
        return await send(request)  # GET is idempotent; aiohttp's retry middleware does so
    finally:
        aiohttp_private.CURRENT_ATTEMPT.reset(token)


async def read_body(response: aiohttp.ClientResponse, max_body: int) -> bytes:
    """The body, refused as soon as it is declared or counted over max_body."""
    declared = response.content_length
    if declared is not None and declared > max_body:  # as the core: whatever the status
        raise FetchError(ErrorKind.TOO_LARGE, f"Content-Length {declared}")
    connection_error = aiohttp_private.watch_connection_error(response)
    body = bytearray()
    while chunk := await response.content.readany():
        body += chunk
        if len(body) > max_body:
            raise FetchError(ErrorKind.TOO_LARGE, f"body over {max_body} bytes")
    delimited_by_eof = declared is None and "Transfer-Encoding" not in response.headers
    if delimited_by_eof and is_reset(connection_error()):
        raise FetchError(ErrorKind.RESET, "connection reset before the end of the body")
    return bytes(body)


def is_reset(error: BaseException | None) -> bool:
    """Whether the connection ended in a reset: aiohttp ends a body delimited by EOF there too."""
    return isinstance(error, OSError) and error.errno in (errno.ECONNRESET, errno.EPIPE)


def error_kind(exc: BaseException) -> ErrorKind:
    """The contract's kind for an exception of aiohttp; EMFILE raises ResourceLimit."""
    # Closed before the whole head came: before any byte is a reset; after some bytes,
    # the response is broken.
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        partial = aiohttp_private.disconnected_mid_head(exc)
        return ErrorKind.PROTOCOL if partial else ErrorKind.RESET
    # A bad status line, bad header, bad chunk size or bad Content-Length (HttpProcessingError).
    if isinstance(exc, aiohttp.ClientResponseError):
        return ErrorKind.PROTOCOL
    # The body was cut short (ContentLengthError, TransferEncodingError): by a reset, or not.
    if isinstance(exc, aiohttp.ClientPayloadError):
        reset = aiohttp_private.payload_error_names_reset(exc)
        return ErrorKind.RESET if reset else ErrorKind.PROTOCOL
    # Refused or unreachable while connecting (EMFILE: ResourceLimit).
    if isinstance(exc, aiohttp.ClientConnectorError):
        return classify_os_error(exc.os_error, connecting=True)
    # ClientTimeout's total ran out (a TimeoutError); before OSError, as it is one.
    if isinstance(exc, TimeoutError):
        return ErrorKind.TIMEOUT
    # ECONNRESET or EPIPE once connected: ClientOSError (an OSError) with its errno.
    if isinstance(exc, OSError):
        return classify_os_error(exc, connecting=False)
    # Any other trouble with the connection (ClientConnectionError and kin).
    if isinstance(exc, aiohttp.ClientError):
        return ErrorKind.RESET
    raise exc  # not a failure of the fetch: a bug, let it end the crawl
