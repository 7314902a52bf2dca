"""The crawl contract, scenario by scenario, for every model in both connection modes."""

from __future__ import annotations

import functools
from collections.abc import Callable

import pytest

from impls.core.outcomes import Outcome
from tests.tinysite import (
    BROWSER_LINKS,
    BROWSER_LINKS_PAGE,
    CLOSE,
    HANG,
    RESET,
    Behaviour,
    TinySite,
    Trickle,
    crawl,
    crawl_frontier,
    model_modes,
    page,
    redirect,
    response,
)

pytestmark = pytest.mark.parametrize(("model", "keep_alive"), model_modes())

Crawl = Callable[..., dict[str, Outcome]]


@pytest.fixture
def run(model: str, keep_alive: bool) -> Crawl:
    """crawl() with the test's model and connection mode: run(root, **options)."""
    return functools.partial(crawl, model, keep_alive=keep_alive)


def test_link_cycle(run: Crawl) -> None:
    with TinySite({"/": page("/a", "/b"), "/a": page("/", "/b"), "/b": page("/a")}) as site:
        assert run(site.root) == {"/": 200, "/a": 200, "/b": 200}
        assert set(site.hits.values()) == {1}


def test_redirect_cycle(run: Crawl) -> None:
    with TinySite({"/": page("/a"), "/a": redirect("/b"), "/b": redirect("/a")}) as site:
        assert run(site.root) == {"/": 200, "/a": 302, "/b": 302}


def test_redirect_join(run: Crawl) -> None:
    routes = {"/": page("/a", "/b"), "/a": redirect("/c", 301), "/b": redirect("/c"), "/c": page()}
    with TinySite(routes) as site:
        assert run(site.root) == {"/": 200, "/a": 301, "/b": 302, "/c": 200}
        assert site.hits["/c"] == 1


def test_trailing_slash_redirect(run: Crawl) -> None:
    with TinySite({"/": page("/p/1"), "/p/1": redirect("/p/1/", 301), "/p/1/": page()}) as site:
        assert run(site.root) == {"/": 200, "/p/1": 301, "/p/1/": 200}


def test_redirect_chain_stops_at_the_budget(run: Crawl) -> None:
    routes = {"/": page("/r0")} | {f"/r{i}": redirect(f"/r{i + 1}") for i in range(8)}
    with TinySite(routes) as site:
        fetched = run(site.root, max_redirect=3)
        assert fetched == {"/": 200, "/r0": 302, "/r1": 302, "/r2": 302, "/r3": 302}


def test_links_are_read_as_a_browser_reads_them(run: Crawl) -> None:
    body = BROWSER_LINKS_PAGE + b' <a href="/caf\xc3\xa9">c</a> <a href="/bad\xff">b</a>'
    with TinySite({"/": response(body=body)}) as site:
        assert set(run(site.root)) == BROWSER_LINKS | {"/café", "/bad\ufffd"}


def test_non_html_is_not_parsed(run: Crawl) -> None:
    text = response(body=b'<a href="/hidden">x</a>', content_type="text/plain")
    missing = response(404, b'<a href="/hidden">x</a>')
    with TinySite({"/": page("/text", "/gone"), "/text": text, "/gone": missing}) as site:
        assert run(site.root) == {"/": 200, "/text": 200, "/gone": 404}


def test_prohibited_hosts_are_never_fetched(run: Crawl) -> None:
    with TinySite({"/": page("/trap")}) as elsewhere:
        other_port = elsewhere.root + "trap"
        links = page(other_port, "https" + other_port[4:], "mailto:a@b.c", "javascript:x()")
        routes = {"/": links, "/away": redirect(other_port)}
        with TinySite(routes | {"/x": page("/away")}) as site:
            assert set(run(site.root)) == {"/"}
            assert set(run(site.root + "x")) == {"/x", "/away"}
        assert elsewhere.hits == {}


