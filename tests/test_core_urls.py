"""URL normalisation and the same-origin policy."""

from __future__ import annotations

import dataclasses
import random

import pytest

from impls.core.links import extract_links
from impls.core.urls import LinkResolver, Origin, normalize, resolve
from server.site import Site
from server.site_params import PRESETS, SiteParams


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:8080/p/1/", "http://127.0.0.1:8080/p/1/"),
        ("HTTP://LocalHost:8080/A/B", "http://localhost:8080/A/B"),  # path case is kept
        ("http://127.0.0.1:80/x", "http://127.0.0.1/x"),
        ("https://127.0.0.1:443/x", "https://127.0.0.1/x"),
        ("https://127.0.0.1:80/x", "https://127.0.0.1:80/x"),  # not https's default port
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080/"),
        ("http://127.0.0.1:8080?q=1", "http://127.0.0.1:8080/?q=1"),
        ("http://127.0.0.1:8080/p/#frag", "http://127.0.0.1:8080/p/"),
        ("http://127.0.0.1:8080/a%2Fb?x=%41", "http://127.0.0.1:8080/a%2Fb?x=%41"),  # no decoding
        ("http://127.0.0.1:8080/a/../b", "http://127.0.0.1:8080/a/../b"),  # no dot removal
        ("http://[::1]:8080/x", "http://[::1]:8080/x"),
        ("http://127.0.0.1:99999/", None),  # a port out of range
    ],
)
def test_normalize(url: str, expected: str | None) -> None:
    assert normalize(url) == expected


@pytest.mark.parametrize(
    ("base", "href", "expected"),
    [
        ("http://h:1/p/3/", "../../p/7/", "http://h:1/p/7/"),
        ("http://h:1/p/3/", "../7/", "http://h:1/p/7/"),
        ("http://h:1/p/3/", "p/8/", "http://h:1/p/3/p/8/"),
        ("http://h:1/p/3", "p/8/", "http://h:1/p/p/8/"),
        ("http://h:1/p/3/", "/x#top", "http://h:1/x"),
        ("http://h:1/p/3/", "#top", "http://h:1/p/3/"),
        ("http://h:1/p/3/", "?q=1", "http://h:1/p/3/?q=1"),
        ("http://h:1/p/3/", "//H:1/y", "http://h:1/y"),
        ("http://h:1/p/3/", "HTTP://h:1/z", "http://h:1/z"),
        ("http://h:1/p/3/", "mailto:a@b.c", "mailto:a@b.c"),
    ],
)
def test_resolve(base: str, href: str, expected: str) -> None:
    assert resolve(base, href) == expected


def test_origin_allows_only_same_scheme_host_and_port() -> None:
    origin = Origin("http://127.0.0.1:8080")
    assert origin.root == "http://127.0.0.1:8080/"
    assert origin.allows("http://127.0.0.1:8080/anything?x")
    for other in [
        "https://127.0.0.1:8080/",
        "http://127.0.0.1:8081/",
        "http://127.0.0.2:8080/",
        "http://127.0.0.1:80801/",
        "http://127.0.0.1:8080@evil.example/",
        "mailto:x@127.0.0.1",
        "javascript:void(0)",
    ]:
        assert not origin.allows(normalize(other) or other), other


def test_origin_refuses_a_non_http_root() -> None:
    with pytest.raises(ValueError):
        Origin("ftp://127.0.0.1/")


def test_request_target_is_ascii_and_keeps_escapes() -> None:
    origin = Origin("http://127.0.0.1:8080/")
    assert origin.request_target("http://127.0.0.1:8080/a%20b?q=1") == "/a%20b?q=1"
    assert origin.request_target("http://127.0.0.1:8080/café x") == "/caf%C3%A9%20x"


# -- the memoised resolver against resolve(): the differential test -------------------------

