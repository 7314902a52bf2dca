"""What every verdict rule shares: the verdicts, the thresholds, the claims' words, helpers."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from bench.report.figures import KIB, failed_slope_runs
from bench.results import Results
from c10k import catalog, claims
from c10k.stats import Interval

# The models, idle kinds and scenarios the chapter's claims name.
THREADS, ASYNCIO = catalog.THREADS.name, catalog.ASYNCIO.name
THREAD, TASK = catalog.THREAD.name, catalog.ASYNCIO_TASK.name
IDLE, FEW_ACTIVE, SLEEPY = catalog.IDLE.name, catalog.FEW_ACTIVE.name, catalog.SLEEPY.name
SLEEPY_KEEP_ALIVE = catalog.SLEEPY_KEEP_ALIVE.name
C100K = catalog.C100K.name
MANY_LINKS_KEEP_ALIVE = catalog.MANY_LINKS_KEEP_ALIVE.name

REPRODUCED = "reproduced"
CONTRADICTED = "contradicted"
INCONCLUSIVE = "inconclusive (within noise)"
NOT_MEASURABLE = "not measurable here"

# The chapter's numbers ("50k", "3k"), read as KiB.
THREAD_CLAIM_BYTES = 50 * KIB
COROUTINE_CLAIM_BYTES = 3 * KIB
AROUND_FACTOR = 2.0  # "around 50k": within a factor of 2 either way
MIN_FIT_R2 = 0.9  # a per-unit slope with a worse fit is too noisy to judge
MANY_THREADS = 100_000  # "tens of thousands" means a failure below this count
MANY_COROUTINES = 100_000  # "hundreds of thousands" means at least this many
EASY_START_RATE = 10_000.0  # "easily": at least this many started per second (100,000 in 10 s)
MANY_CONNECTIONS = 1_000  # "many connections" starts here
# The ratios' thresholds, which the paired rounds also stop by (c10k/claims.py).
MODERATE_RANGE, GIL_GAIN, UVLOOP_SPEEDUP = (
    claims.MODERATE_RANGE,
    claims.GIL_GAIN,
    claims.UVLOOP_SPEEDUP,
)
# Run statuses that are the crawler's own failure (not the harness's, not the server's).
CRAWLER_FAILURES = ("failed-verification", "crashed", "limit", "timeout")


# How a judged figure is written, by the unit its rule judges in; and a bound of its band, as
# a number and what follows it.
BYTES, TIMES, SHARE, THREAD_COUNT, PER_SECOND = "bytes", "times", "share", "threads", "per-second"
UNIT_TEXT: dict[str, Callable[[float], str]] = {
    BYTES: lambda v: f"{v / KIB:,.{2 if abs(v) < 10 * KIB else 1}f} KiB",
    TIMES: lambda v: f"{v:.2f}x",
    SHARE: lambda v: f"{v:.0%}",
    THREAD_COUNT: lambda v: f"{v:,.0f} threads",
    PER_SECOND: lambda v: f"{v:,.0f}/s",
}
BOUND_TEXT: dict[str, Callable[[float], tuple[str, str]]] = {
    BYTES: lambda v: (f"{v / KIB:g}", " KiB"),
    TIMES: lambda v: (f"{v:g}", "x"),
    SHARE: lambda v: (f"{v * 100:g}", "%"),
    THREAD_COUNT: lambda v: (f"{v:,.0f}", " threads"),
    PER_SECOND: lambda v: (f"{v:,.0f}", "/s"),
}


@dataclass(frozen=True)
class Band:
    """The values of a rule's figure that reproduce its claim: from low (included) to high
    (excluded, or included when includes_high), in the rule's unit; an open end is inf."""

    low: float
    high: float = math.inf
    includes_high: bool = False
    of: str = ""  # what the bounds count when it is not the figure's unit (" connections held")

    def bound(self, value: float, unit: str) -> tuple[str, str]:
        """A bound as a number and what follows it: ('100', ' KiB')."""
        number, after = BOUND_TEXT[unit](value)
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
    unit: str  # the unit of the judged figure (UNIT_TEXT)
    band: Band | None
    qualifier: str = ""  # what the rule asks beyond the band, written after it
    unbound: str = "-"  # the threshold in words, for a band the data sets (C5)