@pytest.mark.contract_case("reset")
def test_max_tries_for_a_reset(run: Crawl) -> None:
    with TinySite({"/": page("/r"), "/r": RESET}) as site:
        assert run(site.root, max_tries=3) == {"/": 200, "/r": "error:reset"}
        assert site.fresh_hits("/r") == 3  # a reset on a reused connection spends no try


def test_closed_before_any_byte_is_a_reset(run: Crawl) -> None:
    with TinySite({"/": page("/c"), "/c": CLOSE}) as site:
        assert run(site.root, max_tries=2)["/c"] == "error:reset"
        assert site.fresh_hits("/c") == 2


def test_hang_times_out_and_is_retried(run: Crawl) -> None:
    with TinySite({"/": page("/h"), "/h": HANG}) as site:
        assert run(site.root, timeout=0.3, max_tries=2)["/h"] == "error:timeout"
        assert site.hits["/h"] == 2


def test_trickle_past_the_timeout_is_a_timeout(run: Crawl) -> None:
    slow = Trickle(page("/never") + b" " * 200, piece=4, pause=0.05)
    with TinySite({"/": page("/slow"), "/slow": slow}) as site:
        assert run(site.root, timeout=0.5, max_tries=1)["/slow"] == "error:timeout"


def test_trickle_within_the_timeout_is_read_whole(run: Crawl) -> None:
    with TinySite({"/": Trickle(page("/a"), piece=16, pause=0.01), "/a": page()}) as site:
        assert run(site.root) == {"/": 200, "/a": 200}


@pytest.mark.parametrize(
    "reply",
    [
        b"this is not HTTP at all\r\n\r\n",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 tls hello",
        b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\ntruncated",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ],
    ids=["garbage", "binary", "truncated", "bad-chunk"],
)
def test_malformed_reply_is_a_protocol_error_and_not_retried(run: Crawl, reply: bytes) -> None:
    with TinySite({"/": page("/bad"), "/bad": reply}) as site:
        assert run(site.root)["/bad"] == "error:protocol"
        assert site.hits["/bad"] == 1


def test_body_over_the_limit_is_too_large(run: Crawl) -> None:
    declared = response(body=b"x" * 5000)
    undeclared = b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n" + b"y" * 5000
    routes = {
        "/": page("/declared", "/undeclared"),
        "/declared": declared,
        "/undeclared": undeclared,
    }
    with TinySite(routes) as site:
        fetched = run(site.root, max_body=4096)
        assert fetched["/declared"] == "error:too-large"
        assert fetched["/undeclared"] == "error:too-large"


def test_chunked_and_eof_delimited_bodies(run: Crawl) -> None:
    chunked = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n"
    chunked += b'9\r\n<a href="\r\n8\r\n/chunk">\r\n0\r\n\r\n'
    until_eof = b'HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<a href="/eof">x</a>'
    routes = {"/": page("/c", "/e"), "/c": chunked, "/e": until_eof}
    with TinySite(routes) as site:
        assert set(run(site.root)) == {"/", "/c", "/e", "/chunk", "/eof"}


@pytest.mark.contract_case("refused-connect")
def test_unreachable_root_is_one_connect_error(run: Crawl) -> None:
    with TinySite({}) as site:
        root = site.root
    assert run(root, max_tries=2) == {"/": "error:connect"}


def test_concurrency_cap_is_kept(model: str, keep_alive: bool) -> None:
    routes: dict[str, Behaviour] = {"/": page(*[f"/p{i}" for i in range(60)])}
    routes |= {f"/p{i}": Trickle(page(), piece=64, pause=0.02) for i in range(60)}
    with TinySite(routes) as site:
        frontier = crawl_frontier(model, site.root, concurrency=7, keep_alive=keep_alive)
        assert len(frontier.fetched) == 61
        assert 1 < frontier.peak_in_flight <= 7
        assert frontier.in_flight == 0  # every connection counted open was counted closed
