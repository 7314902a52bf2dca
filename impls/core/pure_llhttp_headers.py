"""llhttp's header states in pure Python: each method one state, named in a comment."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any


class Flag:
    """llhttp's flags: what the headers of the message said."""

    KEEP_ALIVE, CLOSE, CONNECTION_UPGRADE, CHUNKED, UPGRADE = 1, 2, 4, 8, 16
    CONTENT_LENGTH, SKIPBODY, TRAILING, TRANSFER_ENCODING = 32, 64, 128, 512


class Header:
    """llhttp's header states: which header a value belongs to, and what its tokens said."""

    GENERAL, CONNECTION, CONTENT_LENGTH, TRANSFER_ENCODING, UPGRADE = 0, 1, 2, 3, 4
    SAYS_KEEP_ALIVE, SAYS_CLOSE, SAYS_UPGRADE, SAYS_CHUNKED = 5, 6, 7, 8


_SPECIAL = {
    b"connection": Header.CONNECTION,
    b"content-length": Header.CONTENT_LENGTH,
    b"proxy-connection": Header.CONNECTION,
    b"transfer-encoding": Header.TRANSFER_ENCODING,
    b"upgrade": Header.UPGRADE,
}
_SAYS = {  # the tokens of Connection that llhttp knows
    b"close": Header.SAYS_CLOSE,
    b"upgrade": Header.SAYS_UPGRADE,
    b"keep-alive": Header.SAYS_KEEP_ALIVE,
}
_FLAG_OF = {
    Header.SAYS_KEEP_ALIVE: Flag.KEEP_ALIVE,
    Header.SAYS_CLOSE: Flag.CLOSE,
    Header.SAYS_UPGRADE: Flag.CONNECTION_UPGRADE,
}
_TOKEN = rb"[-!#$%&'*+.^_`|~0-9A-Za-z]"
# A header name: tokens; or, with lenient headers, a special name, spaces, and maybe more
# tokens (then it is an ordinary header). It also checks a name not yet ended by its colon.
_NAME = re.compile(rb"(?i:(%s))( +)(%s*)|%s+" % (b"|".join(_SPECIAL), _TOKEN, _TOKEN))
TOKENS = re.compile(_TOKEN + b"*")
_CONNECTION_TOKENS = re.compile(rb"[\t\x20-\x2b\x2d-\x7e\x80-\xff]*")  # llhttp: not ','
# A whole header line, and the first byte of the next one (which does not fold it): when
# its name is not a framing header's, or it is a Content-Length of digits, _plain_line
# reads it at once as the states would, byte by byte.
_PLAIN_LINE = re.compile(rb"(%s+):[ \t]*([^\r\n]*)\r?\n(?=[^ \t])" % _TOKEN)
_PLAIN_LENGTH = re.compile(rb"[0-9]+[ \t]*")
_WHITESPACE = re.compile(rb"[ \t]*")
LINE_ENDS = re.compile(rb"[\r\n]*")
_DIGITS = re.compile(rb"[0-9]*")
_MAX_U64 = (1 << 64) - 1
CR_OR_LF = re.compile(rb"[\r\n]")
NO_SPAN, FIELD_SPAN, VALUE_SPAN = 0, 1, 2

State = Callable[[bytes, int], int]


class HttpParserError(Exception):
    """Malformed input (httptools.HttpParserError)."""


def run_end(pattern: re.Pattern[bytes], data: bytes, i: int) -> int:
    """Where the run of bytes that pattern (one that matches the empty run) finds at i ends."""
    found = pattern.match(data, i)
    return i if found is None else found.end()


def add_digits(number: int, digits: bytes, base: int, overflow: str) -> int:
    """llhttp's mulAdd over a run of digits: the number they extend, at most 2**64 - 1."""
    digits = digits.lstrip(b"0") if number == 0 else digits
    if len(digits) > 20:  # more than any 64-bit number has, in base 10 or 16
        raise HttpParserError(overflow)
    if digits:
        number = number * base ** len(digits) + int(digits, base)
        if number > _MAX_U64:
            raise HttpParserError(overflow)
    return number


