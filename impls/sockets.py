"""What every model's socket code shares: the read size, an address family, a held connection."""

from __future__ import annotations

import socket

from impls.core import (
    ErrorKind,
    Frontier,
    Response,
    ResponseParserBase,
    retry_on_fresh_connection,
)

READ_SIZE = 65536  # bytes asked of one recv(): a whole test page in one call, most of the time


def address_family(host: str) -> socket.AddressFamily:
    """AF_INET6 for an IPv6 literal (it holds a colon), AF_INET for anything else."""
    return socket.AF_INET6 if ":" in host else socket.AF_INET


class HeldConnection:
    """A worker's connection to the origin: none between fetches, unless kept alive.

    A model's subclass makes it (counted open in the frontier just before it connects)
    and closes it (counted closed just after); this class applies the contract after
    each try (docs/contract.md, "Connection modes").
    """

    def __init__(self, frontier: Frontier) -> None:
        self.frontier = frontier
        self.address = (frontier.config.connect_host, frontier.origin.port)
        self.sock: socket.socket | None = None

    def close(self) -> None:
        raise NotImplementedError

    def received(self, parser: ResponseParserBase, data: bytes) -> Response | None:
        """Bytes read from the connection (b'': the server closed it) through the parser: the
        whole response once it is, else None. After a whole response the connection is kept
        if the response allows, else closed."""
        response = parser.feed(data) if data else parser.feed_eof()
        if response is not None and not parser.reusable:
            self.close()
        return response

    def fail(self, reused: bool, parser: ResponseParserBase, kind: ErrorKind) -> bool:
        """After a failed try: close the connection; whether to send the request once more
        on a fresh one, without spending a try (a kept-alive connection gone stale)."""
        self.close()
        return retry_on_fresh_connection(reused, parser.received, kind)
