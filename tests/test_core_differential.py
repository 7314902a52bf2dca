"""The two cores give the same outcome for the same bytes: fixed and generated responses
(fed whole, in random pieces and split at every offset) and pages."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

import pytest

from c10k.catalog import CORE_C, CORE_PURE, CORES
from impls.core.http_base import MAX_HEADER_BYTES, ResponseParserBase
from impls.core.outcomes import ErrorKind, FetchError
from impls.core.variants import load_core
from server.site import Site
from server.site_params import PRESETS, SiteParams
from tests.core_samples import Pages, Responses
from tests.test_core_http import CHUNKED, CONTENT_LENGTH, KEPT, UNTIL_EOF, every_split
from tests.test_core_links import CASES

PARSERS = {name: load_core(name).response_parser for name in CORES}
LINKS = {name: load_core(name).extract_links for name in CORES}
MAX_BODY = 1024

RESPONSES = [
    CONTENT_LENGTH,
    CHUNKED,
    UNTIL_EOF,
    KEPT,
    KEPT + b"junk",
    KEPT + b"\r\n",
    KEPT + b"HTTP/1.1 404 X\r\nX-Next: 1\r\nContent-Length: 0\r\n\r\n",
    KEPT + b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n",
    b"",
    b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 301 Moved\r\nLocation: /x/\r\n\r\n",
    b"HTTP/1.0 100 Continue\r\n\r\n" + KEPT,
    b"HTTP/1.1 150 X\r\nContent-Length: 3\r\n\r\nabc" + KEPT,
    b"HTTP/1.1 101 Switching\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n",
    b"HTTP/1.1 101 Switching\r\n\r\n",
    b"HTTP/1.1 304 Not Modified\r\nContent-Length: 50\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nX-A: b \r\n  c \r\n\td\r\nX-B:\r\n e\r\nContent-Length: 2\r\n\r\nok",
    b"HTTP/1.1 200 OK\r\nContent-Length : 2\r\nConnection: foo, Close\r\n\r\nok",
    b'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip , chunked\r\n\r\n2;a="q\\""\r\nok\r\n0\r\n\r\n',
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\nuntil EOF",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\nok\r\n0\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\n0\r\nConnection: close\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Length: 18446744073709551616\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\nok",
    b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok",
    b"RTSP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
    b"HTTP/2.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
    b"HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n",
    b"HTTP/1.1 200 OK\r\n\r\n" + b"x" * 600 + b"y" * 600,
    b"HTTP/1.1 200 OK\r\n" + b"X-Big: " + b"a" * 70_000,
    b"garbage\r\n\r\n",
    b"\x16\x03\x01\x00\xa5SSH-2.0-NOT-HTTP\xff\xfe\x00garbage, no status line\r\n\r\n",
]


def outcome(
    parser_class: type[ResponseParserBase],
    pieces: Iterable[bytes],
    keep_alive: bool,
    max_body: int = MAX_BODY,
    max_header: int = MAX_HEADER_BYTES,
) -> tuple[list[Any], bool, int]:
    """What a model sees: each read's answer, then EOF's (a response, or the kind of the
    error; the name of any other exception), and the parser's `reusable` and `received`."""
    parser = parser_class(max_body, keep_alive, max_header)
    seen: list[Any] = []
    try:
        for piece in pieces:
            response = parser.feed(piece)
            seen.append(None if response is None else dataclasses.astuple(response))
        seen.append(dataclasses.astuple(parser.feed_eof()))
    except FetchError as error:
        seen.append(error.kind)
    except Exception as error:
        seen.append(type(error).__name__)
    return seen, parser.reusable, parser.received


def assert_same(pieces: list[bytes], keep_alive: bool, **limits: int) -> None:
    c, pure = (outcome(PARSERS[name], pieces, keep_alive, **limits) for name in CORES)
    assert pure == c, f"{b''.join(pieces)!r} in pieces of {[len(p) for p in pieces]}"


@pytest.mark.parametrize("keep_alive", [False, True], ids=["close", "keep-alive"])
@pytest.mark.parametrize("data", RESPONSES, ids=range(len(RESPONSES)))
def test_fixed_responses_at_every_split(data: bytes, keep_alive: bool) -> None:
    for pieces in every_split(data)[:400]:
        assert_same(pieces, keep_alive)


@pytest.mark.parametrize("keep_alive", [False, True], ids=["close", "keep-alive"])
def test_generated_responses_at_every_split(keep_alive: bool) -> None:
    samples = Responses(seed=1)
    for _ in range(25):
        data = samples.response()[:500]
        for pieces in every_split(data):
            assert_same(pieces, keep_alive, max_body=64)


@pytest.mark.parametrize(("seed", "odd"), [(2, 0.06), (3, 0.3)])
def test_generated_responses_in_random_pieces(seed: int, odd: float) -> None:
    samples = Responses(seed, odd)
    rng = samples.rng
    for _ in range(2500):
        data = samples.response()
        limits = {"max_body": rng.choice([16, 64, 1024]), "max_header": MAX_HEADER_BYTES}
        if rng.random() < 0.2:
            limits["max_header"] = rng.choice([60, 120])
        assert_same(samples.splits(data), rng.random() < 0.5, **limits)


