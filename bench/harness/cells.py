"""A figure as runtimes.json records it: its value, its 95% interval and where it was read."""

from __future__ import annotations

from typing import Any

from c10k.quantity import Quantity

Cell = dict[str, Any]  # {"value", "ci95", "at"} or {"value": None, "missing": why}


def cell(found: Quantity | float | None, at: int | None = None) -> Cell | None:
    """The figure (a quantity, with its interval, or a bare number) and the concurrency it
    was read at; None without a value."""
    value, interval = (
        (found.value, found.interval) if isinstance(found, Quantity) else (found, None)
    )
    if not isinstance(value, int | float):
        return None
    return {"value": float(value), "ci95": interval.as_list() if interval else None, "at": at}
