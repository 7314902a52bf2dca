"""llhttp 9.4's response parser in pure Python, with httptools' interface (core-choices.md)."""

from __future__ import annotations

import re

from impls.core.pure_llhttp_headers import (
    CR_OR_LF,
    FIELD_SPAN,
    LINE_ENDS,
    TOKENS,
    VALUE_SPAN,
    Flag,
    HeaderParser,
    HttpParserError,
    add_digits,
    run_end,
)

__all__ = ["HttpParserCallbackError", "HttpParserError", "HttpParserUpgrade", "HttpResponseParser"]

_PROTOCOLS = (b"HTTP/", b"RTSP/", b"ICE/")
_VERSIONS = frozenset({(0, 9), (1, 0), (1, 1), (2, 0)})
_NO_BODY_STATUSES = frozenset({100, 102, 103, 204, 304})
# A status line's start, whole in the data: read at once what _protocol, _version,
# _after_version and _status_code would read byte by byte.
_STATUS_START = re.compile(rb"(?:HTTP|RTSP|ICE)/([0-9])\.([0-9]) ([0-9]{3})")
_QUOTED_TEXT = re.compile(rb"[\t !\x23-\x5b\x5d-\x7e\x80-\xff]*")
_HEX_DIGITS = re.compile(rb"[0-9A-Fa-f]*")


class HttpParserCallbackError(HttpParserError):
    """A callback raised; the exception it raised is this one's __context__."""


class HttpParserUpgrade(Exception):
    """A 101 response with Upgrade and Connection: upgrade; as in httptools, it is not an
    HttpParserError."""