def test_the_generated_responses_reach_every_outcome() -> None:
    """The samples are whole responses, kept or not, and every error the parser raises."""
    samples = Responses(seed=2)
    reached = set()
    for _ in range(2500):
        seen, reusable, _ = outcome(PARSERS[CORE_C], [samples.response()], keep_alive=True)
        last = seen[-1]
        reached.add(("response", reusable) if isinstance(last, tuple) else last)
    expected = {("response", True), ("response", False), ErrorKind.PROTOCOL, ErrorKind.TOO_LARGE}
    assert reached >= expected


# -- pages ---------------------------------------------------------------------------------

# Where the cores differ on every Python: lexbor builds HTML5's tree, where a misnested <a>
# is cloned and a <script> holding "<!--<script>" is not ended by its first </script>;
# html.parser reads tokens. The set of links is the same but for the second.
KNOWN_DIFFERENCES = [
    (b'<a href="/1"><div><a href="/2"></div>', ["/1", "/1", "/2"], ["/1", "/2"]),
    (
        b"<script><!--<script></script><a href=/esc>--></script><a href=/after>",
        ["/after"],
        ["/esc", "/after"],
    ),
]
# Where html.parser before the HTML5 rules of Python 3.14 (and of the releases they were
# backported to) reads "<!-->" as a comment's start, ends one at "-- >", and ends a text
# element only at an end tag without attributes: (page, lexbor's links, the older one's).
OLDER_PARSER_DIFFERENCES = [
    (b"<!--><a href=/c1></a><!---><a href=/c2></a>", ["/c1", "/c2"], ["/c2"]),
    (b"<!-- x -- ><a href=/c> -->", [], ["/c"]),
    (b"<script>x</script foo><a href=/s>", ["/s"], []),
    (b"<title>t</title x><a href=/t>", ["/t"], []),
]
EDGE_PAGES = [  # each <a> closed: no tree building rearranges them
    b"<noscript><a href=/ns></a></noscript><select><a href=/sel></a></select>",
    b"<svg><a href=/svg></a></svg><math><a href=/m></a></math><table><td><a href=/td></a>",
    b"<textarea><a href=/ta></textarea><title><a href=/ti></title><xmp><a href=/x></xmp>",
    b"<iframe><a href=/if></iframe><noembed><a href=/ne></noembed><style><a href=/s></style>",
    b"<template><a href=/tpl></a></template><a href=/out></a><plaintext><a href=/pt>",
    b"<!-- x --!><a href=/c3></a><![CDATA[<a>]]><?pi <a href=/pi>?><! bogus <a href=/b>>",
    b'<a href=/q?a=1&copy=2></a><a href="&copy;x"></a><a href="&ampx"></a><a href=&copy></a>',
    b'<a href="&notit;"></a><a href="&#0;&#128;&#xD800;&#x110000;"></a><a href="&#x;"></a>',
    b'<a href="&AMP;&Amp;"></a><a href="/a\r\nb"></a><a href="/a\x00b"></a><a href=x href=y></a>',
    b'<a\thref\n=\n"/w"></a><a/href="/sl"></a><a href=="/double"></a><a =x href=/eq></a>',
    b'<a href="/x>y"></a><a href=/x>y></a><ab href=/ab></ab><a- href=/h></a->',
    b"<a\x00href=/nul></a>< a href=/space></a href=/end><a href=/u nohref></a><A HREF=/UP></A>",
]


@pytest.mark.parametrize("page", [html for html, _ in CASES] + EDGE_PAGES)
def test_fixed_pages(page: bytes) -> None:
    assert LINKS[CORE_PURE](page) == LINKS[CORE_C](page)


@pytest.mark.parametrize("seed", [1, 2])
def test_generated_pages(seed: int) -> None:
    pages = Pages(seed)
    for _ in range(1500):
        page = pages.page()
        assert LINKS[CORE_PURE](page) == LINKS[CORE_C](page), page


@pytest.mark.parametrize(
    "params",
    [
        SiteParams(pages=150, links=10, odd_markup=0.5, seed=4),
        SiteParams(**{**PRESETS["docs"], "pages": 40}),
    ],
    ids=["deep-odd-markup", "docs"],
)
def test_the_test_sites_pages(params: SiteParams) -> None:
    site = Site(params)
    for path in ["/", *(site.page_path(i) for i in range(params.pages))]:
        body = site.response(path, "127.0.0.1:8080").body
        assert LINKS[CORE_PURE](body) == LINKS[CORE_C](body), path


@pytest.mark.parametrize(("page", "lexbor", "tokens"), KNOWN_DIFFERENCES)
def test_known_differences(page: bytes, lexbor: list[str], tokens: list[str]) -> None:
    assert (LINKS[CORE_C](page), LINKS[CORE_PURE](page)) == (lexbor, tokens)


@pytest.mark.parametrize(("page", "lexbor", "older"), OLDER_PARSER_DIFFERENCES)
def test_differences_of_older_html_parsers(
    page: bytes, lexbor: list[str], older: list[str]
) -> None:
    assert LINKS[CORE_C](page) == lexbor
    assert LINKS[CORE_PURE](page) in (lexbor, older)


def test_random_pieces_are_random() -> None:
    """The splits helper cuts anywhere, empty pieces included, and loses no byte."""
    samples = Responses(seed=5)
    data = bytes(range(50))
    cuts = [samples.splits(data) for _ in range(200)]
    assert all(b"".join(pieces) == data for pieces in cuts)
    assert any(b"" in pieces for pieces in cuts)
    assert {len(pieces) for pieces in cuts} >= {1, 6}
