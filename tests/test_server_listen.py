"""`c10k serve --listen`: one site behind several addresses, its stats summed over all."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator
from urllib.parse import urlsplit

import psutil
import pytest

from c10k.system import raise_open_files_limit
from server.app import ACCEPT_QUEUES
from server.cli import parse_listen, parse_options
from server.serve import listen_all
from tests.server_helpers import RawReply, get_json, serve_process, wait_for

THREE = ("127.0.0.1", "127.0.0.2", "127.0.0.3")


def get_via(address: str, url: str, path: str) -> RawReply:
    """GET url's path through another address of the same server: the Host header is url's."""
    parts = urlsplit(url)
    with socket.create_connection((address, parts.port), timeout=10) as sock:
        sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nConnection: close\r\n\r\n".encode()
        )
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return RawReply(data, None)


def test_two_workers_on_three_addresses_serve_one_site_and_sum_the_stats() -> None:
    listen = f"{THREE[0]}-{THREE[-1]}"
    with serve_process("--pages", "20", "--workers", "2", "--listen", listen) as (_, url):
        assert url.startswith("http://127.0.0.1:")
        pages: dict[str, set[bytes]] = {}
        for address in THREE:
            for path in ("/", "/p/3/"):
                reply = get_via(address, url, path)
                assert reply.status == 200
                pages.setdefault(path, set()).add(reply.body)
        # The same bytes whichever door: absolute links name the Host header's authority.
        assert all(len(bodies) == 1 for bodies in pages.values())
        stats = get_json(url + "__stats__")
        assert stats["addresses"] == list(THREE)
        assert stats["requests"] == 6 and stats["requests_by_address"] == [2, 2, 2]
        assert sum(stats["requests_by_worker"]) == 6 and stats["workers"] == 2
        assert stats["open_files_per_worker"] > 0
        # The manifest asked through another door is the site's, under the first address.
        assert get_via(THREE[2], url, "/__manifest__").body.count(url.encode()) > 20


def test_without_listen_the_stats_keep_their_fields() -> None:
    with serve_process("--pages", "2") as (_, url):
        assert "addresses" not in get_json(url + "__stats__")


def test_listen_grammar() -> None:
    assert parse_listen("127.0.0.1-127.0.0.3,::1") == [*THREE, "::1"]
    assert parse_listen(" 127.0.0.9 ") == ["127.0.0.9"]
    opts = parse_options(["--listen", "127.0.0.2,127.0.0.1"])
    assert opts.host == "127.0.0.2" and opts.addresses == ["127.0.0.2", "127.0.0.1"]
    assert parse_options([]).addresses == ["127.0.0.1"]


def test_non_loopback_listen_is_allowed_when_asked() -> None:
    opts = parse_options(["--listen", "127.0.0.1,10.1.2.3", "--allow-non-loopback"])
    assert opts.addresses == ["127.0.0.1", "10.1.2.3"]


@contextlib.contextmanager
def held_requests(url: str, per_address: int) -> Iterator[list[socket.socket]]:
    """per_address connections to each of THREE, each with a request in flight; closed on exit."""
    parts = urlsplit(url)
    request = f"GET /p/1/ HTTP/1.1\r\nHost: {parts.netloc}\r\n\r\n".encode()
    socks: list[socket.socket] = []
    try:
        for address in THREE:
            for _ in range(per_address):
                sock = socket.create_connection((address, parts.port), timeout=10)
                socks.append(sock)
                sock.sendall(request)
        yield socks
    finally:
        for sock in socks:
            sock.close()


def test_peak_in_flight_is_summed_over_workers_and_addresses() -> None:
    """A bounded load: 3,000 connections at once over three addresses, each request held by
    the server's latency; the summed peak must be exactly what was opened."""
    per_address = 1000
    total = per_address * len(THREE)
    if raise_open_files_limit(total + 200) < total + 200:
        pytest.skip("the open-file limit is below the connections this test opens")
    listen = ",".join(THREE)
    args = ("--pages", "5", "--workers", "2", "--listen", listen, "--latency", "60s")
    with serve_process(*args) as (_, url):
        with held_requests(url, per_address):
            assert wait_for(lambda: get_json(url + "__stats__")["in_flight"] == total, 60)
            stats = get_json(url + "__stats__")
            assert stats["peak_in_flight"] == total
            assert stats["requests_by_address"] == [per_address] * len(THREE)
        # Closed by the client: the handlers are cancelled and in_flight falls back to 0.
        assert wait_for(lambda: get_json(url + "__stats__")["in_flight"] == 0, 30)


def listening_sockets(port: int) -> dict[str, int]:
    """Listening TCP sockets on `port` per local IPv4 address, machine-wide."""
    counts: dict[str, int] = {}
    for conn in psutil.net_connections("tcp4"):
        if conn.status == psutil.CONN_LISTEN and conn.laddr.port == port:
            counts[conn.laddr.ip] = counts.get(conn.laddr.ip, 0) + 1
    return counts


@pytest.mark.parametrize("workers", [1, 2])
def test_every_worker_listens_on_each_address_with_several_accept_queues(workers: int) -> None:
    # One accept queue holds somaxconn connections, and a SYN dropped from a full one comes
    # back a second or more later (docs/notes/2026-11-25-accept-queue-overflow.md).
    listen = f"{THREE[0]}-{THREE[-1]}"
    args = ("--pages", "2", "--workers", str(workers), "--listen", listen)
    with serve_process(*args) as (_, url):
        port = urlsplit(url).port
        assert port is not None
        assert listening_sockets(port) == dict.fromkeys(THREE, workers * ACCEPT_QUEUES)
        for address in THREE:
            assert get_via(address, url, "/").status == 200


def test_listen_all_puts_its_queues_on_one_port() -> None:
    socks = listen_all(THREE[:2], 0, reuse_port=True, backlog=8, queues=3)
    try:
        ports = {sock.getsockname()[1] for sock in socks}
        assert len(socks) == 6 and len(ports) == 1
        assert [sock.getsockname()[0] for sock in socks] == [THREE[0]] * 3 + [THREE[1]] * 3
    finally:
        for sock in socks:
            sock.close()
