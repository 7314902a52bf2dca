"""The pure core's response parser: ResponseParserBase over llhttp's rules ported to Python.

The same interface and outcomes as impls/core/http.py's (the c core), with nothing outside
the standard library, so that it loads in a subinterpreter (docs/core-choices.md).
"""

from __future__ import annotations

from impls.core import pure_llhttp
from impls.core.http_base import ResponseParserBase


class ResponseParser(ResponseParserBase):
    """ResponseParserBase over impls/core/pure_llhttp.py (see there for the interface)."""

    engine = pure_llhttp.HttpResponseParser
    engine_error = pure_llhttp.HttpParserError
