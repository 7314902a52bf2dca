"""The asyncio-threads model's own rules: an event loop per usable CPU (at most one per worker),
each with its share of the workers, all taking jobs from one queue and ending together."""

from __future__ import annotations

import threading
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

import pytest

from c10k.catalog import ASYNCIO_THREADS, ASYNCIO_THREADS_UVLOOP, MODELS
from c10k.system import LoopFactory
from impls.models import asyncio_streams, asyncio_threads
from impls.models.asyncio_streams import Stream
from tests.test_keep_alive import gated_site
from tests.test_out_of_descriptors import crawl_out_of_descriptors, last_connection_fails
from tests.tinysite import TinySite, by_path, crawl_frontier, model_modes, page

pytestmark = [
    pytest.mark.parametrize(
        ("model", "keep_alive"),
        model_modes(models=(ASYNCIO_THREADS.name, ASYNCIO_THREADS_UVLOOP.name)),
    ),
    # An exception that leaves a loop's thread is one the crawl did not raise.
    pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning"),
]
CPUS = 3  # the CPUs the model is told it may run on


@dataclass
class Seen:
    """The threads that ran an event loop of the crawl, and those that opened a connection."""

    loops: set[int] = field(default_factory=set)
    connecting: set[int] = field(default_factory=set)


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> Seen:
    """What the crawl's threads did, the model told that it may run on CPUS CPUs."""
    monkeypatch.setattr(asyncio_threads, "usable_cores", lambda: CPUS)
    seen = Seen()
    real_run_on, real_open = asyncio_streams.run_on, asyncio_streams.open_stream

    def run_on(main: Coroutine[Any, Any, None], loop_factory: LoopFactory | None) -> None:
        seen.loops.add(threading.get_ident())
        real_run_on(main, loop_factory)

    async def open_stream(host: str, port: int) -> Stream:
        seen.connecting.add(threading.get_ident())
        return await real_open(host, port)

    monkeypatch.setattr(asyncio_streams, "run_on", run_on)
    monkeypatch.setattr(asyncio_streams, "open_stream", open_stream)
    return seen


def test_every_loop_takes_jobs_another_found(seen: Seen, model: str, keep_alive: bool) -> None:
    """The root's links, found by one loop, are fetched by the workers of all three at once:
    the gate holds each reply until six requests wait together."""
    with TinySite(gated_site(concurrency=6, pages=12)) as site:
        frontier = crawl_frontier(model, site.root, concurrency=6, keep_alive=keep_alive)
    assert set(by_path(frontier).values()) == {200}
    assert len(frontier.fetched) == 13
    assert set(site.hits.values()) == {1}
    assert len(seen.loops) == len(seen.connecting) == CPUS
    assert threading.get_ident() not in seen.loops
    assert (frontier.peak_in_flight, frontier.in_flight) == (6, 0)


def test_no_more_loops_than_workers(seen: Seen, model: str, keep_alive: bool) -> None:
    with TinySite(gated_site(concurrency=2, pages=4)) as site:
        frontier = crawl_frontier(model, site.root, concurrency=2, keep_alive=keep_alive)
    assert len(frontier.fetched) == 5
    assert len(seen.loops) == len(seen.connecting) == 2
    assert (frontier.peak_in_flight, frontier.in_flight) == (2, 0)


@pytest.mark.timeout(10)
def test_nothing_to_fetch_ends_at_once(seen: Seen, model: str, keep_alive: bool) -> None:
    with TinySite({"/": page()}) as site:
        frontier = crawl_frontier(model, site.root, max_pages=0, keep_alive=keep_alive)
    assert frontier.fetched == {}
    assert not seen.connecting


@pytest.mark.timeout(20)
def test_a_failure_in_one_loop_ends_the_crawl_in_every_loop(
    monkeypatch: pytest.MonkeyPatch, seen: Seen, model: str, keep_alive: bool
) -> None:
    """Three loops, a worker each, fetch /a, /b and /c at once: /a and /b hang (30 s), and the last
    connection asked for fails with EMFILE. The crawl raises the ResourceLimit at once, the
    hanging fetches cancelled in the other loops, every connection counted closed."""
    failing = last_connection_fails(asyncio_streams.open_stream, keep_alive)
    monkeypatch.setattr(asyncio_streams, "open_stream", failing)
    frontier = crawl_out_of_descriptors(MODELS[model].load(), keep_alive, hang_for=30.0)
    assert set(by_path(frontier)) <= {"/", "/c"}  # /a and /b were cancelled, not recorded
    # In another loop, /c may be done (closed, in close mode) before the last connection.
    assert frontier.peak_in_flight in (2, 3)
    assert frontier.in_flight == 0
