"""Measures the core's parser, link extractor and URL resolution against alternatives."""

# Run: python -m bench.tools.core_choices. It prints µs per call for each candidate, so the
# choice made in impls/core can be checked again on any machine and any library version.
# yarl comes with aiohttp; `pip install ada-url can-ada` adds the WHATWG (ada) candidates.

from __future__ import annotations

import functools
import re
import timeit
from collections.abc import Callable
from html import unescape

import httptools

from impls.core import pure_links
from impls.core.http import ResponseParser
from impls.core.links import extract_links
from impls.core.urls import LinkResolver, resolve

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


def links_stdlib() -> None:
    assert len(pure_links.extract_links(PAGE)) == LINKS


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


# -- URL resolution: every <a href> of a docs site's pages, against each page's URL ----------


def docs_site_links(pages: int = 60) -> list[tuple[str, list[str]]]:
    """(page URL, its hrefs) for the pages of a `--preset docs` site (the test site's model)."""
    import dataclasses

    from server.site import Site
    from server.site_params import PRESETS, SiteParams

    site = Site(dataclasses.replace(SiteParams(**PRESETS["docs"]), pages=pages))
    root = "http://127.0.0.1:8080"
    paths = ["/", *(site.page_path(i) for i in range(pages))]
    return [(root + p, extract_links(site.response(p, "127.0.0.1:8080").body)) for p in paths]


def url_candidates() -> dict[str, Callable[[str, list[str]], list[str | None]]]:
    """Each candidate resolves a page's hrefs; a fresh LinkResolver per crawl (see measure)."""
    candidates: dict[str, Callable[[str, list[str]], list[str | None]]] = {
        "urllib urljoin + normalize": lambda base, hrefs: [resolve(base, h) for h in hrefs],
    }
    try:
        import yarl

        def with_yarl(base: str, hrefs: list[str]) -> list[str | None]:
            joined = yarl.URL(base)
            return [str(joined.join(yarl.URL(h)).with_fragment(None)) for h in hrefs]

        candidates["yarl URL.join"] = with_yarl
    except ImportError:
        pass
    try:
        import ada_url

        def with_ada(base: str, hrefs: list[str]) -> list[str | None]:
            found: list[str | None] = []
            for h in hrefs:
                try:
                    found.append(ada_url.join_url(base, h).partition("#")[0])
                except ValueError:
                    found.append(None)
            return found

        candidates["ada-url join_url"] = with_ada
    except ImportError:
        pass
    return candidates


def resolve_corpus(
    candidate: Callable[[str, list[str]], list[str | None]], corpus: list[tuple[str, list[str]]]
) -> None:
    for base, page in corpus:
        candidate(base, page)


def measure_urls(corpus: list[tuple[str, list[str]]]) -> None:
    hrefs = sum(len(h) for _, h in corpus)
    expected = [[resolve(base, h) for h in page] for base, page in corpus]
    print(f"URL resolution ({len(corpus)} docs pages, {hrefs:,} hrefs; µs per href):")
    for name, candidate in url_candidates().items():
        found = [candidate(base, page) for base, page in corpus]
        differ = sum(
            a != b
            for got, want in zip(found, expected, strict=True)
            for a, b in zip(got, want, strict=True)
        )
        best = min(timeit.repeat(functools.partial(resolve_corpus, candidate, corpus), number=1))
        print(f"  {name:<28} {best / hrefs * 1e6:8.2f}   differs from urljoin on {differ:,}")

    def ours() -> None:
        resolver = LinkResolver()  # a crawl starts with an empty memo
        for base, page in corpus:
            resolver.resolve_links(base, page)

    best = min(timeit.repeat(ours, number=1, repeat=5))
    print(f"  {'LinkResolver (ours)':<28} {best / hrefs * 1e6:8.2f}   (the differential test)")
    print("  can-ada: parse() takes no base URL in the installed version: no relative links")


def main() -> None:
    print(f"response parsing ({len(RESPONSE)} bytes in one piece):")
    measure("ResponseParser (ours)", parse_ours)
    measure("bare httptools, no limits", parse_httptools)
    print(f"link extraction ({len(PAGE)} bytes, {LINKS} links):")
    measure("selectolax lexbor (ours)", links_selectolax)
    measure("html.parser (the pure core)", links_stdlib)
    measure("regex + html.unescape", links_regex)
    measure_urls(docs_site_links())


if __name__ == "__main__":
    main()
