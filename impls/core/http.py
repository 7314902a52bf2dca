"""HTTP/1.x bytes: the request builder and an incremental response parser (sans-I/O)."""

from __future__ import annotations

from impls.core.outcomes import ErrorKind, FetchError, Response

MAX_HEADER_BYTES = 64 * 1024
_NO_BODY_STATUSES = frozenset({204, 304})


def build_request(target: str, host_header: str) -> bytes:
    """A GET for one fetch on its own connection (the contract's Connection: close)."""
    return (
        f"GET {target} HTTP/1.1\r\n"
        f"Host: {host_header}\r\n"
        "User-Agent: c10k-bench\r\n"
        "Accept: */*\r\n"
        "Connection: close\r\n"
        "\r\n"
    ).encode("ascii")


def _protocol(detail: str) -> FetchError:
    return FetchError(ErrorKind.PROTOCOL, detail)


class ResponseParser:
    """Feed it the bytes of one response as they arrive; it says when the response is whole.

    `feed(data)` returns the Response once it is complete, else None. `feed_eof()` is
    called when the peer closed: it returns the Response when EOF ends the body, and
    raises FetchError otherwise (RESET if nothing came at all, PROTOCOL if truncated).
    Malformed input raises FetchError(PROTOCOL); a body over `max_body` raises
    FetchError(TOO_LARGE).
    """

    def __init__(self, max_body: int, max_header: int = MAX_HEADER_BYTES) -> None:
        self.max_body = max_body
        self.max_header = max_header
        self.received = 0
        self._buffer = bytearray()
        self._response: Response | None = None  # set once the head is parsed
        self._body = bytearray()
        self._length: int | None = None  # Content-Length, when the body is framed by it
        self._chunked = False
        self._done = False

    # -- the public interface -------------------------------------------------------------

    def feed(self, data: bytes) -> Response | None:
        if self._done:
            return self._finish()
        self.received += len(data)
        self._buffer += data
        if self._response is None and not self._parse_head():
            return None
        return self._parse_body()

    def feed_eof(self) -> Response:
        if self._done:
            return self._finish()
        if self.received == 0:
            raise FetchError(ErrorKind.RESET, "connection closed before any response")
        if self._response is None:
            raise _protocol("connection closed inside the response head")
        if self._length is None and not self._chunked:
            return self._finish()  # the body was delimited by EOF
        raise _protocol("connection closed before the body was complete")

    # -- the head ---------------------------------------------------------------------------

    def _parse_head(self) -> bool:
        while True:
            end = self._buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(self._buffer) > self.max_header:
                    raise _protocol("response head too large")
                if not b"HTTP/1.".startswith(bytes(self._buffer[:7])):
                    raise _protocol("not an HTTP/1.x response")
                return False
            if end > self.max_header:
                raise _protocol("response head too large")
            head = bytes(self._buffer[:end])
            del self._buffer[: end + 4]
            response = self._parse_status_and_headers(head)
            if 100 <= response.status < 200:
                continue  # an interim response (100 Continue); the real one follows
            self._response = response
            self._frame_body(response)
            return True

    @staticmethod
    def _parse_status_and_headers(head: bytes) -> Response:
        try:
            text = head.decode("latin-1")
        except UnicodeDecodeError as exc:  # pragma: no cover - latin-1 decodes any byte
            raise _protocol("undecodable head") from exc
        lines = text.split("\r\n")
        version, _, rest = lines[0].partition(" ")
        code = rest[:3]
        if (
            version not in ("HTTP/1.1", "HTTP/1.0")
            or len(code) != 3
            or not code.isdigit()
            or rest[3:4] not in ("", " ")
        ):
            raise _protocol(f"bad status line {lines[0][:80]!r}")
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, colon, value = line.partition(":")
            if not colon or not name or name != name.strip() or line[0] in " \t":
                raise _protocol(f"bad header line {line[:80]!r}")
            key = name.lower()
            value = value.strip(" \t")
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        return Response(status=int(code), headers=headers)

    def _frame_body(self, response: Response) -> None:
        headers = response.headers
        if response.status in _NO_BODY_STATUSES:
            self._length = 0
            return
        coding = headers.get("transfer-encoding")
        if coding is not None:
            if coding.rsplit(",", 1)[-1].strip().lower() != "chunked":
                # Not chunked last: the body runs to EOF (RFC 9112 6.3).
                return
            self._chunked = True
            return
        length = headers.get("content-length")
        if length is not None:
            values = {v.strip() for v in length.split(",")}
            if len(values) != 1 or not (value := values.pop()).isdigit():
                raise _protocol(f"bad Content-Length {length!r}")
            self._length = int(value)
            if self._length > self.max_body:
                raise FetchError(ErrorKind.TOO_LARGE, f"Content-Length {self._length}")

    # -- the body ---------------------------------------------------------------------------

    def _parse_body(self) -> Response | None:
        if self._chunked:
            return self._parse_chunks()
        if self._buffer:
            self._body += self._buffer
            self._buffer.clear()
        if self._length is None:
            self._check_size(len(self._body))
            return None  # delimited by EOF
        if len(self._body) >= self._length:
            del self._body[self._length :]  # bytes after the body are ignored
            return self._finish()
        return None

    def _parse_chunks(self) -> Response | None:
        buffer = self._buffer
        while True:
            line_end = buffer.find(b"\r\n")
            if line_end < 0:
                if len(buffer) > 1024:
                    raise _protocol("chunk size line too long")
                return None
            size_text = bytes(buffer[:line_end]).split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise _protocol(f"bad chunk size {size_text[:20]!r}") from None
            if size < 0:
                raise _protocol("negative chunk size")
            if size == 0:
                # The last chunk, then trailers up to an empty line.
                trailers_end = buffer.find(b"\r\n\r\n", line_end)
                if buffer[line_end : line_end + 4] == b"\r\n\r\n":
                    return self._finish()
                if trailers_end < 0:
                    return None
                return self._finish()
            data_start = line_end + 2
            data_end = data_start + size
            if len(buffer) < data_end + 2:
                self._check_size(len(self._body) + len(buffer) - data_start)
                return None
            if buffer[data_end : data_end + 2] != b"\r\n":
                raise _protocol("chunk not followed by CRLF")
            self._body += buffer[data_start:data_end]
            self._check_size(len(self._body))
            del buffer[: data_end + 2]

    def _check_size(self, size: int) -> None:
        if size > self.max_body:
            raise FetchError(ErrorKind.TOO_LARGE, f"body over {self.max_body} bytes")

    def _finish(self) -> Response:
        assert self._response is not None
        self._done = True
        self._response.body = bytes(self._body)
        return self._response
