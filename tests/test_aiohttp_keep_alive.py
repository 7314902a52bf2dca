"""The models on a library's connection pool (aiohttp's, httpx's) in keep-alive mode: the
manifest, reused connections, a server that closes them, and the connection accounting
(peak and tries) in both modes."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from c10k.catalog import AIOHTTP, AIOHTTP_UVLOOP, HTTPX, MODELS
from impls.core import CrawlConfig, ErrorKind, Frontier
from server.app import Delivery
from server.site import Site
from tests.asyncio_helpers import reset
from tests.server_helpers import paths, serve_in_thread
from tests.test_site_docs import FAULTY
from tests.tinysite import Gate, TinySite

MODES = {"close": False, "keep-alive": True}
pytestmark = pytest.mark.parametrize(
    "model",
    [
        pytest.param(model.name, marks=pytest.mark.skipif(bool(model.missing()), reason="missing"))
        for model in (AIOHTTP, AIOHTTP_UVLOOP, HTTPX)
    ],
)

# Every link kind and every fault of the test site, on pages that keep their connections.
SITE = dataclasses.replace(FAULTY, seed=11, pages=40, links=30)
TIMEOUT = 0.5  # a hang costs this much a try
MAX_TRIES = 2


def run(model: str, root: str, concurrency: int, keep_alive: bool) -> Frontier:
    config = CrawlConfig(
        root=root,
        connect_host="127.0.0.1",
        concurrency=concurrency,
        keep_alive=keep_alive,
        timeout=TIMEOUT,
        max_tries=MAX_TRIES,
    )
    frontier = Frontier(config)
    MODELS[model].load()(frontier)
    return frontier


def fetched_paths(frontier: Frontier) -> dict[str, int | str]:
    prefix = f"{frontier.origin.scheme}://{frontier.origin.netloc}"
    return {url.removeprefix(prefix): outcome for url, outcome in frontier.fetched.items()}


def tries_for(manifest: dict[str, int | str]) -> int:
    """The tries of a correct crawl: one per URL, and every try of a retryable failure."""
    retried = [
        outcome
        for outcome in manifest.values()
        if isinstance(outcome, str) and ErrorKind(outcome.removeprefix("error:")).retryable
    ]
    return len(manifest) + (MAX_TRIES - 1) * len(retried)


@pytest.mark.parametrize("concurrency", [1, 10])
@pytest.mark.parametrize("mode", MODES)
def test_every_fault_of_the_site_gives_the_manifest(
    model: str, mode: str, concurrency: int
) -> None:
    site = Site(SITE)
    with serve_in_thread(site, Delivery(hang=2 * TIMEOUT)) as srv:
        frontier = run(model, srv.url, concurrency, MODES[mode])
        manifest = paths(site.manifest(srv.url), srv.url)
    assert fetched_paths(frontier) == manifest
    assert {"error:reset", "error:timeout", "error:protocol", 500, 301, 404} <= set(
        manifest.values()
    )
    # The hidden retry of keep-alive mode (a reset on a reused connection) spends no try.
    assert frontier.tries == tries_for(manifest)
    assert frontier.in_flight == 0 and frontier.peak_in_flight <= concurrency


# -- a raw site that keeps its connections ---------------------------------------------------


def kept_page(*hrefs: str) -> bytes:
    """An HTML page that links to each href, on a connection that stays open after it."""
    body = "".join(f'<a href="{href}">link</a>\n' for href in hrefs).encode()
    head = f"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {len(body)}\r\n\r\n"
    return head.encode() + body


def site_of(pages: int) -> dict[str, bytes]:
    """A root that links to `pages` pages without links."""
    hrefs = [f"/p{i}" for i in range(pages)]
    return {"/": kept_page(*hrefs)} | {href: kept_page() for href in hrefs}


class KeptAliveSite(TinySite):
    """A TinySite that answers request after request on one connection, and counts them.

    `ends`: None keeps each connection until the client closes it; "close" or "reset"
    ends a connection (FIN or RST) when its second request arrives, unanswered, as a server
    does that closes an idle connection just as the client reuses it; "close-after" closes
    each connection right after its first response. `hold`: the pages (all but the root)
    wait until this many requests for them are in the server at once.
    """

    def __init__(self, pages: dict[str, bytes], ends: str | None = None, hold: int = 0) -> None:
        super().__init__(pages)
        self.pages = pages
        self.ends = ends
        self._gate = Gate(hold)

    def __enter__(self) -> KeptAliveSite:
        super().__enter__()
        return self

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._connections += 1
        answered = 0
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                path = head.split(b" ", 2)[1].decode()
                self._hits[path] += 1
                if answered and self.ends in ("close", "reset"):
                    if self.ends == "reset":
                        reset(writer)
                    return
                if path != "/":
                    await self._gate.wait()
                writer.write(self.pages[path])
                await writer.drain()
                answered += 1
                if self.ends == "close-after":
                    return
        except (OSError, asyncio.IncompleteReadError):
            pass  # the client closed the connection
        finally:
            writer.close()


def test_a_kept_connection_carries_many_fetches(model: str) -> None:
    for concurrency in (1, 4):
        with KeptAliveSite(site_of(50)) as site:
            frontier = run(model, site.root, concurrency, keep_alive=True)
        assert set(fetched_paths(frontier).values()) == {200}
        assert sum(site.hits.values()) == frontier.tries == 51  # no request sent twice
        assert site.connections <= concurrency
    with KeptAliveSite(site_of(50)) as site:
        run(model, site.root, 4, keep_alive=False)
    assert site.connections == 51  # close mode: one connection per fetch


@pytest.mark.parametrize("ends", ["close", "reset"])
def test_a_reused_connection_closed_by_the_server_is_retried_on_a_fresh_one(
    model: str, ends: str
) -> None:
    with KeptAliveSite(site_of(5), ends=ends) as site:
        frontier = run(model, site.root, 1, keep_alive=True)
    assert set(fetched_paths(frontier).values()) == {200}
    assert frontier.tries == len(frontier.fetched) == 6  # no try spent on the closed ones
    # Each page: once on the reused connection (ended unanswered), once on a fresh one.
    assert site.hits == {"/": 1} | {f"/p{i}": 2 for i in range(5)}
    assert site.connections == 6


def test_the_retry_takes_a_fresh_connection_not_another_pooled_one(model: str) -> None:
    # Every idle connection in the pool fails when reused: a retry on one would fail again.
    with KeptAliveSite(site_of(60), ends="close") as site:
        frontier = run(model, site.root, 3, keep_alive=True)
    assert set(fetched_paths(frontier).values()) == {200}
    assert frontier.tries == len(frontier.fetched) == site.connections == 61
    assert set(site.hits.values()) <= {1, 2}


def test_a_connection_closed_while_idle_costs_no_try(model: str) -> None:
    with KeptAliveSite(site_of(20), ends="close-after") as site:
        frontier = run(model, site.root, 3, keep_alive=True)
    assert set(fetched_paths(frontier).values()) == {200}
    assert frontier.tries == len(frontier.fetched) == 21
    assert site.connections == sum(site.hits.values())  # no connection answered twice


@pytest.mark.parametrize("mode", MODES)
def test_peak_in_flight_is_the_concurrency(model: str, mode: str) -> None:
    concurrency = 6
    # The server answers no page before `concurrency` of them are asked at once.
    with KeptAliveSite(site_of(3 * concurrency), hold=concurrency) as site:
        frontier = run(model, site.root, concurrency, MODES[mode])
    assert len(frontier.fetched) == frontier.tries == 3 * concurrency + 1
    assert frontier.peak_in_flight == concurrency
    assert frontier.in_flight == 0
