"""The asyncio model on rloop, the Rust event loop: its own code, on the loop's socket API.

rloop 0.5's TCP transports, which asyncio's streams run on, never report a reset by the
peer: no error, no connection_lost(); the read waits until the fetch times out, so a reset
would be `error:timeout` and a kept connection reset while idle would cost a try. Its
socket API reports it (ConnectionResetError), so the asyncio model's queue, workers and
fetch run unchanged, with a connection made by `loop.sock_connect()`, written by
`loop.sock_sendall()` and read by `loop.sock_recv()` in place of `asyncio.open_connection()`
(docs/contract.md, "Which loop and which API"). tests/test_rloop_loop.py says when the
transports can be used again.
"""

from __future__ import annotations

import asyncio
import socket

from c10k.system import rloop_loop_factory
from impls.core import Frontier
from impls.models import asyncio_streams


class SocketStream:
    """A connected non-blocking socket, written and read through the running loop: both
    halves of a stream, as the asyncio model's fetch writes, reads and closes one."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.loop = asyncio.get_running_loop()
        self.unsent = b""

    def write(self, data: bytes) -> None:
        # The fetch writes without waiting, as to a stream's buffer: the next read sends it.
        self.unsent += data

    async def read(self, n: int) -> bytes:
        if self.unsent:
            # Whole, through the loop when the socket's buffer takes only part of it.
            data, self.unsent = self.unsent, b""
            await self.loop.sock_sendall(self.sock, data)
        return await self.loop.sock_recv(self.sock, n)

    def close(self) -> None:
        self.sock.close()


async def open_socket(host: str, port: int) -> asyncio_streams.Stream:
    """A socket connected by the loop (an IP literal: no resolver); closed if that fails."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, (host, port))
    except BaseException:
        sock.close()
        raise
    stream = SocketStream(sock)
    return stream, stream


def run(frontier: Frontier) -> None:
    asyncio_streams.run_on(
        asyncio_streams.crawl_streams(frontier, open_socket), rloop_loop_factory()
    )
