"""Every model in both connection modes fetches exactly the manifest at concurrency 1, 10, 1,000."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.server_helpers import get_json, serve_process
from tests.tinysite import crawl_frontier, model_modes

pytestmark = pytest.mark.parametrize(("model", "keep_alive"), model_modes())


@pytest.fixture(scope="module")
def varied_site() -> Iterator[str]:
    """A deep site with every kind of link and redirect the site model makes, no faults."""
    with serve_process("--pages", "200", "--links", "6", "--seed", "5") as (_, url):
        yield url


@pytest.fixture(scope="module")
def wide_site() -> Iterator[str]:
    """A root linking 1,100 pages, each answered after 500 ms: 1,000 fetches wait at once."""
    wide = ("--pages", "1100", "--links", "0", "--shape", "wide", "--latency", "500ms")
    with serve_process(*wide) as (_, url):
        yield url


@pytest.mark.parametrize("concurrency", [1, 10])
def test_few_workers_fetch_the_manifest(
    varied_site: str, model: str, keep_alive: bool, concurrency: int
) -> None:
    frontier = crawl_frontier(model, varied_site, concurrency=concurrency, keep_alive=keep_alive)
    assert frontier.fetched == get_json(varied_site + "__manifest__")["urls"]
    assert frontier.peak_in_flight <= concurrency and frontier.in_flight == 0


def test_a_thousand_workers_fetch_the_manifest(
    wide_site: str, model: str, keep_alive: bool
) -> None:
    # A generous timeout, as in the sleepy scenario: on a loaded machine 1,000 fetches can
    # queue long in the kernel and the loop, and a timeout would change the outcomes.
    frontier = crawl_frontier(
        model, wide_site, concurrency=1000, keep_alive=keep_alive, timeout=30.0
    )
    assert frontier.fetched == get_json(wide_site + "__manifest__")["urls"]
    # Hundreds of fetches wait at once (on an idle machine all 1,000: every worker takes a
    # page while the first still wait 500 ms); a loaded machine starts 1,000 threads late.
    assert 500 <= frontier.peak_in_flight <= 1000 and frontier.in_flight == 0
