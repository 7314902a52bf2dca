"""The pure core's response parser: ResponseParserBase over llhttp ported to Python."""

from __future__ import annotations

from impls.core import pure_llhttp
from impls.core.http_base import ResponseParserBase


class ResponseParser(ResponseParserBase):
    """ResponseParserBase over impls/core/pure_llhttp.py (see there for the interface)."""

    engine = pure_llhttp.HttpResponseParser
    engine_error = pure_llhttp.HttpParserError
