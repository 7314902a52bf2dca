"""Numbers as the report writes them, and the phrases its captions share."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from bench.report.figures import KIB, Problem
from bench.report.ties import Entry, words
from bench.results import Ranking
from c10k.quantity import Interval, Quantity


def finite(value: Any) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


def kib(value_bytes: float | None, digits: int = 1) -> str:
    """Bytes as KiB text, '-' for None."""
    if value_bytes is None or not finite(value_bytes):
        return "-"
    return f"{value_bytes / KIB:,.{digits}f} KiB"


def kib_interval(found: Quantity | None, digits: int = 1) -> str:
    """Bytes as KiB with their interval: '12.5 [11.9, 13.1] KiB'; the figure alone without
    an interval, '-' without a figure."""
    kibs = None if found is None else found.scaled(1 / KIB, "KiB")
    value, interval = (None, None) if kibs is None else (kibs.value, kibs.interval)
    return with_interval(value, interval, lambda v: number(v, digits), why="", unit=" KiB")


def kib_range(interval: Interval | None, digits: int = 1) -> str:
    """An interval of bytes as a KiB range, '11.9-13.1 KiB'; '-' without one."""
    if interval is None:
        return "-"
    return f"{number(interval.low / KIB, digits)}-{number(interval.high / KIB, digits)} KiB"


def percent_gap(gap: float | None) -> str:
    """A relative gap as a signed percentage, '+1.2%'; '-' when there is none."""
    return "-" if gap is None or not finite(gap) else f"{gap * 100:+.1f}%"


def number(value: float | None, digits: int = 0) -> str:
    if value is None or not finite(value):
        return "-"
    return f"{value:,.{digits}f}"


ONE_RUN = "1 run, no interval"


def times(ratio: float | None) -> str:
    """A ratio, '1.32x'; '-' without one."""
    return "-" if ratio is None or not finite(ratio) else f"{ratio:.2f}x"


def percent(share: float | None, digits: int = 0) -> str:
    """A share as a percentage, '48%'; '-' without one."""
    return "-" if share is None or not finite(share) else f"{share * 100:.{digits}f}%"


def quantity_text(
    found: Quantity | None, shown: Callable[[float], str] = times, why: str = "1 run per point"
) -> str:
    """A quantity with its interval: '1.22x [1.00x, 1.49x]', or why it has none ('1.22x (1
    run per point, no interval)'); '-' without one."""
    if found is None:
        return "-"
    return with_interval(found.value, found.interval, shown, why=f"{why}, no interval")


def _listed(found: Any) -> Interval | None:
    """An interval as runtimes.json records it, [low, high]; None when it is not one."""
    if not isinstance(found, list | tuple) or len(found) != 2:
        return None
    if not all(isinstance(v, int | float) and math.isfinite(v) for v in found):
        return None
    return Interval(float(found[0]), float(found[1]))


def ratio_text(
    found: Mapping[str, Any],
    key: str,
    shown: Callable[[float], str] = times,
    why: str = "1 run per point",
) -> str:
    """runtimes.json's ratio found[key] with its interval: '1.22x [1.00x, 1.49x]', or why it
    has none ('1.22x (1 run per point, no interval)'); '-' without one."""
    return quantity_text(found.get(key), shown, why)


def at_point(found: Mapping[str, Any] | None, shown: Callable[[float], str]) -> str:
    """A figure recorded as value, ci95 and the concurrency it was read at: '1,493 [1,258,
    1,822] at C 64'; '- (why it is missing)' without a value."""
    if not found or found.get("value") is None:
        return f"- ({(found or {}).get('missing') or 'no verified run'})"
    interval = _listed(found.get("ci95"))
    text = with_interval(found["value"], interval, shown, why="one run")
    return text + (f" at C {found['at']:,}" if found.get("at") else "")


def with_interval(
    value: float | None,
    interval: Interval | None,
    shown: Callable[[float], str] = number,
    *,
    why: str = ONE_RUN,
    method: str = "",
    unit: str = "",
) -> str:
    """A figure as the report writes every one: '734 [701, 760]', its unit after it ('12.5
    [11.9, 13.1] KiB') and the method that made its interval ('... (t, 95%)'); without an
    interval, why it has none ('734 (1 run, no interval)'; nothing more for why ''); '-'
    without a figure."""
    if value is None or not finite(value):
        return "-"
    if interval is None:
        return f"{shown(value)}{unit}" + (f" ({why})" if why else "")
    text = f"{shown(value)} [{shown(interval.low)}, {shown(interval.high)}]{unit}"
    return text + (f" ({method})" if method else "")


def cell(found: Quantity | None, digits: int = 0, scale: float = 1.0) -> str:
    """A table cell: a figure's value and 95% interval, '734 [701, 760]'; the value alone for
    one run; '-' without a value."""
    if found is None or found.value is None:
        return "-"
    interval = None if found.interval is None else found.interval.scaled(scale)
    return with_interval(found.value * scale, interval, lambda v: number(v, digits), why="")


def span(values: list[int]) -> str:
    """'1-64' for a list of concurrencies, '-' for none."""
    if not values:
        return "-"
    low, high = min(values), max(values)
    return f"{low:,}" if low == high else f"{low:,}-{high:,}"


def plain(value: Any) -> str:
    """A limit as text: thousands separated, None as 'unlimited'."""
    if value is None:
        return "unlimited"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def ranking_entries(found: Ranking) -> list[Entry]:
    """A derived ranking's values with their 95% intervals, as entries to tell apart."""
    return [
        Entry(model, q.value or 0.0, q.interval)
        for model, q in found["values"].items()
        if finite(q.value or 0.0)
    ]


def rank(found: Ranking | None, unit: str, digits: int = 0) -> str:
    """A derived ranking in words that respect its intervals (ties.words): 'highest:
    callbacks 48% [47%, 49%]; lowest: aiohttp 20% [17%, 22%] (2.46x apart)', or 'all 9 tied
    within noise (...)'; '' when nothing was ranked."""
    if not found:
        return ""

    after = "%" if unit == "%" else ""  # a percentage is written 48% [47%, 49%]

    def shown(entry: Entry) -> str:
        return with_interval(
            entry.value, entry.interval, lambda v: number(v, digits) + after, why=""
        )

    entries = ranking_entries(found)
    text = words(entries, found["higher_is_better"], shown, "" if after else unit)
    if len(entries) > 1 and all(e.interval is None for e in entries):
        text += "; one run each, no interval"
    return text


NOT_COUNTED_ANCHOR = "not-counted"  # the section that lists every run that did not count


def crossed_note(found: list[Problem]) -> str:
    """How many runs of a chart did not count, for the end of its caption ('' when none); the
    runs themselves are listed once, under "Runs that did not count"."""
    if not found:
        return ""
    runs = "1 run" if len(found) == 1 else f"{len(found)} runs"
    return f" Crossed: {runs} that did not count (listed under Runs that did not count)."
