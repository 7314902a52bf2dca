"""The library-based models' fetches against the raw streams, fault by fault: the same
outcome and no hidden retry, the stale connection's one retry, a refused connection."""

from __future__ import annotations

import pytest

from impls.core import ErrorKind
from impls.models import aiohttp_adapters, aiohttp_client, httpx_adapters, httpx_client
from tests.asyncio_helpers import LOOPS, run_on
from tests.fault_server import (
    FAULTS,
    LENIENT_IN_AIOHTTP_ONLY,
    Client,
    both_outcomes,
    client_of,
    outcome_on_a_reused_connection,
    refused_outcome,
    requests_on_a_reused_connection,
)

AIOHTTP = client_of(aiohttp_adapters.new_session, aiohttp_client.fetch)
HTTPX = client_of(httpx_adapters.new_client, httpx_client.fetch)
# Each client on the loops its model runs on: aiohttp's on every loop of LOOPS, httpx's on
# asyncio's.
CLIENTS = [pytest.param(AIOHTTP, loop, id=f"aiohttp-{loop}") for loop in LOOPS] + [
    pytest.param(HTTPX, "asyncio", id="httpx-asyncio")
]


@pytest.mark.parametrize("keep_alive", [False, True], ids=["close", "keep-alive"])
@pytest.mark.parametrize(("client", "loop"), CLIENTS)
@pytest.mark.parametrize("path", FAULTS)
def test_the_client_and_raw_streams_agree_on_each_fault(
    path: str, client: Client, loop: str, keep_alive: bool
) -> None:
    expected = FAULTS[path][1]
    # Two requests, the same target: one each, so the library made no hidden retry of its
    # own (none on a new connection in keep-alive mode either).
    found = run_on(loop, both_outcomes(client, path, keep_alive))
    assert found == (expected, expected, [path, path])


@pytest.mark.parametrize(("client", "loop"), CLIENTS)
@pytest.mark.parametrize("path", LENIENT_IN_AIOHTTP_ONLY)
def test_lenient_parsing_agrees(path: str, client: Client, loop: str) -> None:
    raw, via_client, _ = run_on(loop, both_outcomes(client, path))
    assert raw == via_client == 200


@pytest.mark.parametrize(("client", "loop"), CLIENTS)
@pytest.mark.parametrize("path", FAULTS)
def test_a_reused_connection_is_retried_once_only_before_any_byte(
    path: str, client: Client, loop: str
) -> None:
    found = run_on(loop, outcome_on_a_reused_connection(client, path))
    assert found == (FAULTS[path][1], requests_on_a_reused_connection(path))


@pytest.mark.parametrize(("client", "loop"), CLIENTS)
def test_refused_connection_is_connect(client: Client, loop: str) -> None:
    found, frontier = run_on(loop, refused_outcome(client))
    assert found == ErrorKind.CONNECT
    assert (frontier.peak_in_flight, frontier.in_flight) == (1, 0)
