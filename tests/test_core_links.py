"""Link extraction: every <a href>, as a browser would read it."""

from __future__ import annotations

import pytest

from impls.core.links import extract_links, is_html


@pytest.mark.parametrize(
    ("html", "expected"),
    [
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
    ],
)
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
