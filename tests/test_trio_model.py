"""What only the trio model does: a failing worker's exception leaves the nursery unwrapped."""

from __future__ import annotations

import errno
from typing import Any

import pytest
import trio

from impls import trio_nursery
from impls.core import CrawlConfig, Frontier, ResourceLimit
from tests.tinysite import HANG, Behaviour, TinySite, page


@pytest.mark.parametrize("keep_alive", [False, True], ids=["close", "keep-alive"])
def test_out_of_file_descriptors_ends_the_crawl_and_closes_every_connection(
    monkeypatch: pytest.MonkeyPatch, keep_alive: bool
) -> None:
    """/c's socket fails with EMFILE while /a and /b hang: the crawl raises the ResourceLimit
    itself (not an exception group, which the CLI would not know), and the nursery cancels
    the hanging fetches, whose connections are counted closed."""
    made: list[int] = []
    real_socket = trio.socket.socket
    # Close mode: a socket each for /, /a, /b, /c; keep-alive: /a goes on the root's.
    failing = 3 if keep_alive else 4

    def socket_until_c(*args: Any, **kwargs: Any) -> trio.socket.SocketType:
        made.append(1)
        if len(made) == failing:
            raise OSError(errno.EMFILE, "Too many open files")
        return real_socket(*args, **kwargs)

    monkeypatch.setattr(trio.socket, "socket", socket_until_c)
    routes: dict[str, Behaviour] = {
        "/": page("/a", "/b", "/c"),
        "/a": HANG,
        "/b": HANG,
        "/c": page(),
    }
    with TinySite(routes, hang_for=5.0) as site:
        config = CrawlConfig(
            root=site.root, connect_host="127.0.0.1", concurrency=3, keep_alive=keep_alive
        )
        frontier = Frontier(config)
        with pytest.raises(ResourceLimit):
            trio_nursery.run(frontier)
    assert frontier.fetched == {site.root: 200}  # /a and /b were cancelled, not recorded
    assert (frontier.peak_in_flight, frontier.in_flight) == (3, 0)


def test_first_failure_is_the_first_leaf_of_nested_groups() -> None:
    limit = ResourceLimit("out of file descriptors")
    nested = BaseExceptionGroup("outer", [ExceptionGroup("inner", [limit, ValueError()])])
    assert trio_nursery.first_failure(nested) is limit
    assert trio_nursery.first_failure(limit) is limit
