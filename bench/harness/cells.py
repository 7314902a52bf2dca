"""A figure as runtimes.json records it: its value, its 95% interval and where it was read."""

from __future__ import annotations

from typing import Any

from c10k.stats import Ratio, recorded_interval

Cell = dict[str, Any]  # {"value", "ci95", "at"} or {"value": None, "missing": why}


def cell(value: Any, ci95: Any = None, at: int | None = None) -> Cell | None:
    """The figure with its interval (a [low, high] list or a summary holding one) and the
    concurrency it was read at; None when value is not a number."""
    if not isinstance(value, int | float):
        return None
    interval = recorded_interval(ci95)
    return {"value": float(value), "ci95": interval.as_list() if interval else None, "at": at}


def listed_ratio(ratio: Ratio | None) -> tuple[float | None, list[float] | None]:
    """A ratio paired by round as runtimes.json records it: its value and its 95% interval
    (None for one round)."""
    if ratio is None:
        return None, None
    interval = ratio.interval()
    return ratio.value, (interval.as_list() if interval else None)
