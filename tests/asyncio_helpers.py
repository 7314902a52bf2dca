"""Helpers for tests of asyncio code: the event loops to run it on, a reset from the server."""

from __future__ import annotations

import asyncio
import importlib.util
import socket
import struct
from collections.abc import Coroutine
from typing import Any, TypeVar

from c10k.system import LoopFactory, loop_factory

T = TypeVar("T")

# asyncio's own loop always; uvloop's when it is installed.
LOOPS: dict[str, LoopFactory | None] = {"asyncio": None}
if importlib.util.find_spec("uvloop") is not None:
    LOOPS["uvloop"] = loop_factory("uvloop")


def run_on(loop: str, main: Coroutine[Any, Any, T]) -> T:
    """Run main to its end on the named loop of LOOPS; its result."""
    with asyncio.Runner(loop_factory=LOOPS[loop]) as runner:
        return runner.run(main)


def reset(writer: asyncio.StreamWriter) -> None:
    """End the connection with an RST, not a FIN: SO_LINGER on with 0 s, then abort."""
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()