class HttpResponseParser(HeaderParser):
    """httptools.HttpResponseParser's interface over llhttp's response rules: what
    ResponseParserBase uses of it (a parser that failed is not fed again)."""

    def set_dangerous_leniencies(self, **flags: bool) -> None:
        expected = {
            "lenient_headers": True,
            "lenient_optional_cr_before_lf": True,
            "lenient_spaces_after_chunk_size": True,
        }
        if flags != expected:
            raise ValueError(f"the pure parser implements exactly these leniencies: {expected}")

    def get_status_code(self) -> int:
        return self._status

    def get_http_version(self) -> str:
        return f"{self._major}.{self._minor}"

    def should_keep_alive(self) -> bool:
        if self._major > 0 and self._minor > 0:
            if self._flags & Flag.CLOSE:
                return False
        elif not self._flags & Flag.KEEP_ALIVE:
            return False
        return not self._needs_eof()

    def feed_data(self, data: bytes) -> None:
        try:
            self._execute(data if type(data) is bytes else bytes(data))
        except (HttpParserUpgrade, HttpParserError):
            raise
        except Exception as exc:  # a callback raised: wrapped, as httptools wraps it
            raise HttpParserCallbackError("callback error") from exc

    def _execute(self, data: bytes) -> None:
        i, end = 0, len(data)
        self._span_start = 0
        while i < end:
            i = self._state(data, i)
        # llhttp hands an unfinished name or value to its callback at the end of each read.
        if self._span == FIELD_SPAN:
            self._field_piece(data[self._span_start :])
        elif self._span == VALUE_SPAN:
            self._value_piece(data[self._span_start :])

    def _start(self, data: bytes, i: int) -> int:  # start: line ends before a message
        i = run_end(LINE_ENDS, data, i)
        if i < len(data):
            if self._on_message_begin is not None:
                self._on_message_begin()
            self._matched, self._state = b"", self._protocol
        return i

    # -- the status line ---------------------------------------------------------------------

    def _protocol(self, data: bytes, i: int) -> int:  # res_after_start, res_after_protocol
        if not self._matched and (line := _STATUS_START.match(data, i)) is not None:
            major, minor, status = int(line[1]), int(line[2]), int(line[3])
            if (major, minor) in _VERSIONS:
                self._major, self._minor, self._status = major, minor, status
                self._state = self._status_end
                return line.end()
        matched = self._matched + data[i : i + 1]
        if not any(word.startswith(matched) for word in _PROTOCOLS):
            raise HttpParserError("Expected HTTP/, RTSP/ or ICE/")
        self._matched = matched
        if matched in _PROTOCOLS:
            self._count, self._state = 0, self._version
        return i + 1

    def _version(self, data: bytes, i: int) -> int:  # res_http_major, _dot, _minor
        byte, count = data[i], self._count
        if count == 1:
            if byte != 0x2E:
                raise HttpParserError("Expected dot")
        elif not 0x30 <= byte <= 0x39:
            raise HttpParserError("Invalid major or minor version")
        elif count == 0:
            self._major = byte - 0x30
        else:
            self._minor = byte - 0x30
            if (self._major, self._minor) not in _VERSIONS:
                raise HttpParserError("Invalid HTTP version")
            self._state = self._after_version
        self._count = count + 1
        return i + 1

    def _after_version(self, data: bytes, i: int) -> int:  # res_after_version
        if data[i] != 0x20:
            raise HttpParserError("Expected space after version")
        self._status, self._count, self._state = 0, 0, self._status_code
        return i + 1

    def _status_code(self, data: bytes, i: int) -> int:  # res_status_code_digit_1..3
        byte = data[i]
        if not 0x30 <= byte <= 0x39:
            raise HttpParserError("Invalid status code")
        self._status = self._status * 10 + byte - 0x30
        self._count += 1
        if self._count == 3:
            self._state = self._status_end
        return i + 1

    def _status_end(self, data: bytes, i: int) -> int:  # res_status_code_otherwise
        byte = data[i]
        if byte == 0x20:
            self._state = self._reason
        elif byte == 0x0D:
            self._state = self._line_lf
        elif byte == 0x0A:
            self._state = self._headers_start
        else:
            raise HttpParserError("Invalid response status")
        return i + 1

    def _reason(self, data: bytes, i: int) -> int:  # res_status: anything up to CR or LF
        found = CR_OR_LF.search(data, i)
        if found is None:
            return len(data)
        end = found.start()
        self._state = self._line_lf if data[end] == 0x0D else self._headers_start
        return end + 1

    def _line_lf(self, data: bytes, i: int) -> int:  # res_line_almost_done
        if data[i] != 0x0A:
            raise HttpParserError("Expected LF after CR")
        self._state = self._headers_start
        return i + 1

    def _headers_start(self, data: bytes, i: int) -> int:  # headers_start: one space skipped
        self._state = self._field_start
        return i + 1 if data[i] == 0x20 else i

    # -- the end of the head, and of the message -------------------------------------------------

    def _headers_done(self) -> None:  # headers_almost_done's way on: trailers, or the body
        if self._flags & Flag.TRAILING:  # the trailers of a chunked body: the message ends
            self._chunk_complete()
            self._message_done()
            return
        flags = self._flags
        self._upgrade = (
            bool(flags & Flag.UPGRADE and flags & Flag.CONNECTION_UPGRADE) and self._status == 101
        )
        self._maybe_call_on_header()
        self._on_headers_complete()
        if self._upgrade:
            self._flags |= Flag.SKIPBODY
        self._after_headers_complete()

    def _after_headers_complete(self) -> None:  # llhttp__after_headers_complete (http.c)
        status, flags = self._status, self._flags
        if status == 101:  # the rest is in another protocol
            self._on_message_complete()
            if self._upgrade:
                raise HttpParserUpgrade("upgrade")
            raise HttpParserError("Pause on CONNECT/Upgrade")
        if status in _NO_BODY_STATUSES or flags & Flag.SKIPBODY:
            self._message_done()
        elif flags & Flag.CHUNKED:
            self._chunk_size_start()
        elif flags & Flag.TRANSFER_ENCODING:
            self._state = self._body_until_eof
        elif not flags & Flag.CONTENT_LENGTH:
            if status // 100 == 1:
                self._message_done()
            else:
                self._state = self._body_until_eof
        elif self._length == 0:
            self._message_done()
        else:
            self._state = self._body

    def _message_done(self) -> None:  # message_done, cleanup, llhttp__after_message_complete
        self._on_message_complete()
        keep_alive = self.should_keep_alive()
        self._flags = 0
        if keep_alive:
            self._length = 0
            self._state = self._start
        else:
            self._state = self._closed

    def _needs_eof(self) -> bool:  # llhttp_message_needs_eof (http.c)
        flags = self._flags
        if self._status // 100 == 1 or self._status in (204, 304) or flags & Flag.SKIPBODY:
            return False
        if flags & Flag.TRANSFER_ENCODING and not flags & Flag.CHUNKED:
            return True
        return not flags & (Flag.CHUNKED | Flag.CONTENT_LENGTH)

    def _closed(self, data: bytes, i: int) -> int:  # closed: only line ends may follow
        i = run_end(LINE_ENDS, data, i)
        if i < len(data):
            raise HttpParserError("Data after `Connection: close`")
        return i

    # -- bodies ----------------------------------------------------------------------------------

    def _body(self, data: bytes, i: int) -> int:  # body_identity: Content-Length bytes
        end = min(len(data), i + self._length)
        self._length -= end - i
        self._body_piece(data[i:end])
        if self._length == 0:
            self._message_done()
        return end

    def _body_until_eof(self, data: bytes, i: int) -> int:  # body_identity_eof
        self._body_piece(data[i:])
        return len(data)

    def _body_piece(self, piece: bytes) -> None:
        if piece:
            self._on_body(piece)

    def _chunk_size_start(self) -> None:  # chunk_size_start
        self._length, self._count, self._state = 0, 0, self._chunk_size

    def _chunk_size(self, data: bytes, i: int) -> int:  # chunk_size_digit, chunk_size
        end = run_end(_HEX_DIGITS, data, i)
        if end == i:
            if self._count == 0:
                raise HttpParserError("Invalid character in chunk size")
            self._state = self._chunk_size_end
            return i
        self._length = add_digits(self._length, data[i:end], 16, "Chunk size overflow")
        self._count += end - i
        return end

    def _chunk_size_end(self, data: bytes, i: int) -> int:  # chunk_size_otherwise
        byte = data[i]
        if byte in (0x20, 0x09):  # lenient: spaces after the size
            return i + 1
        if byte in (0x0D, 0x0A):  # a bare LF is taken here, and one more is wanted
            self._state = self._chunk_size_lf
        elif byte == 0x3B:
            self._state = self._extension
        else:
            raise HttpParserError("Invalid character in chunk size")
        return i + 1

    def _extension(self, data: bytes, i: int) -> int:  # chunk_extensions
        if data[i] in (0x20, 0x0D):
            raise HttpParserError("Invalid character in chunk extensions")
        self._state = self._extension_name
        return i

    def _extension_name(self, data: bytes, i: int) -> int:  # chunk_extension_name
        i = run_end(TOKENS, data, i)
        if i < len(data) and data[i] == 0x3D:
            self._state = self._extension_value
            return i + 1
        return i if i == len(data) else self._extension_end(data, i)

    def _extension_value(self, data: bytes, i: int) -> int:  # chunk_extension_value
        if data[i] == 0x22:
            self._state = self._quoted_value
            return i + 1
        i = run_end(TOKENS, data, i)
        if i < len(data) and data[i] != 0x22:
            return self._extension_end(data, i)
        return i

    def _quoted_value(self, data: bytes, i: int) -> int:  # chunk_extension_quoted_value
        i = run_end(_QUOTED_TEXT, data, i)
        if i < len(data):
            if data[i] == 0x22:  # chunk_extension_quoted_value_done
                self._state = self._extension_end
            elif data[i] == 0x5C:
                self._state = self._quoted_pair
            else:
                raise HttpParserError("Invalid character in chunk extensions quoted value")
            return i + 1
        return i

    def _quoted_pair(self, data: bytes, i: int) -> int:  # ..._quoted_value_quoted_pair
        byte = data[i]
        if not (byte == 0x09 or 0x20 <= byte <= 0x7E or byte >= 0x80):
            raise HttpParserError("Invalid quoted-pair in chunk extensions quoted value")
        self._state = self._quoted_value
        return i + 1

    def _extension_end(self, data: bytes, i: int) -> int:  # what may follow an extension
        byte = data[i]
        if byte == 0x3B:
            self._state = self._extension
        elif byte in (0x0D, 0x0A):
            self._state = self._chunk_size_lf
            return i + 1 if byte == 0x0D else i
        else:
            raise HttpParserError("Invalid character in chunk extensions")
        return i + 1

    def _chunk_size_lf(self, data: bytes, i: int) -> int:  # chunk_size_almost_done
        if data[i] != 0x0A:
            raise HttpParserError("Expected LF after chunk size")
        if self._length == 0:  # the last chunk: trailers follow, read as headers
            self._flags |= Flag.TRAILING
            self._state = self._field_start
        else:
            self._state = self._chunk_data
        return i + 1

    def _chunk_data(self, data: bytes, i: int) -> int:  # chunk_data
        end = min(len(data), i + self._length)
        self._length -= end - i
        self._body_piece(data[i:end])
        if self._length == 0:
            self._matched, self._state = b"", self._chunk_data_end
        return end

    def _chunk_data_end(self, data: bytes, i: int) -> int:  # chunk_data_almost_done
        byte = data[i]
        if byte == 0x0A:  # after a CR, or bare (lenient)
            self._chunk_complete()
            self._chunk_size_start()
        elif byte == 0x0D and not self._matched:
            self._matched = b"\r"
        else:
            raise HttpParserError("Expected LF after chunk data")
        return i + 1

    def _chunk_complete(self) -> None:  # httptools' on_chunk_complete: a trailer is given
        self._maybe_call_on_header()
