"""URL normalisation and the same-origin policy."""

from __future__ import annotations

import pytest

from impls.core.urls import Origin, normalize, resolve


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
