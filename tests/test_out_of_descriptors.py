"""Running out of file descriptors while other fetches wait, in the async/await models: the
crawl ends with the ResourceLimit itself, and every connection it counted open is closed."""

from __future__ import annotations

import asyncio
import errno
from collections.abc import Callable
from typing import Any

import pytest
import trio

from impls.core import CrawlConfig, Frontier, ResourceLimit
from impls.models import asyncio_rloop, asyncio_streams, httpx_client, trio_nursery
from tests.tinysite import HANG, Behaviour, TinySite, page

# Pins CPUs, loads the machine or changes its limits: one xdist worker runs these (tox.ini).
pytestmark = pytest.mark.xdist_group("machine")

EMFILE = OSError(errno.EMFILE, "Too many open files")


def fail_nth_call(real: Callable[..., Any], n: int) -> Callable[..., Any]:
    """`real`, except that its nth call raises EMFILE (an async function stays async)."""
    calls: list[int] = []

    def check() -> None:
        calls.append(1)
        if len(calls) == n:
            raise EMFILE

    if asyncio.iscoroutinefunction(real):

        async def failing_async(*args: Any, **kwargs: Any) -> Any:
            check()
            return await real(*args, **kwargs)

        return failing_async

    def failing(*args: Any, **kwargs: Any) -> Any:
        check()
        return real(*args, **kwargs)

    return failing


# (the model's run, the module and the name of what opens each connection)
MODELS: dict[str, tuple[Callable[[Frontier], None], object, str]] = {
    "asyncio": (asyncio_streams.run, asyncio, "open_connection"),
    "asyncio-uvloop": (asyncio_streams.run_uvloop, asyncio, "open_connection"),
    "asyncio-rloop": (asyncio_rloop.run, asyncio_rloop, "open_socket"),
    # anyio's connect (under httpcore's) asks the loop for the connection.
    "httpx": (httpx_client.run, asyncio.base_events.BaseEventLoop, "create_connection"),
    "trio": (trio_nursery.run, trio.socket, "socket"),
}


@pytest.mark.parametrize("keep_alive", [False, True], ids=["close", "keep-alive"])
@pytest.mark.parametrize("model", MODELS)
def test_out_of_descriptors_ends_the_crawl_and_closes_every_connection(
    monkeypatch: pytest.MonkeyPatch, model: str, keep_alive: bool
) -> None:
    """/c's connection fails with EMFILE while /a and /b hang: the crawl raises the
    ResourceLimit itself (trio: not an exception group, which the CLI would not know), the
    hanging fetches are cancelled, and every connection, the failed one too, is counted
    closed."""
    run, module, opener = MODELS[model]
    monkeypatch.setattr(module, opener, last_connection_fails(getattr(module, opener), keep_alive))
    frontier = crawl_out_of_descriptors(run, keep_alive, hang_for=5.0)
    assert frontier.fetched == {frontier.origin.root: 200}  # /a and /b were cancelled
    assert (frontier.peak_in_flight, frontier.in_flight) == (3, 0)


def last_connection_fails(real: Callable[..., Any], keep_alive: bool) -> Callable[..., Any]:
    """The opener, whose last connection for / -> /a, /b, /c fails with EMFILE. Close mode: a
    connection each for /, /a, /b, /c; keep-alive: one of the three goes on the root's."""
    return fail_nth_call(real, 3 if keep_alive else 4)


def crawl_out_of_descriptors(
    run: Callable[[Frontier], None], keep_alive: bool, hang_for: float
) -> Frontier:
    """The crawl of / -> /a, /b (both hang for hang_for seconds) and /c, three at once, which
    must raise the ResourceLimit (the caller's opener fails: last_connection_fails)."""
    routes: dict[str, Behaviour] = {
        "/": page("/a", "/b", "/c"),
        "/a": HANG,
        "/b": HANG,
        "/c": page(),
    }
    with TinySite(routes, hang_for=hang_for) as site:
        config = CrawlConfig(
            root=site.root,
            connect_host="127.0.0.1",
            concurrency=3,
            keep_alive=keep_alive,
            timeout=2 * hang_for,
        )
        frontier = Frontier(config)
        with pytest.raises(ResourceLimit):
            run(frontier)
    return frontier
