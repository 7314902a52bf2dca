"""Which values a reader may tell apart: two whose 95% intervals overlap are tied within noise.

A value without an interval (one run) stands for itself, as in the verdict rules: it is tied
only with a value whose interval holds it. Pure functions; captions and the answer use them so
that no text ranks values the measurement cannot tell apart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from c10k.quantity import Interval


@dataclass(frozen=True)
class Entry:
    """One model's value and its 95% interval (None: one run)."""

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


def words(
    entries: list[Entry], higher_is_better: bool, shown: Callable[[Entry], str], unit: str
) -> str:
    """The ranking in words that respect the intervals: 'all 9 tied within noise (medians
    1,663 to 3,203 pages/s)'; or 'highest: callbacks 48% [47%, 49%]; lowest: aiohttp 20% [17%, 22%],
    tied within noise with asyncio 23% [20%, 28%] (2.46x apart)'. shown(entry): its value and
    interval as text; unit follows it ('%' without a space). '' for no entries."""
    found = standing(entries, higher_is_better)
    if not found.leaders:
        return ""
    unit = f" {unit}" if unit and not unit.startswith("%") else unit
    if len(entries) == 1:
        return f"{entries[0].name} {shown(entries[0])}{unit}"
    if found.all_tied:
        low, high = min(entries, key=lambda e: e.value), max(entries, key=lambda e: e.value)
        return (
            f"all {len(entries)} tied within noise (medians {shown(Entry(low.name, low.value))} "
            f"to {shown(Entry(high.name, high.value))}{unit})"
        )
    top, bottom = ("highest", "lowest") if higher_is_better else ("lowest", "highest")
    text = f"{top}: {_group(found.leaders, shown, unit)}"
    text += f"; {bottom}: {_group(list(reversed(found.trailers)), shown, unit)}"
    best, worst = found.leaders[0].value, found.trailers[-1].value
    if found.apart and best > 0 and worst > 0:
        text += f" ({max(best, worst) / min(best, worst):.2f}x apart)"
    return text


def _group(group: list[Entry], shown: Callable[[Entry], str], unit: str) -> str:
    """The first entry of a group with its value, then the ones tied with it."""
    first, rest = group[0], group[1:]
    text = f"{first.name} {shown(first)}{unit}"
    if rest:
        text += f", tied within noise with {names(rest)}"
    return text
