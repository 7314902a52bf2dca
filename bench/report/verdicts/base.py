"""What every verdict rule shares: the verdicts, the thresholds, the claims' words, helpers."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from bench.report.figures import KIB, failed_slope_runs
from c10k import catalog
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
MODERATE_RANGE = (0.5, 0.95)  # "moderately slower": 50-95% of the threads' pages/s
MANY_CONNECTIONS = 1_000  # "many connections" starts here
GIL_GAIN = 1.05  # "even better": at least 5% more pages/s than threads with the GIL
UVLOOP_SPEEDUP = 2.0  # "2-4x faster": at least 2x less CPU per page
# Run statuses that are the crawler's own failure (not the harness's, not the server's).
CRAWLER_FAILURES = ("failed-verification", "crashed", "limit", "timeout")


@dataclass(frozen=True)
class Claim:
    """A claim of the chapter as the verdict table words it, and its rule in one line."""

    words: str  # the chapter's words, shortened
    chapter: str  # the chapter's number
    rule: str


CLAIMS: dict[str, Claim] = {
    "C1": Claim(
        "a Python thread costs around 50k of memory",
        "~50 KiB",
        "RSS + kernel per idle thread within 2x of 50 KiB",
    ),
    "C2": Claim(
        "a coroutine takes barely 3k of memory",
        "~3 KiB",
        "RSS + kernel per idle coroutine at most 2 x 3 KiB, for every kind",
    ),
    "C3": Claim(
        "starting tens of thousands of threads causes failures",
        "fails at 10,000s",
        "thread start fails at a machine limit below 100,000 threads",
    ),
    "C4": Claim(
        "Python can easily start hundreds of thousands of coroutines",
        "100,000s",
        "100,000+ idle coroutines of each kind, started at 10,000 or more per second",
    ),
    "C5": Claim(
        "we run out of threads before we run out of sockets",
        "threads < sockets",
        "threads started on the machine stop at a machine limit below the connections held"
        " at once (older results: per process, below its socket ceiling)",
    ),
    "C6": Claim(
        "an event loop is moderately slower than threads for a few very active connections",
        "moderately slower",
        "event loop pages/s 50-95% of threads' in few-active, its whole 95% interval inside",
    ),
    "C7": Claim(
        "async is right for many slow or sleepy connections",
        "async wins",
        "at 1,000+ sleepy connections, asyncio at least as fast as threads (the 95% interval of"
        " the ratio at 1x or above) with less memory per connection, or threads unable to hold"
        " that many",
    ),
    "C8": Claim(
        "without a GIL, threads would do even better",
        "better without GIL",
        "threads on a free-threaded build over the GIL build of the same version, pages/s in"
        " many-links-keep-alive (geometric mean over its points, paired by round), its whole"
        " 95% interval at 1.05x or above",
    ),
    "C9": Claim(
        "uvloop makes asyncio 2-4x faster (uvloop's README)",
        "2-4x",
        "uvloop >= 2x less CPU per page than the same code on asyncio's loop, its whole 95%"
        " interval",
    ),
}


@dataclass(frozen=True)
class Verdict:
    """One row of the verdict table."""

    claim: str
    words: str  # the chapter's words, shortened
    chapter: str  # the chapter's number
    measured: str  # the number measured here
    conditions: str  # how, and anything that qualifies it
    verdict: str  # REPRODUCED, CONTRADICTED, INCONCLUSIVE or NOT_MEASURABLE
    rule: str  # the rule that gave the verdict, in one line


def verdict(claim: str, measured: str, conditions: str, outcome: str) -> Verdict:
    """A row of the table: the claim's words and rule, with what was measured and judged."""
    about = CLAIMS[claim]
    return Verdict(claim, about.words, about.chapter, measured, conditions, outcome, about.rule)


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


def profile_name(document: dict[str, Any]) -> str:
    return f"profile {(document.get('profile') or {}).get('name', '?')}"


def idle_missing(document: dict[str, Any], kind: str) -> str:
    """Why an idle kind has no figures: its failed slope run, or no run at all."""
    for count, status, reason in failed_slope_runs(document).get(kind, []):
        return f"the idle {kind} run ({count:,} units) was {status}: {reason}"
    return f"no idle {kind} run in these results"
