"""What every verdict rule shares: the verdicts, the thresholds, the claims' words, helpers."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, is_dataclass
from typing import Any

from bench.report.sources import profile_name
from bench.results import Results
from c10k import catalog, claims, words
from c10k.quantity import T_95, Interval, Quantity
from c10k.words import KIB, ONE_RUN, UNITS

# The models, idle kinds and scenarios the chapter's claims name.
THREADS, ASYNCIO = catalog.THREADS.name, catalog.ASYNCIO.name
THREAD, TASK = catalog.THREAD.name, catalog.ASYNCIO_TASK.name
FEW_ACTIVE, SLEEPY = catalog.FEW_ACTIVE.name, catalog.SLEEPY.name
SLEEPY_KEEP_ALIVE = catalog.SLEEPY_KEEP_ALIVE.name
C100K = catalog.C100K.name
MANY_LINKS_KEEP_ALIVE = catalog.MANY_LINKS_KEEP_ALIVE.name

# The outcomes. A rule decides only on a figure with its interval (a count needs none: C3,
# C5); a figure from one run is FROM_ONE_RUN, and a figure it needs that is missing is
# NOT_MEASURED, naming it (docs/report.md, "Verdicts").
REPRODUCED = "reproduced"
CONTRADICTED = "contradicted"
INCONCLUSIVE = "inconclusive (within noise)"
FROM_ONE_RUN = "inconclusive (one run)"
NOT_MEASURED = "not measured"
OUTCOMES = (REPRODUCED, CONTRADICTED, INCONCLUSIVE, FROM_ONE_RUN, NOT_MEASURED)  # the tally's order

# The chapter's numbers ("50k", "3k"), read as KiB.
THREAD_CLAIM_BYTES = 50 * KIB
COROUTINE_CLAIM_BYTES = 3 * KIB
AROUND_FACTOR = 2.0  # "around 50k": within a factor of 2 either way
MANY_THREADS = 100_000  # "tens of thousands" means a failure below this count
MANY_COROUTINES = 100_000  # "hundreds of thousands" means at least this many
EASY_START_RATE = 10_000.0  # "easily": at least this many started per second (100,000 in 10 s)
MANY_CONNECTIONS = 1_000  # "many connections" starts here
# The ratios' thresholds, which the paired rounds also stop by, are c10k/claims.py's.
# Run statuses that are the crawler's own failure (not the harness's, not the server's).
CRAWLER_FAILURES = ("failed-verification", "crashed", "limit", "timeout")


@dataclass(frozen=True)
class Band:
    """The values of a rule's figure that reproduce its claim: from low (included) to high
    (excluded, or included when includes_high), in the rule's unit; an open end is inf."""

    low: float
    high: float = math.inf
    includes_high: bool = False
    of: str = ""  # what the bounds count when it is not the figure's unit (" connections held")

    def holds(self, value: float) -> bool:
        return self.low <= value and (
            value <= self.high if self.includes_high else value < self.high
        )

    def judge(self, interval: Interval | None) -> str:
        """A figure judged on its interval: REPRODUCED when the whole interval lies inside the
        band, CONTRADICTED when it lies wholly outside, INCONCLUSIVE when it straddles a
        bound. Without an interval (one run) nothing is decided: FROM_ONE_RUN."""
        if interval is None:
            return FROM_ONE_RUN
        if self.holds(interval.low) and self.holds(interval.high):
            return REPRODUCED
        above = interval.low > self.high or (interval.low == self.high and not self.includes_high)
        if interval.high < self.low or above:
            return CONTRADICTED
        return INCONCLUSIVE

    def bound(self, value: float, unit: str) -> tuple[str, str]:
        """A bound as a number and what follows it: ('100', ' KiB')."""
        number, after = UNITS[unit].bound(value)
        return number, self.of or after

    def text(self, unit: str) -> str:
        """'25–100 KiB', '50%–95%', '≥ 2x', '< 100,000 threads', '≤ 6 KiB'."""
        (low, after), (high, after_high) = self.bound(self.low, unit), self.bound(self.high, unit)
        if math.isinf(self.high):
            return f"≥ {low}{after}"
        if self.low <= 0:
            return f"{'≤' if self.includes_high else '<'} {high}{after_high}"
        return f"{low}{after if after in ('%', 'x') else ''}–{high}{after_high}"