CLAIMS: dict[str, Claim] = {
    "C1": Claim(
        "a Python thread costs around 50k of memory",
        "~50 KiB",
        "RSS + kernel per idle thread within 2x of 50 KiB",
        "C1 a thread costs ~50 KiB",
        BYTES,
        Band(THREAD_CLAIM_BYTES / AROUND_FACTOR, THREAD_CLAIM_BYTES * AROUND_FACTOR, True),
    ),
    "C2": Claim(
        "a coroutine takes barely 3k of memory",
        "~3 KiB",
        "RSS + kernel per idle coroutine at most 2 x 3 KiB, for every kind",
        "C2 a coroutine takes ~3 KiB",
        BYTES,
        Band(0.0, COROUTINE_CLAIM_BYTES * AROUND_FACTOR, True),
        ", the costliest kind",
    ),
    "C3": Claim(
        "starting tens of thousands of threads causes failures",
        "fails at 10,000s",
        "thread start fails at a machine limit below 100,000 threads",
        "C3 threads fail at 10,000s",
        THREAD_COUNT,
        Band(0.0, MANY_THREADS),
        ", stopped by a machine limit",
    ),
    "C4": Claim(
        "Python can easily start hundreds of thousands of coroutines",
        "100,000s",
        "100,000+ idle coroutines of each kind, started at 10,000 or more per second",
        "C4 100,000s of coroutines",
        PER_SECOND,
        Band(EASY_START_RATE),
        ", the slowest kind",
    ),
    "C5": Claim(
        "we run out of threads before we run out of sockets",
        "threads < sockets",
        "threads started on the machine stop at a machine limit below the connections held"
        " at once (older results: per process, below its socket ceiling)",
        "C5 threads before sockets",
        THREAD_COUNT,
        None,
        ", at a machine limit",
        "fewer threads than connections held at once",
    ),
    "C6": Claim(
        "an event loop is moderately slower than threads for a few very active connections",
        "moderately slower",
        "event loop pages/s 50-95% of threads' in few-active, its whole 95% interval inside",
        "C6 event loop moderately slower",
        SHARE,
        Band(*MODERATE_RANGE),
        " of the threads' pages/s",
    ),
    "C7": Claim(
        "async is right for many slow or sleepy connections",
        "async wins",
        "at 1,000+ sleepy connections, asyncio at least as fast as threads (the 95% interval of"
        " the ratio at 1x or above) with less memory per connection, or threads unable to hold"
        " that many",
        "C7 async wins when sleepy",
        TIMES,
        Band(claims.AT_LEAST_AS_FAST),
        ", and less memory per connection",
    ),
    "C8": Claim(
        "without a GIL, threads would do even better",
        "better without GIL",
        "threads on a free-threaded build over the GIL build of the same version, pages/s in"
        " many-links-keep-alive (geometric mean over its points, paired by round), its whole"
        " 95% interval at 1.05x or above",
        "C8 threads better without a GIL",
        TIMES,
        Band(GIL_GAIN),
    ),
    "C9": Claim(
        "uvloop makes asyncio 2-4x faster (uvloop's README)",
        "2-4x",
        "uvloop >= 2x less CPU per page than the same code on asyncio's loop, its whole 95%"
        " interval",
        "C9 uvloop 2-4x faster",
        TIMES,
        Band(UVLOOP_SPEEDUP),
        " less CPU per page",
    ),
}


