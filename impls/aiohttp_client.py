"""The aiohttp model: the chapter's stage 3, aiohttp.ClientSession driven by N worker tasks."""

from __future__ import annotations

import errno
import math
import socket

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.client_proto import ResponseHandler
from aiohttp.http import RawResponseMessage
from yarl import URL

from impls import asyncio_streams
from impls.core import ErrorKind, FetchError, Frontier, Job, classify_os_error
from impls.core.http import MAX_HEADER_BYTES
from impls.core.outcomes import Response


class FixedResolver(AbstractResolver):
    """Every name resolves to the address found once before the crawl: no DNS per fetch."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.family = socket.AF_INET6 if ":" in address else socket.AF_INET

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        return [
            ResolveResult(
                hostname=host,
                host=self.address,
                port=port,
                family=self.family,
                proto=0,
                flags=socket.AI_NUMERICHOST,
            )
        ]

    async def close(self) -> None:
        pass


def error_kind(exc: BaseException) -> ErrorKind:
    """The contract's kind for an exception of aiohttp; EMFILE raises ResourceLimit."""
    # Closed before the whole head came: before any byte is a reset; after some bytes,
    # aiohttp's parser hands over the partial message and the response is broken.
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        partial = isinstance(exc.message, RawResponseMessage)
        return ErrorKind.PROTOCOL if partial else ErrorKind.RESET
    # A bad status line, bad header, bad chunk size or bad Content-Length (HttpProcessingError).
    if isinstance(exc, aiohttp.ClientResponseError):
        return ErrorKind.PROTOCOL
    # The body was cut short (ContentLengthError, TransferEncodingError); aiohttp names the
    # connection's error, when there was one, only in the message ("... ConnectionResetError(").
    if isinstance(exc, aiohttp.ClientPayloadError):
        reset = any(name in str(exc) for name in ("ConnectionResetError", "BrokenPipeError"))
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


def reset_at_eof(protocol: ResponseHandler | None) -> bool:
    """aiohttp ends a body delimited by EOF at a reset as at EOF; its protocol keeps the error."""
    error = protocol.exception() if protocol is not None else None
    return isinstance(error, OSError) and error.errno in (errno.ECONNRESET, errno.EPIPE)


def convert_headers(raw_headers: tuple[tuple[bytes, bytes], ...]) -> dict[str, str]:
    """The core's headers: lower-cased names, duplicates joined, the head's size limited.

    Decoded from the raw bytes as the core decodes them (latin-1, not UTF-8), so that a
    Location with raw non-ASCII bytes leads to the same URL in every model.
    """
    headers: dict[str, str] = {}
    size = 0
    for raw_name, raw_value in raw_headers:
        size += len(raw_name) + len(raw_value) + 4  # counted as the core counts them
        if size > MAX_HEADER_BYTES:  # aiohttp limits each line only
            raise FetchError(ErrorKind.PROTOCOL, "response head too large")
        key, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    return headers


async def read_body(response: aiohttp.ClientResponse, max_body: int) -> bytes:
    """The body, refused as soon as it is declared or counted over max_body."""
    declared = response.content_length
    if declared is not None and declared > max_body:  # as the core: whatever the status
        raise FetchError(ErrorKind.TOO_LARGE, f"Content-Length {declared}")
    protocol = response.connection.protocol if response.connection else None
    body = bytearray()
    while chunk := await response.content.readany():
        body += chunk
        if len(body) > max_body:
            raise FetchError(ErrorKind.TOO_LARGE, f"body over {max_body} bytes")
    delimited_by_eof = declared is None and "Transfer-Encoding" not in response.headers
    if delimited_by_eof and reset_at_eof(protocol):
        raise FetchError(ErrorKind.RESET, "connection reset before the end of the body")
    return bytes(body)


async def fetch(session: aiohttp.ClientSession, job: Job, frontier: Frontier) -> Response:
    """One try of one URL: aiohttp's response, converted to the core's Response."""
    origin, config = frontier.origin, frontier.config
    # encoded=True: the target goes on the wire as the other models send it, not quoted again.
    url = URL(f"{origin.scheme}://{origin.netloc}{origin.request_target(job.url)}", encoded=True)
    try:
        async with session.get(url, allow_redirects=False) as response:
            headers = convert_headers(response.raw_headers)
            return Response(response.status, headers, await read_body(response, config.max_body))
    except (aiohttp.ClientError, OSError) as exc:  # TimeoutError is an OSError
        raise FetchError(error_kind(exc), str(exc) or type(exc).__name__) from exc


def new_session(frontier: Frontier) -> aiohttp.ClientSession:
    config = frontier.config
    connector = aiohttp.TCPConnector(
        limit=0,  # no cap: the N workers are the only limit on connections (default 100)
        limit_per_host=0,
        force_close=True,  # one connection per fetch, like every other model
        resolver=FixedResolver(config.connect_host),
        use_dns_cache=False,
    )
    session = aiohttp.ClientSession(
        connector=connector,
        # ceil_threshold: aiohttp rounds deadlines over 5 s up to whole seconds; keep it exact.
        timeout=aiohttp.ClientTimeout(total=config.timeout, ceil_threshold=math.inf),
        cookie_jar=aiohttp.DummyCookieJar(),
        headers={"User-Agent": "c10k-bench", "Connection": "close"},
        skip_auto_headers=("Accept-Encoding",),  # ask for no compression ...
        auto_decompress=False,  # ... and hand over the bytes as sent, as the core does
        # The core accepts header lines as long as its whole head limit; aiohttp's default
        # (8190) would turn a long header into a protocol error only here.
        max_line_size=MAX_HEADER_BYTES,
        max_field_size=MAX_HEADER_BYTES,
        max_headers=MAX_HEADER_BYTES,  # no count limit (default 128): the size limit rules
    )
    # aiohttp (3.10+) quietly sends a GET again, once, when the connection resets or closes
    # before the response: a hidden extra try. The Frontier owns retries; aiohttp's own test
    # client turns this off the same way (there is no public switch).
    session._retry_connection = False
    return session


async def crawl(frontier: Frontier) -> None:
    async with new_session(frontier) as session:
        await asyncio_streams.crawl(frontier, lambda job: fetch(session, job, frontier))


def run(frontier: Frontier) -> None:
    asyncio_streams.run_on(crawl(frontier))


def run_uvloop(frontier: Frontier) -> None:
    asyncio_streams.run_on(crawl(frontier), asyncio_streams.uvloop_factory())