@dataclass(frozen=True)
class Claim:
    """A claim of the chapter as the verdict table words it, its rule in one line, and the
    band of the judged figure that reproduces it (None: the band depends on the data)."""

    words: str  # the chapter's words, shortened
    chapter: str  # the chapter's number
    rule: str
    short: str  # a few words, for a chart's row
    unit: str  # the unit of the judged figure (words.UNITS)
    band: Band | None
    qualifier: str = ""  # what the rule asks beyond the band, written after it
    unbound: str = "-"  # the threshold in words, for a band the data sets (C5)
    source: str = "the chapter"  # who made the claim


CLAIMS: dict[str, Claim] = {
    "C1": Claim(
        "a Python thread costs around 50k of memory",
        "~50 KiB",
        "RSS + kernel per idle thread within 2x of 50 KiB",
        "C1 a thread costs ~50 KiB",
        words.BYTES,
        Band(THREAD_CLAIM_BYTES / AROUND_FACTOR, THREAD_CLAIM_BYTES * AROUND_FACTOR, True),
    ),
    "C2": Claim(
        "a coroutine takes barely 3k of memory",
        "~3 KiB",
        "RSS + kernel per idle coroutine at most 2 x 3 KiB, for every kind",
        "C2 a coroutine takes ~3 KiB",
        words.BYTES,
        Band(0.0, COROUTINE_CLAIM_BYTES * AROUND_FACTOR, True),
        ", the costliest kind",
    ),
    "C3": Claim(
        "starting tens of thousands of threads causes failures",
        "fails at 10,000s",
        "thread start fails at a machine limit below 100,000 threads",
        "C3 threads fail at 10,000s",
        words.THREAD_COUNT,
        Band(0.0, MANY_THREADS),
        ", stopped by a machine limit",
    ),
    "C4": Claim(
        "Python can easily start hundreds of thousands of coroutines",
        "100,000s",
        "100,000+ idle coroutines of each kind, started at 10,000 or more per second",
        "C4 100,000s of coroutines",
        words.PER_SECOND,
        Band(EASY_START_RATE),
        ", the slowest kind",
    ),
    "C5": Claim(
        "we run out of threads before we run out of sockets",
        "threads < sockets",
        "threads started on the machine stop at a machine limit below the connections held"
        " at once (the c100k run: several processes and addresses)",
        "C5 threads before sockets",
        words.THREAD_COUNT,
        None,
        ", at a machine limit",
        "fewer threads than connections held at once",
    ),
    "C6": Claim(
        "an event loop is moderately slower than threads for a few very active connections",
        "moderately slower",
        "event loop pages/s 50-95% of threads' in few-active, its whole interval inside",
        "C6 event loop moderately slower",
        words.SHARE,
        Band(*claims.MODERATE_RANGE),
        " of the threads' pages/s",
    ),
    "C7": Claim(
        "async is right for many slow or sleepy connections",
        "async wins",
        "at 1,000+ sleepy connections held, asyncio at least as fast as threads (the interval of"
        " the ratio at 1x or above) or threads unable to hold that many, with less memory per"
        " connection (the two slopes' intervals apart)",
        "C7 async wins when sleepy",
        words.TIMES,
        Band(claims.AT_LEAST_AS_FAST),
        ", and less memory per connection",
    ),
    "C8": Claim(
        "without a GIL, threads would do even better",
        "better without GIL",
        "threads on a free-threaded build over the GIL build of the same version, pages/s in"
        " many-links-keep-alive (geometric mean over its points, paired by round), its whole"
        " interval at 1.05x or above",
        "C8 threads better without a GIL",
        words.TIMES,
        Band(claims.GIL_GAIN),
    ),
    "C9": Claim(
        "uvloop makes asyncio 2-4x faster (uvloop's README)",
        "2-4x",
        "uvloop >= 2x less CPU per page than the same code on asyncio's loop, its whole interval",
        "C9 uvloop 2-4x faster",
        words.TIMES,
        Band(claims.UVLOOP_SPEEDUP),
        " less CPU per page",
        source="uvloop's README",
    ),
}


