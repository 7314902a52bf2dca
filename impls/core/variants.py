"""The core's variants by name (`--core`): a response parser and a link extractor each."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from c10k.catalog import CORE_C, CORE_PURE, CORES
from impls.core.http_base import ResponseParserBase


@dataclass(frozen=True)
class CoreVariant:
    """What differs between the cores: the response parser class and the link extractor."""

    response_parser: type[ResponseParserBase]
    extract_links: Callable[[bytes], list[str]]


def load_core(name: str) -> CoreVariant:
    """The variant named; only its own modules are imported, so that the pure one loads
    where httptools and selectolax cannot (a subinterpreter of CPython 3.14)."""
    if name == CORE_C:
        from impls.core import http, links

        return CoreVariant(http.ResponseParser, links.extract_links)
    if name == CORE_PURE:
        from impls.core import pure_http, pure_links

        return CoreVariant(pure_http.ResponseParser, pure_links.extract_links)
    raise ValueError(f"unknown core {name!r}; choose one of: {', '.join(CORES)}")
