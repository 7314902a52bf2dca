"""Idle subinterpreters for the idle program: each in a thread of its own, blocked on a pipe."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

from impls.subinterpreters import Interpreter, new_interpreter
from impls.tools.idle import snapshot, step_counts


def park_subinterpreters(count: int, steps: int) -> list[dict[str, Any]]:
    """Subinterpreters parked as the interpreters model runs each one, in a thread of its
    own: each says it is ready on one pipe, then blocks reading another until its write end
    closes. A point is read once every unit of its batch has said so."""
    ready_read, ready_write = os.pipe()
    release_read, release_write = os.pipe()
    wait = f"import os; os.write({ready_write}, b'.'); os.read({release_read}, 1)"
    parked: list[tuple[Interpreter, threading.Thread]] = []
    started = time.perf_counter()
    points = [snapshot(0, started)]
    try:
        for batch in step_counts(count, steps):
            for _ in range(batch):
                interpreter = new_interpreter()
                thread = threading.Thread(target=interpreter.exec, args=(wait,), daemon=True)
                thread.start()
                parked.append((interpreter, thread))
            for _ in range(batch):
                os.read(ready_read, 1)
            points.append(snapshot(len(parked), started))
    finally:
        os.close(release_write)  # every read now returns b"": each unit ends
        for interpreter, thread in parked:
            thread.join()
            interpreter.close()
        for fd in (ready_read, ready_write, release_read):
            os.close(fd)
    return points
