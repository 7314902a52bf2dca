"""Numbers in words, as every stage writes them: a figure with its interval, units, rankings."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeGuard

from c10k.quantity import Interval, Quantity

KIB = 1024.0
ONE_RUN = "1 run, no interval"


def finite(value: Any) -> TypeGuard[float]:
    return isinstance(value, int | float) and math.isfinite(value)


def number(value: float | None, digits: int = 0) -> str:
    """'1,234' ('-' without a finite value)."""
    return f"{value:,.{digits}f}" if finite(value) else "-"


def times(ratio: float | None) -> str:
    """A ratio, '1.32x'; '-' without one."""
    return f"{ratio:.2f}x" if finite(ratio) else "-"


def percent(share: float | None, digits: int = 0) -> str:
    """A share as a percentage, '48%'; '-' without one."""
    return f"{share * 100:.{digits}f}%" if finite(share) else "-"


def percent_gap(gap: float | None) -> str:
    """A relative gap as a signed percentage, '+1.2%'; '-' when there is none."""
    return f"{gap * 100:+.1f}%" if finite(gap) else "-"


def kib(value_bytes: float | None, digits: int = 1) -> str:
    """Bytes as KiB text, '-' for None."""
    return f"{value_bytes / KIB:,.{digits}f} KiB" if finite(value_bytes) else "-"


def with_interval(
    value: float | None,
    interval: Interval | None,
    shown: Callable[[float], str] = number,
    *,
    why: str = ONE_RUN,
    method: str = "",
    unit: str = "",
) -> str:
    """The one writer of a figure with its interval: '734 [701, 760]', its unit after it
    ('12.5 [11.9, 13.1] KiB') and the method that made its interval ('... (t, 95%)');
    without an interval, why it has none ('734 (1 run, no interval)'; nothing more for why
    ''); '-' without a figure."""
    if value is None or not finite(value):
        return "-"
    if interval is None:
        return f"{shown(value)}{unit}" + (f" ({why})" if why else "")
    text = f"{shown(value)} [{shown(interval.low)}, {shown(interval.high)}]{unit}"
    return text + (f" ({method})" if method else "")


def kib_range(interval: Interval | None, digits: int = 1) -> str:
    """An interval of bytes as a KiB range, '11.9-13.1 KiB'; '-' without one."""
    if interval is None:
        return "-"
    return f"{number(interval.low / KIB, digits)}-{number(interval.high / KIB, digits)} KiB"


@dataclass(frozen=True)
class Figure:
    """A quantity as a line of words shows it, '1.22x [1.00x, 1.49x]': how its numbers are
    written, what follows them, and why it has no interval ('1.22x (1 run per point, no
    interval)'); '-' without one."""

    found: Quantity | None
    shown: Callable[[float], str] = times
    why: str = "1 run per point, no interval"
    unit: str = ""

    def __str__(self) -> str:
        if self.found is None:
            return "-"
        q = self.found
        return with_interval(q.value, q.interval, self.shown, why=self.why, unit=self.unit)


def in_kib(found: Quantity | None, digits: int = 1) -> Figure:
    """Bytes as KiB with their interval, '12.5 [11.9, 13.1] KiB'."""
    scaled = None if found is None else found.scaled(1 / KIB, "KiB")
    return Figure(scaled, lambda v: number(v, digits), why="", unit=" KiB")


# A line of words: short labels and the figures between them (or only words), as line()
# writes it.
Line = tuple[str | Figure, ...] | str


def line(parts: Line) -> str:
    return parts if isinstance(parts, str) else "".join(str(part) for part in parts)


def cell(found: Quantity | None, digits: int = 0, scale: float = 1.0) -> str:
    """A table cell: a figure's value and 95% interval, '734 [701, 760]'; the value alone for
    one run; '-' without a value."""
    scaled = None if found is None else found.scaled(scale, found.unit)
    return str(Figure(scaled, lambda v: number(v, digits), why=""))


def span(values: list[int]) -> str:
    """'1-64' for a list of concurrencies, '-' for none."""
    if not values:
        return "-"
    low, high = min(values), max(values)
    return f"{low:,}" if low == high else f"{low:,}-{high:,}"


def counts(values: Iterable[int]) -> str:
    """'1,000, 3,000, 10,000'."""
    return ", ".join(f"{v:,}" for v in values)


def plain(value: Any) -> str:
    """A limit as text: thousands separated, None as 'unlimited'."""
    if value is None:
        return "unlimited"
    return f"{value:,}" if isinstance(value, int) else str(value)


# -- the units a verdict judges in: a value, and a bound of a band (a number, what follows) --


