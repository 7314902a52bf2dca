"""HTTP/1.x rules over either llhttp: the request, the stale-connection rule, ResponseParserBase."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, Protocol

from impls.core.outcomes import ErrorKind, FetchError, Response

MAX_HEADER_BYTES = 64 * 1024
READ_SIZE = 65536  # bytes asked of one recv(): a whole test page in one call, most of the time
_NO_BODY_STATUSES = frozenset({204, 304})


def build_request(target: str, host_header: str, keep_alive: bool = False) -> bytes:
    """A GET: on its own connection (Connection: close), or on a persistent one (keep_alive)."""
    connection = "" if keep_alive else "Connection: close\r\n"  # HTTP/1.1 keeps it by default
    return (
        f"GET {target} HTTP/1.1\r\n"
        f"Host: {host_header}\r\n"
        "User-Agent: c10k-bench\r\n"
        "Accept: */*\r\n"
        f"{connection}"
        "\r\n"
    ).encode("ascii")


def convert_headers(raw_headers: Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    """A client library's raw headers as the core's: names lower-cased, duplicates joined,
    the head's size limited as the parser limits it, latin-1 as the core decodes them (a
    Location with raw non-ASCII bytes then leads to the same URL in every model)."""
    headers: dict[str, str] = {}
    size = 0
    for raw_name, raw_value in raw_headers:
        size += len(raw_name) + len(raw_value) + 4  # counted as the core counts them
        if size > MAX_HEADER_BYTES:
            raise FetchError(ErrorKind.PROTOCOL, "response head too large")
        key, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    return headers


def retry_on_fresh_connection(reused: bool, received: int, kind: ErrorKind) -> bool:
    """Whether a failed try is sent again on a fresh connection, without spending a try: a
    reused connection that failed with RESET (EOF, reset, broken pipe) before any byte of
    the response was closed by the server while idle, and GET is idempotent. Anything
    else is an ordinary failed try (docs/contract.md, "A stale connection")."""
    return reused and received == 0 and kind is ErrorKind.RESET


class LlhttpEngine(Protocol):
    """What ResponseParserBase uses of an llhttp response parser (httptools' interface)."""

    def feed_data(self, data: bytes) -> None: ...
    def get_status_code(self) -> int: ...
    def get_http_version(self) -> str: ...
    def should_keep_alive(self) -> bool: ...
    def set_dangerous_leniencies(self, **flags: bool) -> None: ...


class _BytesAfterResponse(Exception):
    """Stops llhttp at the first byte after a whole response."""


class ResponseParserBase:
    """Feed it the bytes of one response as they arrive; it says when the response is whole.

    `feed(data)` returns the Response once it is complete, else None; `feed(b"")`, what a
    read returns when the peer closed, is `feed_eof()`: the Response when EOF ends the body,
    else FetchError (RESET if nothing came at all, PROTOCOL if truncated).
    Malformed input raises FetchError(PROTOCOL); a body over `max_body` raises
    FetchError(TOO_LARGE). `received` counts the bytes fed so far (0: none arrived).

    With `keep_alive`, `reusable` says, once the response is whole, whether the
    connection may carry the next request: not after `Connection: close`, an HTTP/1.0
    response without keep-alive, a body delimited by EOF, or bytes after the response.
    Without it (close mode), `reusable` stays False and nothing else changes.

    A subclass names its engine: `engine` makes an llhttp parser that calls back this
    object, and `engine_error` is the exception that engine raises for bad input.
    """

    engine: ClassVar[Any]  # a class: engine(protocol) -> LlhttpEngine
    engine_error: ClassVar[type[Exception]]
    reusable = False

    def __init__(
        self, max_body: int, keep_alive: bool = False, max_header: int = MAX_HEADER_BYTES
    ) -> None:
        self.max_body = max_body
        self.max_header = max_header
        self.received = 0
        self._keep_alive = keep_alive
        if keep_alive:
            # llhttp calls on_message_begin only if the protocol has it (httptools looks when
            # the parser is made): close mode does not pay a call per response for it.
            self.on_message_begin = self._refuse_bytes_after_response
        # type(self).engine, not self.engine: Python 3.11 specializes only the first load.
        self._parser: LlhttpEngine = type(self).engine(self)
        # Read responses as aiohttp (and browsers) do: bare LF line ends, obsolete header
        # folding, control bytes in header values and spaces after a chunk size are
        # accepted (RFC 9112 lets a recipient accept them), so that every model, aiohttp
        # included, gives a URL the same outcome.
        self._parser.set_dangerous_leniencies(
            lenient_headers=True,
            lenient_optional_cr_before_lf=True,
            lenient_spaces_after_chunk_size=True,
        )
        self._headers: dict[str, str] = {}
        self._header_bytes = 0
        self._body = bytearray()
        self._head_done = False
        self._until_eof = False  # no Content-Length and not chunked: EOF ends the body
        self._response: Response | None = None  # set when complete

    # -- the public interface -------------------------------------------------------------

    def feed(self, data: bytes) -> Response | None:
        if not data:
            return self.feed_eof()
        if self._response is None:
            self.received += len(data)
            try:
                self._parser.feed_data(data)
            except self.engine_error as exc:
                # Our own callbacks raised (a limit): llhttp wraps it; unwrap it.
                if isinstance(exc.__context__, FetchError):
                    raise exc.__context__ from None
                # Bytes after a whole response (llhttp refuses them after Connection: close;
                # _refuse_bytes_after_response stops it on a kept-alive connection) are
                # ignored: the response is whole, and the connection is not reused.
                if self._response is None:
                    raise FetchError(ErrorKind.PROTOCOL, str(exc)) from exc
            if not self._head_done and self.received > self.max_header:
                # llhttp holds a partial header line itself; cap the whole head here.
                raise FetchError(ErrorKind.PROTOCOL, "response head too large")
        return self._response

    def feed_eof(self) -> Response:
        if self._response is not None:
            return self._response
        if self.received == 0:
            raise FetchError(ErrorKind.RESET, "connection closed before any response")
        if not self._head_done:
            raise FetchError(ErrorKind.PROTOCOL, "connection closed inside the response head")
        if self._until_eof:
            return self._complete()
        raise FetchError(ErrorKind.PROTOCOL, "connection closed before the body was complete")

    # -- llhttp's callbacks -------------------------------------------------------------------

    def on_header(self, name: bytes, value: bytes) -> None:
        self._header_bytes += len(name) + len(value) + 4
        if self._header_bytes > self.max_header:
            raise FetchError(ErrorKind.PROTOCOL, "response head too large")
        key = name.decode("latin-1").lower()
        text = value.decode("latin-1").strip(" \t")  # llhttp keeps trailing whitespace (OWS)
        self._headers[key] = f"{self._headers[key]}, {text}" if key in self._headers else text

    def on_headers_complete(self) -> None:
        status = self._parser.get_status_code()
        if self._parser.get_http_version() not in ("1.1", "1.0"):
            raise FetchError(ErrorKind.PROTOCOL, "not an HTTP/1.x response")
        if 100 <= status < 200:
            self._headers = {}  # an interim response (100 Continue); the real one follows
            return
        self._head_done = True
        headers = self._headers
        length = headers.get("content-length")
        if length is not None and int(length) > self.max_body:
            raise FetchError(ErrorKind.TOO_LARGE, f"Content-Length {length}")
        chunked = headers.get("transfer-encoding", "").rsplit(",", 1)[-1].strip().lower()
        self._until_eof = (
            length is None and chunked != "chunked" and status not in _NO_BODY_STATUSES
        )

    def on_body(self, data: bytes) -> None:
        self._body += data
        if len(self._body) > self.max_body:
            raise FetchError(ErrorKind.TOO_LARGE, f"body over {self.max_body} bytes")

    def on_message_complete(self) -> None:
        if self._head_done:
            self._complete()
            if self._keep_alive:
                # Asked here: llhttp forgets the response's Connection header once it returns.
                self.reusable = self._parser.should_keep_alive()

    def _refuse_bytes_after_response(self) -> None:
        """on_message_begin in keep-alive mode: a byte after the whole response ends the
        connection, and llhttp must not read it as the next response into this one's."""
        if self._response is not None:
            self.reusable = False
            raise _BytesAfterResponse

    def _complete(self) -> Response:
        status = self._parser.get_status_code()
        self._response = Response(status, self._headers, bytes(self._body))
        return self._response
