"""Measures the core's parser and link extractor against their alternatives (CPU per call).

Run: python -m impls.core.choices   — prints µs per call for each candidate, so the choice
made in impls/core can be checked again on any machine and any library version.
"""

from __future__ import annotations

import re
import timeit
from collections.abc import Callable
from html import unescape
from html.parser import HTMLParser

import httptools

from impls.core.http import ResponseParser
from impls.core.links import extract_links

LINKS = 20
PAGE = (
    "<!doctype html><html><head><title>page</title></head><body><h1>Page</h1>"
    + "".join(f'<p>text {i} <a href="/p/{i}/">link {i}</a> more text</p>' for i in range(LINKS))
    + "<p>"
    + "filler " * 150
    + "</p></body></html>"
).encode()
RESPONSE = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
    + f"Content-Length: {len(PAGE)}\r\n".encode()
    + b"Date: Sun, 22 Nov 2026 00:00:00 GMT\r\nServer: Python/3.11 aiohttp/3.14\r\n\r\n"
    + PAGE
)


def parse_ours() -> None:
    assert ResponseParser(10 << 20).feed(RESPONSE) is not None


class _Collector:
    """The callbacks httptools calls, gathering one response."""

    def __init__(self) -> None:
        self.headers: dict[str, str] = {}
        self.body = bytearray()
        self.done = False

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_body(self, data: bytes) -> None:
        self.body += data

    def on_message_complete(self) -> None:
        self.done = True


def parse_httptools() -> None:
    collector = _Collector()
    parser = httptools.HttpResponseParser(collector)
    parser.feed_data(RESPONSE)
    assert collector.done and parser.get_status_code() == 200


class _AnchorParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            for name, value in attrs:
                if name == "href" and value and value.strip():
                    self.links.append(value.strip())


def links_stdlib() -> None:
    parser = _AnchorParser()
    parser.feed(PAGE.decode("utf-8", "replace"))
    assert len(parser.links) == LINKS


_HREF = re.compile(r"""<a\s[^>]*?href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I)


def links_regex() -> None:
    text = PAGE.decode("utf-8", "replace")
    found = [unescape(a or b or c).strip() for a, b, c in _HREF.findall(text)]
    assert len(found) == LINKS


def links_selectolax() -> None:
    assert len(extract_links(PAGE)) == LINKS


def measure(name: str, function: Callable[[], None]) -> None:
    function()  # warm up, and check that it works
    number = 2000
    best = min(timeit.repeat(function, number=number, repeat=5)) / number
    print(f"  {name:<28} {best * 1e6:8.1f} µs per call")


def main() -> None:
    print(f"response parsing ({len(RESPONSE)} bytes in one piece):")
    measure("ResponseParser (ours)", parse_ours)
    measure("bare httptools, no limits", parse_httptools)
    print(f"link extraction ({len(PAGE)} bytes, {LINKS} links):")
    measure("selectolax lexbor (ours)", links_selectolax)
    measure("html.parser (stdlib)", links_stdlib)
    measure("regex + html.unescape", links_regex)


if __name__ == "__main__":
    main()
