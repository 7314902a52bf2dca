"""The Scrapy peer under the crawl contract: where it keeps it, and each deviation counted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests import tinysite as kit
from tests.tinysite import BROWSER_LINKS, BROWSER_LINKS_PAGE, TinySite, page, redirect, response

pytest.importorskip("scrapy")

ROOT_DIR = Path(__file__).resolve().parent.parent


def scrapy_crawl(root: str, **options: Any) -> dict[str, Any]:
    """`c10k crawl ROOT --model scrapy --json` in its own process (Twisted's reactor runs once
    per process); the document, its fetched map keyed by path."""
    argv = [sys.executable, "-m", "c10k", "crawl", root, "--model", "scrapy", "--json"]
    for name, value in options.items():  # a value of "" is a flag
        argv += [f"--{name.replace('_', '-')}"] + ([str(value)] if value != "" else [])
    env = os.environ | {"PYTHONPATH": str(ROOT_DIR)}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env, check=True)
    document: dict[str, Any] = json.loads(done.stdout)
    prefix = root.rstrip("/")
    document["fetched"] = {u.removeprefix(prefix): o for u, o in document["fetched"].items()}
    return document


def test_link_cycle_and_redirects_equal_the_contract() -> None:
    routes = {
        "/": page("/a", "/b", "/r0", "/loop"),
        "/a": page("/", "/b"),
        "/b": redirect("/c", 301),
        "/c": page(),
        "/loop": redirect("/loop2"),
        "/loop2": redirect("/loop"),
    } | {f"/r{i}": redirect(f"/r{i + 1}") for i in range(8)}
    with TinySite(routes) as site:
        document = scrapy_crawl(site.root, max_redirect=3, keep_alive="")
        assert document["fetched"] == {
            "/": 200,
            "/a": 200,
            "/b": 301,
            "/c": 200,
            "/loop": 302,
            "/loop2": 302,
            "/r0": 302,
            "/r1": 302,
            "/r2": 302,
            "/r3": 302,
        }
        assert document["peer"] is True
        assert document["deviations"] == {}
        assert site.hits["/c"] == 1


def test_links_are_read_as_a_browser_reads_them() -> None:
    body = BROWSER_LINKS_PAGE + b' <a href="mailto:a@b.c">m</a> <a href="/doc.pdf">p</a>'
    text = response(body=b'<a href="/hidden">x</a>', content_type="text/plain")
    with TinySite({"/": response(body=body), "/text": text}) as site:
        assert set(scrapy_crawl(site.root)["fetched"]) == BROWSER_LINKS | {"/doc.pdf"}


def test_prohibited_origins_are_never_fetched() -> None:
    with TinySite({"/": page("/trap")}) as elsewhere:
        other_port = elsewhere.root + "trap"
        routes = {"/": page(other_port, "/away"), "/away": redirect(other_port)}
        with TinySite(routes) as site:
            assert scrapy_crawl(site.root)["fetched"] == {"/": 200, "/away": 302}
        assert elsewhere.hits == {}


def test_faults_get_the_contracts_outcomes_and_tries() -> None:
    routes: dict[str, kit.Behaviour] = {
        "/": page("/reset", "/close", "/hang", "/garbage", "/cut", "/big", "/500"),
        "/reset": kit.RESET,
        "/close": kit.CLOSE,
        "/hang": kit.HANG,
        "/garbage": b"this is not HTTP at all\r\n\r\n",
        "/cut": b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\ntruncated",
        "/big": response(body=b"x" * 5000),
        "/500": response(500, b"oops"),
    }
    with TinySite(routes, hang_for=5) as site:
        document = scrapy_crawl(site.root, max_tries=3, timeout=0.5, max_body=4096, keep_alive="")
        assert document["fetched"] == {
            "/": 200,
            "/reset": "error:reset",
            "/close": "error:reset",
            "/hang": "error:timeout",
            "/garbage": "error:protocol",
            "/cut": "error:protocol",
            "/big": "error:too-large",
            "/500": 500,
        }
        assert site.fresh_hits("/reset") == 3
        assert site.fresh_hits("/close") == 3
        assert site.hits["/hang"] == 3
        assert site.hits["/garbage"] == site.hits["/cut"] == site.hits["/500"] == 1
        assert document["tries"] == 8 + 2 + 2 + 2


def test_trickle_within_the_timeout_and_chunked_bodies() -> None:
    chunked = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n"
    chunked += b'9\r\n<a href="\r\n8\r\n/chunk">\r\n0\r\n\r\n'
    routes: dict[str, kit.Behaviour] = {
        "/": kit.Trickle(page("/c"), piece=16, pause=0.01),
        "/c": chunked,
    }
    with TinySite(routes) as site:
        assert set(scrapy_crawl(site.root)["fetched"]) == {"/", "/c", "/chunk"}


def test_connections_are_counted_and_kept_alive() -> None:
    routes: dict[str, kit.Behaviour] = {"/": page(*[f"/p{i}" for i in range(30)])}
    routes |= {f"/p{i}": kit.Trickle(page(), piece=64, pause=0.02) for i in range(30)}
    with TinySite(routes) as site:
        document = scrapy_crawl(site.root, concurrency=5)
        assert len(document["fetched"]) == 31
        assert 1 < document["peak_in_flight"] <= 5
        assert document["options"]["keep_alive"] is True  # the mode Scrapy really uses
        assert site.connections <= 5


@pytest.mark.parametrize(
    ("routes", "counted", "fetched"),
    [
        pytest.param(
            {"/": page("/q?a=1&b=2", "/q?b=2&a=1", "/%7Eu", "/~u")},
            ("merged-by-fingerprint", 2),
            {"/", "/q?a=1&b=2", "/%7Eu"},  # the contract also fetches /q?b=2&a=1 and /~u
            id="query-order-and-unreserved-escapes",
        ),
        pytest.param(
            {
                "/": response(
                    body=b'<a href="/caf\xc3\xa9">c</a>', content_type="text/html; charset=latin-1"
                )
            },
            ("decoded-not-utf-8", 1),
            {"/", "/caf%C3%83%C2%A9"},  # the contract decodes UTF-8: /café
            id="declared-charset",
        ),
        pytest.param(
            {"/": response(body=b'<base href="/sub/"><a href="x">x</a>')},
            ("base-href", 1),
            {"/", "/sub/x"},  # the contract ignores <base>: /x
            id="base-element",
        ),
    ],
)
def test_each_deviation_is_counted(
    routes: dict[str, bytes], counted: tuple[str, int], fetched: set[str]
) -> None:
    with TinySite(routes) as site:
        document = scrapy_crawl(site.root, keep_alive="")
        assert set(document["fetched"]) == fetched
        assert document["deviations"] == dict([counted])


def test_close_mode_is_counted_as_kept_alive() -> None:
    with TinySite({"/": page("/a"), "/a": page()}) as site:
        document = scrapy_crawl(site.root)
        assert document["deviations"] == {"keep-alive-not-close": 2}
        assert site.connections == 1