BASES = (
    "http://h:1/",
    "http://h:1/p/3/",
    "http://h:1/p/3",
    "http://h:1/docs/guide/install.html",
    "http://h:1/docs/guide/install.html?v=2&x=/a/b",
    "http://h:1/docs/guide/",
    "http://h:1/a;p/b;q/c;r",
    "http://h:1/a/../b/./c",
    "http://h:1//double//slash/",
    "http://h:1/%7Euser/%2e%2E/x",
    "http://u:pw@h:1/p/",
    "http://[::1]:8080/v6/page",
    "https://h/secure/x",
    "http://h:1/caf\u00e9/na\u00efve.html",
)
HREFS = (
    "x.html",
    "./x",
    ".",
    "./",
    "..",
    "../",
    "../..",
    "../../../../too/far",
    "../a/b.html",
    "a//b",
    "a/./b/../c",
    "x.html#frag",
    "#top",
    "#",
    "#a#b",
    "?q=1",
    "?",
    "?q#f",
    "/",
    "//",
    "/abs",
    "/abs/../up",
    "/./dot",
    "//h:1/net",
    "//H:80/p",
    "//[::1]/v6",
    "//[::1]:80/x",
    "//[fe80::1%25eth0]/zone",
    "http://h:1/same",
    "HTTP://H:1/case",
    "http://h:80/default",
    "https://h:443/default",
    "http://h:/emptyport",
    "http://h:99999/bad",
    "http://[::1/bad",
    "http:",
    "http:?q",
    "http:#f",
    "http:x",
    "http:;p",
    "HTTP:?q",
    "https:",
    "mailto:a@b.c",
    "javascript:void(0)",
    "tel:+1",
    "ftp://h/f",
    "data:,x",
    ";params",
    "x;p?q#f",
    "%2e%2e/x",
    "%2E/",
    "a%2Fb",
    "%zz",
    "%",
    "caf\u00e9.html",
    "sp ace.html",
    " lead",
    "\x01?q",
    "\ttab",
    "x\ty",
    "line\nbreak",
    "\x00",
    "a\x7fb",
    "\\back\\slash",
    "x:y",
    "1x:y",
    "+x:y",
    "C:\\win",
    "..%2f",
    "?a=1&amp;b=2",
    "&amp;",
    "index.html",
    "../guide/",
    "../../docs/guide/install.html",
    "/docs/guide/Install.html",
    "./?v=3",
)


def test_resolve_links_equals_resolve_for_every_base_and_href() -> None:
    resolver = LinkResolver()
    for base in BASES:
        for _ in range(2):  # the second pass answers from the memo
            expected = [u for u in (resolve(base, h) for h in HREFS) if u is not None]
            assert resolver.resolve_links(base, HREFS) == expected, base


def test_resolve_links_on_generated_hrefs_with_a_small_memo() -> None:
    # A memo of 64 entries empties itself often, so remembered and fresh answers mix.
    rng = random.Random(10)
    pieces = ["a", "B", "..", ".", "", "%2e", "%41", "x.html", "?q", "#f", ";p", ":", "@", "~"]
    pieces += ["sp ace", "caf\u00e9", "a:b", "?", "#", "..%2F", "\\", "[", "]", "\t"]
    resolver = LinkResolver(limit=64)
    for _ in range(3000):
        base = rng.choice(BASES)
        hrefs = []
        for _ in range(8):
            href = "/".join(rng.choice(pieces) for _ in range(rng.randint(1, 4)))
            prefixes = ("", "/", "//h:1/", "http://h:1/", "../", "./", "?", "#", "HTTP://H:80/")
            href = rng.choice((*prefixes, "https://x:443/", "http://x:0080/", "ftp://h/")) + href
            hrefs.append(href or "x")
        expected = [u for u in (resolve(base, h) for h in hrefs) if u is not None]
        assert resolver.resolve_links(base, hrefs) == expected, (base, hrefs)


def test_resolve_links_on_the_hrefs_of_a_docs_site() -> None:
    # Recorded hrefs: every <a href> of a docs site's pages, resolved against each page.
    site = Site(dataclasses.replace(SiteParams(**PRESETS["docs"]), pages=40, links=120))
    root = "http://127.0.0.1:8080"
    resolver = LinkResolver()
    for path in ["/", *(site.page_path(i) for i in range(40))]:
        base = root + path
        hrefs = extract_links(site.response(path, "127.0.0.1:8080").body)
        assert len(hrefs) > 50
        expected = [u for u in (resolve(base, h) for h in hrefs) if u is not None]
        assert resolver.resolve_links(base, hrefs) == expected, path
