"""The `c` core's response parser: httptools' llhttp under ResponseParserBase (core-choices.md)."""

from __future__ import annotations

import httptools

from impls.core.http_base import ResponseParserBase


class ResponseParser(ResponseParserBase):
    """ResponseParserBase over httptools' llhttp (see there for the interface)."""

    engine = httptools.HttpResponseParser
    engine_error = httptools.HttpParserError
