"""Every model in both connection modes equals the manifest at concurrency 1, 10 and 1,000.

The site is `c10k serve` in its own process, with every kind of link and every fault but
hangs (a hang costs only time, and tests/test_keep_alive.py meets it); the crawl runs in
this process, so its frontier's counts can be read too."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from c10k.catalog import MODELS
from c10k.system import raise_open_files_limit
from tests.server_helpers import get_json, serve_process, site_fixture
from tests.tinysite import crawl_frontier, model_modes

FAULTS = "reset=0.03,500=0.03,truncate=0.03,garbage=0.03"
# A small deep site for concurrency 1 and 10; a wide one with a latency for 1,000, so that
# a thousand fetches wait on the server at once.
SMALL = ("--pages", "80", "--shape", "deep", "--latency", "0", "--faults", FAULTS)
WIDE = ("--pages", "1100", "--shape", "wide", "--latency", "100ms", "--faults", FAULTS)
MANY = 1000

# Pins CPUs, loads the machine or changes its limits: one xdist worker runs these (tox.ini).
pytestmark = [
    pytest.mark.xdist_group("machine"),
    pytest.mark.slow,
    pytest.mark.parametrize(("model", "keep_alive"), model_modes()),
]


small_site = site_fixture(*SMALL)


@pytest.fixture(scope="module")
def wide_site() -> Iterator[str]:
    assert raise_open_files_limit(MANY + 100) > MANY + 100, "too few open files for the test"
    with serve_process(*WIDE) as (_, url):
        yield url


@pytest.mark.contract_case("reset")
@pytest.mark.parametrize("concurrency", [1, 10])
def test_small_concurrency_fetches_the_manifest(
    small_site: str, model: str, keep_alive: bool, concurrency: int
) -> None:
    frontier = crawl_frontier(model, small_site, concurrency=concurrency, keep_alive=keep_alive)
    assert frontier.fetched == get_json(small_site + "__manifest__")["urls"]
    assert 1 <= frontier.peak_in_flight <= concurrency
    assert frontier.in_flight == 0


def test_a_thousand_connections_fetch_the_manifest(
    wide_site: str, model: str, keep_alive: bool
) -> None:
    if 0 < MODELS[model].max_concurrency < MANY:  # its finding, in the catalog
        pytest.skip(f"{model} holds at most {MODELS[model].max_concurrency} connections")
    frontier = crawl_frontier(model, wide_site, concurrency=MANY, keep_alive=keep_alive)
    assert frontier.fetched == get_json(wide_site + "__manifest__")["urls"]
    # Each fetch waits 100 ms on the server, so hundreds of workers hold a connection at
    # once (a model that serialised its fetches would stay near 1); never more than C.
    assert 100 < frontier.peak_in_flight <= MANY
    assert frontier.in_flight == 0