@dataclass(frozen=True)
class Unit:
    value: Callable[[float], str]
    bound: Callable[[float], tuple[str, str]]


BYTES, TIMES, SHARE, THREAD_COUNT, PER_SECOND = "bytes", "times", "share", "threads", "per-second"
UNITS: dict[str, Unit] = {
    BYTES: Unit(
        lambda v: f"{v / KIB:,.{2 if abs(v) < 10 * KIB else 1}f} KiB",
        lambda v: (f"{v / KIB:g}", " KiB"),
    ),
    TIMES: Unit(times, lambda v: (f"{v:g}", "x")),
    SHARE: Unit(percent, lambda v: (f"{v * 100:g}", "%")),
    THREAD_COUNT: Unit(lambda v: f"{v:,.0f} threads", lambda v: (f"{v:,.0f}", " threads")),
    PER_SECOND: Unit(lambda v: f"{v:,.0f}/s", lambda v: (f"{v:,.0f}", "/s")),
}


# -- which values a reader may tell apart: two whose 95% intervals overlap are tied ---------


@dataclass(frozen=True)
class Entry:
    """One model's value and its 95% interval (None: one run, which stands for itself: it is
    tied only with a value whose interval holds it)."""

    name: str
    value: float
    interval: Interval | None = None

    @property
    def low(self) -> float:
        return self.value if self.interval is None else min(self.interval.low, self.value)

    @property
    def high(self) -> float:
        return self.value if self.interval is None else max(self.interval.high, self.value)


def overlaps(a: Entry, b: Entry) -> bool:
    """Whether a and b are tied within noise: their intervals (or values) share a point."""
    return a.low <= b.high and b.low <= a.high


@dataclass(frozen=True)
class Standing:
    """A ranking as far as the intervals allow: the best and the values tied with it (best
    first), the worst and the values tied with it that are not among the leaders (worst
    last), and whether the best and the worst lie apart."""

    leaders: list[Entry]
    trailers: list[Entry]
    apart: bool

    @property
    def all_tied(self) -> bool:
        return not self.trailers


def standing(entries: list[Entry], higher_is_better: bool) -> Standing:
    """entries ranked best first; every entry whose interval overlaps the best's leads with it,
    every other one whose interval overlaps the worst's trails with it."""
    ranked = sorted(entries, key=lambda e: e.value, reverse=higher_is_better)
    if not ranked:
        return Standing([], [], False)
    best, worst = ranked[0], ranked[-1]
    leaders = [e for e in ranked if overlaps(e, best)]
    trailers = [e for e in ranked if e not in leaders and overlaps(e, worst)]
    return Standing(leaders, trailers, not overlaps(best, worst))


def names(entries: list[Entry]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    found = [e.name for e in entries]
    return found[0] if len(found) == 1 else ", ".join(found[:-1]) + " and " + found[-1]


def tied_with(others: list[Entry]) -> str:
    """', tied within noise with a and b' after the best; '' when none is tied with it."""
    return f", tied within noise with {names(others)}" if others else ""


def ranking(
    entries: list[Entry], higher_is_better: bool, shown: Callable[[Entry], str], unit: str
) -> str:
    """The ranking in words that respect the intervals: 'all 9 tied within noise (medians
    1,663 to 3,203 pages/s)'; or 'highest: callbacks 48% [47%, 49%]; lowest: aiohttp 20% [17%,
    22%], tied within noise with asyncio 23% [20%, 28%] (2.46x apart)'. shown(entry): its
    value and interval as text; unit follows it ('%' without a space). '' for no entries."""
    found = standing(entries, higher_is_better)
    if not found.leaders:
        return ""
    unit = f" {unit}" if unit and not unit.startswith("%") else unit

    def group(found: list[Entry]) -> str:
        return f"{found[0].name} {shown(found[0])}{unit}{tied_with(found[1:])}"

    if len(entries) == 1:
        return group(entries)
    if found.all_tied:
        low, high = min(entries, key=lambda e: e.value), max(entries, key=lambda e: e.value)
        return (
            f"all {len(entries)} tied within noise (medians {shown(Entry(low.name, low.value))} "
            f"to {shown(Entry(high.name, high.value))}{unit})"
        )
    top, bottom = ("highest", "lowest") if higher_is_better else ("lowest", "highest")
    text = f"{top}: {group(found.leaders)}; {bottom}: {group(list(reversed(found.trailers)))}"
    best, worst = found.leaders[0].value, found.trailers[-1].value
    if found.apart and best > 0 and worst > 0:
        text += f" ({max(best, worst) / min(best, worst):.2f}x apart)"
    return text
