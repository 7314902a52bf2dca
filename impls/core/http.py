"""The `c` core's response parser: httptools' llhttp under ResponseParserBase (core-choices.md)."""

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
