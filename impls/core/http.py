"""The `c` core's response parser: httptools (llhttp, the parser of Node.js and of aiohttp).

A hand-written parser with the same interface was 2-3 µs faster per response, 0.3% of a
page's CPU (docs/core-choices.md); llhttp wins on being right: strict, fuzzed, maintained,
and with aiohttp's own lenient flags, so the raw-socket models and aiohttp read the same
bytes the same way. What llhttp leaves to its caller (limits, 1xx, EOF bodies, error
kinds, reuse) is ResponseParserBase's, shared with the pure core (impls/core/http_base.py).
"""

from __future__ import annotations

import httptools

from impls.core.http_base import (
    MAX_HEADER_BYTES,
    ResponseParserBase,
    build_request,
    convert_headers,
    retry_on_fresh_connection,
)

__all__ = [
    "MAX_HEADER_BYTES",
    "ResponseParser",
    "build_request",
    "convert_headers",
    "retry_on_fresh_connection",
]


class ResponseParser(ResponseParserBase):
    """ResponseParserBase over httptools' llhttp (see there for the interface)."""

    engine = httptools.HttpResponseParser
    engine_error = httptools.HttpParserError