@dataclass(frozen=True)
class Need:
    """A figure a rule cannot judge without: what it is, in words, and where the document
    holds it (a path of keys, and of indexes into lists, from the document's top)."""

    words: str
    path: tuple[str | int, ...]

    def found_in(self, document: Mapping[str, Any]) -> bool:
        node: Any = document
        for key in self.path:
            if isinstance(key, int):
                node = node[key] if isinstance(node, list) and len(node) > key else None
            elif isinstance(node, Mapping):
                node = node.get(key)
            else:  # a typed value's field (bench.results' dataclasses)
                node = getattr(node, key, None) if is_dataclass(node) else None
            if node is None or (isinstance(node, Quantity) and node.value is None):
                return False
        return True


def lacking(document: Mapping[str, Any], needs: tuple[Need, ...]) -> Need | None:
    """The first of a rule's needs that the document does not hold; None when all are there."""
    return next((need for need in needs if not need.found_in(document)), None)


@dataclass(frozen=True)
class Verdict:
    """A rule's fact, one row of the verdict table; the judged figure (value, interval) is in
    the claim's unit, and each line is short labels and figures (words.line writes them)."""

    claim: str
    verdict: str  # REPRODUCED, CONTRADICTED, INCONCLUSIVE, FROM_ONE_RUN or NOT_MEASURED
    measured: words.Line = ()
    shown: tuple[words.Line, ...] = ()  # how, and anything that qualifies it: one line each
    value: float | None = None
    interval: Interval | None = None
    method: str = T_95  # how the interval was made: "paired rounds, 98.75%"
    label: str = ""  # what the figure is of: "thread"
    why: str = ONE_RUN  # why it has no interval; without a value, why there is no figure
    data_band: Band | None = None  # the band where the data sets it (C5); else the claim's
    stopping: str = ""  # where a sequential comparison stopped: "after 5 paired rounds: decided"
    missing: str = ""  # the figure it needs and lacks (NOT_MEASURED)
    beside: str = ""  # a second view of the judged figure, shown after it and not judged

    @property
    def about(self) -> Claim:
        return CLAIMS[self.claim]

    @property
    def band(self) -> Band | None:
        return self.data_band or self.about.band

    @property
    def threshold(self) -> str:
        """The rule's threshold in words: its band, and what it asks beyond it."""
        if self.band is None:
            return self.about.unbound
        return self.band.text(self.about.unit) + self.about.qualifier

    @property
    def figure(self) -> str:
        """The judged figure as the table shows it: '0.86x [0.79x, 0.93x] (paired rounds,
        98.75%)', or 'thread 42.1 KiB (1 run, no interval)'; without a value, why there is none
        (or the figure it needs)."""
        if self.missing:
            return f"needs {self.missing}"
        if not words.finite(self.value):
            return self.why if self.value is None and self.why != ONE_RUN else "-"
        unit = UNITS[self.about.unit].value
        text = words.with_interval(
            self.value, self.interval, unit, why=self.why, method=self.method
        )
        text = f"{self.label} {text}" if self.label else text
        return f"{text}; {self.beside}" if self.beside else text

    @property
    def conditions(self) -> tuple[str, ...]:
        return tuple(words.line(shown) for shown in self.shown)


def judged(claim: str, found: Quantity | None, label: str = "", why: str = ONE_RUN) -> Verdict:
    """A claim judged by its band on a figure's interval (FROM_ONE_RUN without one)."""
    band = CLAIMS[claim].band
    assert band is not None
    value, interval = (found.value, found.interval) if found else (None, None)
    method = found.method if found else T_95
    outcome = band.judge(interval)
    return Verdict(
        claim, outcome, value=value, interval=interval, method=method, label=label, why=why
    )


def not_measured(claim: str, missing: str, shown: Iterable[words.Line] = ()) -> Verdict:
    """The row of a claim whose rule lacks a figure it needs: no verdict, the figure named."""
    return Verdict(claim, NOT_MEASURED, shown=tuple(shown), missing=missing)


def combined(outcomes: Iterable[str]) -> str:
    """Several figures that must all reproduce a claim: one that contradicts it decides; else
    all must reproduce; else the weakest: a one-run figure, then one within noise."""
    found = set(outcomes)
    for outcome in (CONTRADICTED, FROM_ONE_RUN, INCONCLUSIVE):
        if outcome in found:
            return outcome
    return REPRODUCED


def profile_of(document: Results) -> str:
    return f"profile {profile_name(document)}"
