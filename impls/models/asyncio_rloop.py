"""The asyncio model on rloop's socket API, which reports a reset (docs/contract.md, loops)."""

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