@dataclass(frozen=True)
class Verdict:
    """One row of the verdict table: the claim, what was measured and judged, the verdict.

    value, interval and band are the judged figure, its interval and the values that reproduce
    the claim, all in unit (UNIT_TEXT): what the table's threshold and the verdict chart read.
    A rule that judged no single figure leaves value None."""

    claim: str
    words: str  # the chapter's words, shortened
    chapter: str  # the chapter's number
    measured: str  # the numbers measured here, in words
    conditions: str  # how, and anything that qualifies it
    verdict: str  # REPRODUCED, CONTRADICTED, INCONCLUSIVE or NOT_MEASURABLE
    rule: str  # the rule that gave the verdict, in one line
    figure: str = "-"  # the judged figure with its interval, or why it has none
    value: float | None = None
    interval: Interval | None = None
    band: Band | None = None
    unit: str = TIMES
    confidence: float = 0.95  # of the interval (a sequential look's is wider: 98.75%)
    stopping: str = ""  # where a sequential comparison stopped, when one did

    @property
    def threshold(self) -> str:
        """The rule's threshold in words: its band, and what it asks beyond it."""
        if self.band is None:
            return CLAIMS[self.claim].unbound
        return self.band.text(self.unit) + CLAIMS[self.claim].qualifier


def figure_text(judged: Judged, unit: str) -> str:
    """The judged figure as the table shows it: '0.86x [0.79x, 0.93x]', or 'trio-task
    2.00 KiB (1 run, no interval)'; without a value, why there is none."""
    if judged.value is None or not math.isfinite(judged.value):
        return judged.why if judged.value is None and judged.why != ONE_RUN else "-"
    shown = UNIT_TEXT[unit]
    label = f"{judged.label} " if judged.label else ""
    if judged.interval is None:
        return f"{label}{shown(judged.value)} ({judged.why})"
    low, high = shown(judged.interval.low), shown(judged.interval.high)
    level = "" if judged.confidence == CONFIDENCE else f" ({judged.confidence:.2%} interval)"
    return f"{label}{shown(judged.value)} [{low}, {high}]{level}"


ONE_RUN = "1 run, no interval"
CONFIDENCE = 0.95  # of every interval but a paired look's (c10k.sequential: 98.75%)


@dataclass(frozen=True)
class Judged:
    """The figure a rule decided on: its value and interval in the claim's unit, why it has
    no interval (or, without a value, why there is no figure), what it is of (label), and the
    band when the data sets it (C5)."""

    value: float | None
    interval: Interval | None = None
    why: str = ONE_RUN
    label: str = ""
    band: Band | None = None
    confidence: float = CONFIDENCE  # of interval
    stopping: str = ""  # where a sequential comparison stopped: "look 3 (8 rounds): decided"


def verdict(
    claim: str,
    measured: str,
    conditions: str,
    outcome: str,
    judged: Judged | None = None,
) -> Verdict:
    """A row of the table: the claim's words, rule and band, with what was measured and
    judged (judged: the figure the outcome was decided on)."""
    about = CLAIMS[claim]
    row = Verdict(
        claim,
        about.words,
        about.chapter,
        measured,
        conditions,
        outcome,
        about.rule,
        band=about.band,
        unit=about.unit,
    )
    if judged is None:
        return row
    return replace(
        row,
        figure=figure_text(judged, about.unit),
        value=judged.value,
        interval=judged.interval,
        band=judged.band or about.band,
        confidence=judged.confidence,
        stopping=judged.stopping,
    )


def on_interval(value: float, interval: Interval | None, low: float, high: float = math.inf) -> str:
    """A figure judged against the range [low, high) that reproduces a claim, on its 95%
    interval: REPRODUCED when the whole interval lies inside, CONTRADICTED when it lies wholly
    outside, INCONCLUSIVE when it straddles a bound. Without an interval (one run) the value
    alone decides."""
    bottom, top = (value, value) if interval is None else (interval.low, interval.high)
    if bottom >= low and top < high:
        return REPRODUCED
    if top < low or bottom >= high:
        return CONTRADICTED
    return INCONCLUSIVE


def profile_name(document: Results) -> str:
    return f"profile {(document.get('profile') or {}).get('name', '?')}"


def idle_missing(document: Results, kind: str) -> str:
    """Why an idle kind has no figures: its failed slope run, or no run at all."""
    for count, status, reason in failed_slope_runs(document).get(kind, []):
        return f"the idle {kind} run ({count:,} units) was {status}: {reason}"
    return f"no idle {kind} run in these results"
