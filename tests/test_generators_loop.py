"""Unit tests of the generators model's own event loop: timers, deadlocks and sockets."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from impls.models.generators_loop import Coro, EventLoop, Future


@pytest.fixture
def loop() -> Any:
    event_loop = EventLoop()
    yield event_loop
    event_loop.close()


def test_call_later_runs_timers_in_deadline_order_then_creation_order(loop: EventLoop) -> None:
    order: list[str] = []
    early: list[str] = []  # timers the loop ran before their deadline, on its own clock
    done: Future[None] = Future()
    scheduled = loop.time()

    def ran(name: str, delay: float) -> None:
        order.append(name)
        if loop.time() < scheduled + delay:
            early.append(name)

    loop.call_later(0.03, ran, "30ms", 0.03)
    loop.call_later(0.01, ran, "10ms", 0.01)
    loop.call_later(0.0, ran, "0ms a", 0.0)
    loop.call_later(0.0, ran, "0ms b", 0.0)
    loop.call_later(0.02, ran, "20ms", 0.02)
    loop.call_later(0.04, done.set_result, None)
    loop.run_until_complete(done.__iter__())
    assert order == ["0ms a", "0ms b", "10ms", "20ms", "30ms"]
    assert early == []


def test_a_cancelled_timer_never_runs(loop: EventLoop) -> None:
    ran: list[str] = []
    done: Future[None] = Future()
    loop.call_later(0.01, ran.append, "cancelled").cancel()
    loop.call_soon(ran.append, "soon").cancel()
    loop.call_later(0.02, done.set_result, None)
    loop.run_until_complete(done.__iter__())
    assert ran == []


def test_cancelled_timers_do_not_pile_up(loop: EventLoop) -> None:
    for _ in range(10_000):
        loop.call_later(3600, print).cancel()
    assert len(loop.timers) <= 200


def test_waiting_on_nothing_is_reported_as_a_deadlock(loop: EventLoop) -> None:
    def stuck() -> Coro[None]:
        yield from Future()

    with pytest.raises(RuntimeError, match="deadlock"):
        loop.run_until_complete(stuck())


def test_socket_coroutines_connect_send_and_receive(loop: EventLoop) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.setblocking(False)
        address = server.getsockname()

        def echo_once() -> Coro[None]:
            yield from loop.wait_readable(server)
            conn, _ = server.accept()
            conn.setblocking(False)
            data = yield from loop.sock_recv(conn, 1024)
            yield from loop.sock_sendall(conn, data.upper())
            loop.close_socket(conn)

        def client() -> Coro[bytes]:
            loop.create_task(echo_once())
            sock = socket.socket()
            sock.setblocking(False)
            try:
                yield from loop.sock_connect(sock, address)
                yield from loop.sock_sendall(sock, b"hello")
                return (yield from loop.sock_recv(sock, 1024))
            finally:
                loop.close_socket(sock)

        assert loop.run_until_complete(client()) == b"HELLO"
        loop.close_socket(server)


def test_sock_connect_to_a_closed_port_raises_connection_refused(loop: EventLoop) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        address = server.getsockname()  # the port is closed once the server is

    def client() -> Coro[None]:
        sock = socket.socket()
        sock.setblocking(False)
        try:
            yield from loop.sock_connect(sock, address)
        finally:
            loop.close_socket(sock)

    with pytest.raises(ConnectionRefusedError):
        loop.run_until_complete(client())


def test_a_socket_nobody_waits_on_stops_being_watched_when_it_turns_ready(
    loop: EventLoop,
) -> None:
    """An idle kept-alive socket that the peer closes: watched still, it would wake the loop
    on every turn; it is dropped from the selector, and a later wait watches it again."""
    idle, peer = socket.socketpair()
    idle.setblocking(False)
    turns: list[int] = []

    def wait_a_little() -> Coro[None]:
        done: Future[None] = Future()
        loop.call_later(0.05, done.set_result, None)
        yield from done

    def main() -> Coro[bytes]:
        peer.send(b"x")
        assert (yield from loop.sock_recv(idle, 10)) == b"x"  # idle, its future done
        peer.close()  # the peer ends it: the idle socket turns readable (EOF)
        yield from wait_a_little()
        turns.append(len(loop.selector.get_map()))
        return (yield from loop.sock_recv(idle, 10))  # watched again, reads the EOF

    try:
        assert loop.run_until_complete(main()) == b""
    finally:
        loop.close_socket(idle)
    assert turns == [0]
