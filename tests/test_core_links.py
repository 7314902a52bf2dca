"""Link extraction by each core: every <a href>, as a browser would read it."""

from __future__ import annotations

import platform
import sys
import weakref
from collections.abc import Callable
from typing import ClassVar

import pytest
from selectolax.lexbor import LexborHTMLParser

from c10k.catalog import CORES
from impls.core import heap, links
from impls.core.frontier import is_html
from impls.core.variants import load_core
from server.site import Site
from server.site_params import SiteParams

extract_links: Callable[[bytes], list[str]] = links.extract_links


@pytest.fixture(autouse=True, params=CORES)
def core(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test runs on each core: extract_links is that core's (the DOM checks below
    watch lexbor's parser, which the pure core never makes: they hold trivially there)."""
    variant = load_core(request.param)
    monkeypatch.setattr(sys.modules[__name__], "extract_links", variant.extract_links)
    return str(request.param)


CASES = [
    (b'<a href="/a">x</a>', ["/a"]),
    (b"<a href='/single'>x</a>", ["/single"]),
    (b"<a href=/bare>x</a>", ["/bare"]),
    (b'<A HREF="/upper">x</A>', ["/upper"]),
    (b'<a class="c" HrEf="/mixed" id=i>x</a>', ["/mixed"]),
    (b'<a href="  /spaced\n ">x</a>', ["/spaced"]),
    (b'<a href="/q?a=1&amp;b=2">x</a>', ["/q?a=1&b=2"]),
    (b'<a href="&#47;num&#x2F;hex">x</a>', ["/num/hex"]),
    (b'<a href="">empty</a><a href="   ">blank</a><a>none</a><a href>bare</a>', []),
    (b'<link href="/style.css"><img src="/i.png"><area href="/map">', []),
    (b'<!-- <a href="/commented">x</a> --><a href="/real">y</a>', ["/real"]),
    (b'<script>var s = "<a href=/in-script>";</script>', []),
    (b'<a href="/1"><a href="/2">', ["/1", "/2"]),
    (b'<a href="/caf\xc3\xa9">utf-8</a>', ["/café"]),
    (b'<a href="/bad\xff">not utf-8</a>', ["/bad\ufffd"]),
]


@pytest.mark.parametrize(("html", "expected"), CASES)
def test_extract_links(html: bytes, expected: list[str]) -> None:
    assert extract_links(html) == expected


@pytest.mark.parametrize(
    ("content_type", "expected"),
    [
        ("text/html", True),
        ("text/html; charset=utf-8", True),
        ("TEXT/HTML;charset=latin-1", True),
        (" text/html ", True),
        ("text/plain", False),
        ("application/xhtml+xml", False),
        ("", False),
        (None, False),
    ],
)
def test_is_html(content_type: str | None, expected: bool) -> None:
    assert is_html(content_type) is expected


class _TrackedParser(LexborHTMLParser):
    """The parser, weakly referenced: a test can tell whether the page's DOM is gone."""

    made: ClassVar[list[weakref.ref[LexborHTMLParser]]] = []

    def __init__(self, markup: bytes | str) -> None:
        super().__init__(markup)
        self.made.append(weakref.ref(self))


def _trim_recorder(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Replace malloc_trim; each call records whether every parsed DOM was freed by then."""
    _TrackedParser.made.clear()
    monkeypatch.setattr(links, "LexborHTMLParser", _TrackedParser)
    calls: list[bool] = []

    def trim(pad: int) -> int:
        assert pad == 0
        calls.append(all(ref() is None for ref in _TrackedParser.made))
        return 1

    monkeypatch.setattr(heap, "malloc_trim", lambda: trim)
    return calls


def test_a_large_page_gives_its_freed_dom_back_to_the_system(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = _trim_recorder(monkeypatch)
    hrefs = [f"/p/{i}/" for i in range(60_000)]
    page = "".join(f'<a href="{h}">{h}</a>\n' for h in hrefs).encode()
    assert len(page) >= heap.LARGE_PAGE_BYTES
    assert extract_links(page) == hrefs
    assert calls == [True]  # trimmed once, after the DOM was freed


def test_every_sleepy_root_is_a_large_page() -> None:
    # The sleepy scenario's smallest fitted point, C 1,000: a wide site of 2,000 pages whose
    # root links to all of them. Its free heap after the parse is given back like the
    # larger roots', so every point of the memory fit is measured the same way.
    site = Site(SiteParams(pages=2000, links=0, shape="wide"))
    root = site.response("/", "127.0.0.1:8080").body
    assert len(root) >= heap.LARGE_PAGE_BYTES


def test_a_small_page_leaves_the_heap_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _trim_recorder(monkeypatch)
    assert extract_links(b'<a href="/a">a</a>' * 1000) == ["/a"] * 1000
    assert calls == []


def test_without_malloc_trim_a_large_page_still_parses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "malloc_trim", lambda: None)
    page = b'<a href="/a">a</a>' * (heap.LARGE_PAGE_BYTES // 18 + 1)
    assert len(extract_links(page)) == heap.LARGE_PAGE_BYTES // 18 + 1


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_glibc_has_malloc_trim() -> None:
    trim = heap.malloc_trim()
    assert trim is not None
    assert trim(0) in (0, 1)
