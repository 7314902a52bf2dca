"""Paired rounds until the interval decides: the pre-registered rule (docs/report.md)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from c10k.quantity import Interval
from c10k.stats import mean, t_interval

LOOKS: tuple[int, ...] = (3, 5, 8, 12)
ALPHA = 0.05
PRECISION = 0.05
# A round whose sentinel (the fixed CPU loop before it) took more than this share more wall
# time than the session's fastest loop so far is noisy: its runs count in no figure. Noise
# only slows a fixed loop, so the fastest is the machine when quiet; a median would follow a
# noise floor taken in a burst (docs/notes/2026-11-27-three-sessions.md).
NOISY_SHARE = 0.20


def look_confidence(looks: Sequence[int] = LOOKS, alpha: float = ALPHA) -> float:
    """The confidence of each look's interval: their misses add up to at most alpha."""
    return 1.0 - alpha / len(looks)


@dataclass(frozen=True)
class Look:
    """A comparison judged after `rounds` paired rounds."""

    rounds: int
    value: float  # the geometric mean of the per-round ratios
    interval: Interval | None  # at look_confidence(); None for a single round
    decided: bool  # the interval lies entirely on one side of every bound
    precise: bool  # the interval lies within ±PRECISION of the value

    @property
    def stops(self) -> bool:
        return self.decided or self.precise


def decides(interval: Interval | None, bounds: Sequence[float]) -> bool:
    """True when no bound lies inside the interval (a bound on its edge counts as inside)."""
    return interval is not None and all(
        interval.high < bound or interval.low > bound for bound in bounds
    )


def is_precise(value: float, interval: Interval | None, precision: float = PRECISION) -> bool:
    """True when both ends lie within ±precision of the value (relative)."""
    if interval is None or interval.low <= 0:
        return False
    return interval.high <= value * (1.0 + precision) and interval.low >= value * (1.0 - precision)


def look_at(log_ratios: Sequence[float], bounds: Sequence[float]) -> Look:
    """The look after these rounds: one log ratio per complete round, in round order."""
    finite = [x for x in log_ratios if math.isfinite(x)]
    if not finite:
        raise ValueError("look_at needs at least one finite log ratio")
    value = math.exp(mean(finite))
    logs = t_interval(finite, look_confidence())
    interval = None if logs is None else Interval(math.exp(logs.low), math.exp(logs.high))
    return Look(
        len(finite), value, interval, decides(interval, bounds), is_precise(value, interval)
    )


def judge(
    log_ratios: Sequence[float], bounds: Sequence[float], *, at_cap: bool = False
) -> Look | None:
    """The look a comparison stopped at: the first of LOOKS (that the rounds reached) whose
    interval decides or is precise, else the last look reached; None before the first look.
    at_cap: the cap's rounds have run, noisy ones among them; with fewer ratios than the cap (and
    at least the first look's), the last look is taken at the ratios there are. Rounds past the
    stopping look (run for another comparison of the same scenario) do not change the judgement:
    the rule is fixed before the data are seen."""
    reached = [n for n in LOOKS if n <= len(log_ratios)]
    if at_cap and LOOKS[0] <= len(log_ratios) < LOOKS[-1] and len(log_ratios) not in reached:
        reached.append(len(log_ratios))  # in place of the cap's look, never beside it
    found = None
    for n in reached:
        found = look_at(log_ratios[:n], bounds)
        if found.stops:
            return found
    return found


def stopped(log_ratios: Sequence[float], bounds: Sequence[float], *, at_cap: bool = False) -> bool:
    """True when the comparison needs no more rounds: it stopped at a look, or reached the cap
    (its ratios, or its rounds with noisy ones counted: at_cap)."""
    if at_cap or len(log_ratios) >= LOOKS[-1]:
        return True
    found = judge(log_ratios, bounds)
    return found is not None and found.stops