class HeaderParser:
    """llhttp's state, its callbacks as httptools calls them, and the states of the head."""

    def __init__(self, protocol: Any) -> None:
        # ResponseParserBase's callbacks; on_message_begin only in keep-alive mode.
        self._on_header = protocol.on_header
        self._on_headers_complete = protocol.on_headers_complete
        self._on_body = protocol.on_body
        self._on_message_begin = getattr(protocol, "on_message_begin", None)
        self._on_message_complete = protocol.on_message_complete
        self._major = self._minor = self._status = 0
        self._flags = self._header_state = 0
        self._length = 0  # llhttp's content_length: of the body, or of the current chunk
        self._upgrade = False
        self._state: State = self._start
        self._matched = b""  # the part of a multi-byte word read so far
        self._count = 0  # bytes of the version or the status code; digits of a chunk size
        self._span, self._span_start = NO_SPAN, 0
        self._field = b""  # the header name so far, to check it
        self._pending_name: bytes | None = None  # httptools' current header
        self._pending_value: bytes | None = None

    # Where a message starts and where its head ends: HttpResponseParser's (pure_llhttp.py).
    def _start(self, data: bytes, i: int) -> int:
        raise NotImplementedError

    def _headers_done(self) -> None:
        raise NotImplementedError

    # -- httptools' header callbacks: a header is given when the next name begins -------------

    def _field_piece(self, piece: bytes) -> None:  # httptools' on_header_field
        self._maybe_call_on_header()
        name = self._pending_name
        self._pending_name = piece if name is None else name + piece

    def _value_piece(self, piece: bytes) -> None:  # httptools' on_header_value
        value = self._pending_value
        self._pending_value = piece if value is None else value + piece

    def _maybe_call_on_header(self) -> None:
        if self._pending_value is not None:
            name, value = self._pending_name, self._pending_value
            self._pending_name = self._pending_value = None
            self._on_header(name, value)

    # -- header names --------------------------------------------------------------------------

    def _field_start(self, data: bytes, i: int) -> int:  # header_field_start
        byte = data[i]
        if byte == 0x0D:
            self._state = self._headers_lf
        elif byte == 0x0A:
            self._headers_done()
        elif byte == 0x3A:
            raise HttpParserError("Invalid header token")
        elif (end := self._plain_line(data, i)) is not None:
            return end
        else:
            self._span, self._span_start, self._field = FIELD_SPAN, i, b""
            self._state = self._field_name
            return i
        return i + 1

    def _plain_line(self, data: bytes, i: int) -> int | None:
        """Where a plain header line (see _PLAIN_LINE) at i ends, once read; else None."""
        line = _PLAIN_LINE.match(data, i)
        if line is None:
            return None
        state = _SPECIAL.get(line[1].lower(), Header.GENERAL)
        if state == Header.CONTENT_LENGTH:
            if self._flags & (Flag.CONTENT_LENGTH | Flag.TRANSFER_ENCODING) or not (
                _PLAIN_LENGTH.fullmatch(line[2])
            ):
                return None
            self._field_piece(line[1])
            digits = line[2].rstrip(b" \t")
            self._length = add_digits(self._length, digits, 10, "Content-Length overflow")
            self._flags |= Flag.CONTENT_LENGTH
        elif state == Header.GENERAL:
            self._field_piece(line[1])
        else:
            return None
        self._header_state = state
        self._value_piece(line[2])
        return line.end()

    def _field_name(self, data: bytes, i: int) -> int:  # header_field, _colon, _general
        colon = data.find(b":", i)
        stop = len(data) if colon < 0 else colon
        name = self._field + data[i:stop]
        checked = _NAME.fullmatch(name)
        if checked is None:
            raise HttpParserError("Invalid header token")
        if colon < 0:
            self._field = name
            return stop
        self._span = NO_SPAN
        self._field_piece(data[self._span_start : colon])
        if checked.group(1) is None:
            state = _SPECIAL.get(name.lower(), Header.GENERAL)
        else:
            state = Header.GENERAL if checked.group(3) else _SPECIAL[checked.group(1).lower()]
        self._header_state = state
        if state == Header.TRANSFER_ENCODING and self._flags & Flag.CONTENT_LENGTH:
            raise HttpParserError("Transfer-Encoding can't be present with Content-Length")
        if state == Header.CONTENT_LENGTH and self._flags & Flag.TRANSFER_ENCODING:
            raise HttpParserError("Content-Length can't be present with Transfer-Encoding")
        self._state = self._value_whitespace
        return colon + 1

    def _headers_lf(self, data: bytes, i: int) -> int:  # headers_almost_done
        if data[i] != 0x0A:
            raise HttpParserError("Expected LF after headers")
        self._headers_done()
        return i + 1

    # -- header values ---------------------------------------------------------------------------

    def _value_whitespace(self, data: bytes, i: int) -> int:  # header_value_discard_ws
        i = run_end(_WHITESPACE, data, i)
        if i < len(data):
            byte = data[i]
            if byte == 0x0D:
                self._state = self._empty_value_lf
                return i + 1
            if byte == 0x0A:
                self._state = self._empty_value_end
                return i + 1
            self._span, self._span_start = VALUE_SPAN, i
            self._state = self._value_start
        return i

    def _empty_value_lf(self, data: bytes, i: int) -> int:  # ..._discard_ws_almost_done
        self._state = self._empty_value_end
        return i + 1 if data[i] == 0x0A else i  # lenient headers: a CR alone ends it too

    def _empty_value_end(self, data: bytes, i: int) -> int:  # header_value_discard_lws
        if data[i] in (0x20, 0x09):
            self._state = self._value_whitespace
            return i + 1
        if self._header_state == Header.CONTENT_LENGTH:
            raise HttpParserError("Empty Content-Length")
        if self._header_state == Header.TRANSFER_ENCODING:
            raise HttpParserError("Empty Transfer-Encoding")
        self._set_header_flags()
        self._value_piece(b"")
        self._state = self._field_start
        return i

    def _value_text(self, data: bytes, i: int) -> int:  # header_value, _otherwise, _lenient
        found = CR_OR_LF.search(data, i)
        if found is None:
            return len(data)
        end = found.start()
        self._span = NO_SPAN
        self._value_piece(data[self._span_start : end])
        self._state = self._value_lf
        return end + 1 if data[end] == 0x0D else end  # a bare LF is taken by _value_lf

    def _value_lf(self, data: bytes, i: int) -> int:  # header_value_almost_done
        if data[i] != 0x0A:
            raise HttpParserError("Missing expected LF after header value")
        self._state = self._value_fold
        return i + 1

    def _value_fold(self, data: bytes, i: int) -> int:  # header_value_lws
        if data[i] in (0x20, 0x09):  # obsolete folding: the value goes on, whitespace and all
            if self._header_state == Header.SAYS_CHUNKED:
                self._header_state = Header.GENERAL
            self._span, self._span_start = VALUE_SPAN, i
            self._state = self._value_start
            return i
        self._set_header_flags()
        self._state = self._field_start
        return i

    def _set_header_flags(self) -> None:  # what a whole value said
        state = self._header_state
        if state == Header.SAYS_CHUNKED:
            self._flags |= Flag.CHUNKED
        elif state in _FLAG_OF:
            self._flags |= _FLAG_OF[state]
            self._header_state = Header.CONNECTION

    # -- the framing headers' values ----------------------------------------------------------

    def _value_start(self, data: bytes, i: int) -> int:  # header_value_start (takes no byte)
        state = self._header_state
        if state == Header.UPGRADE:
            self._flags |= Flag.UPGRADE
            self._header_state, self._state = Header.GENERAL, self._value_text
        elif state == Header.TRANSFER_ENCODING:
            self._flags = (self._flags | Flag.TRANSFER_ENCODING) & ~Flag.CHUNKED
            self._matched, self._state = b"", self._encoding
        elif state == Header.CONTENT_LENGTH:
            if self._flags & Flag.CONTENT_LENGTH:
                raise HttpParserError("Duplicate Content-Length")
            self._state = self._length_digits
        elif state == Header.CONNECTION:
            self._matched, self._state = b"", self._connection
        else:
            self._state = self._value_text
        return i

    def _encoding(self, data: bytes, i: int) -> int:  # header_value_te_chunked
        matched = self._matched + data[i : i + 1].lower()
        if not b"chunked".startswith(matched):
            self._state = self._encoding_token  # which reads this byte again
            return i
        self._matched = matched
        if matched == b"chunked":
            self._state = self._encoding_chunked
        return i + 1

    def _encoding_chunked(self, data: bytes, i: int) -> int:  # header_value_te_chunked_last
        byte = data[i]
        if byte == 0x20:
            return i + 1
        if byte in (0x0D, 0x0A):
            self._header_state, self._state = Header.SAYS_CHUNKED, self._value_text
        elif byte == 0x2C:
            self._matched, self._state = b"", self._encoding
        else:
            self._state = self._encoding_token
        return i

    def _encoding_token(self, data: bytes, i: int) -> int:  # header_value_te_token
        return self._list_token(data, i, self._encoding_whitespace, Header.GENERAL)

    def _encoding_whitespace(self, data: bytes, i: int) -> int:  # header_value_te_token_ows
        i = run_end(_WHITESPACE, data, i)
        if i < len(data):
            self._matched, self._state = b"", self._encoding
        return i

    def _length_digits(self, data: bytes, i: int) -> int:  # header_value_content_length
        end = run_end(_DIGITS, data, i)
        self._length = add_digits(self._length, data[i:end], 10, "Content-Length overflow")
        if end < len(data):
            self._state = self._length_whitespace
        return end

    def _length_whitespace(self, data: bytes, i: int) -> int:  # header_value_content_length_ws
        i = run_end(_WHITESPACE, data, i)
        if i < len(data):
            if data[i] not in (0x0D, 0x0A):
                raise HttpParserError("Invalid character in Content-Length")
            self._flags |= Flag.CONTENT_LENGTH
            self._state = self._value_text
        return i

    def _connection(self, data: bytes, i: int) -> int:  # header_value_connection
        if not self._matched and data[i] in (0x20, 0x09):
            return i + 1
        matched = self._matched + data[i : i + 1].lower()
        if not any(word.startswith(matched) for word in _SAYS):
            self._state = self._connection_token  # which reads this byte again
            return i
        self._matched = matched
        if matched in _SAYS:
            self._header_state = _SAYS[matched]
            self._state = self._connection_whitespace
        return i + 1

    def _connection_whitespace(self, data: bytes, i: int) -> int:  # header_value_connection_ws
        byte = data[i]
        if byte == 0x2C:
            self._set_header_flags()
            self._matched, self._state = b"", self._connection
            return i + 1
        if byte in (0x20, 0x09):
            return i + 1
        if byte in (0x0D, 0x0A):
            self._state = self._value_text
        else:
            self._header_state, self._state = Header.GENERAL, self._connection_token
        return i

    def _connection_token(self, data: bytes, i: int) -> int:  # header_value_connection_token
        return self._list_token(data, i, self._connection, self._header_state)

    def _list_token(self, data: bytes, i: int, after_comma: State, header_state: int) -> int:
        """A token of a list up to its comma (then after_comma, nothing matched yet), or up
        to the line's end (then the value's text, under header_state)."""
        i = run_end(_CONNECTION_TOKENS, data, i)
        if i == len(data):
            return i
        if data[i] == 0x2C:
            self._matched, self._state = b"", after_comma
            return i + 1
        self._header_state, self._state = header_state, self._value_text
        return i
