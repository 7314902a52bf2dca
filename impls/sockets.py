"""What every model's socket code shares: the read size and the address family of a host."""

from __future__ import annotations

import socket

READ_SIZE = 65536  # bytes asked of one recv(): a whole test page in one call, most of the time


def address_family(host: str) -> socket.AddressFamily:
    """AF_INET6 for an IPv6 literal (it holds a colon), AF_INET for anything else."""
    return socket.AF_INET6 if ":" in host else socket.AF_INET
