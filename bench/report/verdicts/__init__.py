"""The verdict on each claim C1-C9, judged by a written rule against the derived figures (pure)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.report.sources import C100K, FREE_THREADING, MAIN, ROLE_WORDS, Source, Sources
from bench.report.verdicts import crawl, idle
from bench.report.verdicts.base import (
    CLAIMS,
    CONTRADICTED,
    FROM_ONE_RUN,
    INCONCLUSIVE,
    NOT_MEASURED,
    OUTCOMES,
    REPRODUCED,
    Band,
    Need,
    Verdict,
    not_measured,
)
from bench.results import Results

__all__ = [
    "CONTRADICTED",
    "FROM_ONE_RUN",
    "INCONCLUSIVE",
    "NOT_MEASURED",
    "OUTCOMES",
    "REPRODUCED",
    "RULES",
    "Band",
    "Need",
    "Ruling",
    "Verdict",
    "rulings",
    "verdicts",
]


@dataclass(frozen=True)
class Rule:
    """A claim's rule, the role of the file it reads (C8's: a runtimes.json, not a results
    document) and the figures it cannot judge without (a missing one: NOT_MEASURED)."""

    judge: Callable[[Any], Verdict]
    role: str
    needs: tuple[Need, ...]


# Each claim's rule, by the claim's id.
RULES: dict[str, Rule] = {
    "C1": Rule(idle.c1_thread_memory, MAIN, idle.C1_NEEDS),
    "C2": Rule(idle.c2_coroutine_memory, MAIN, idle.C2_NEEDS),
    "C3": Rule(idle.c3_thread_failures, MAIN, idle.C3_NEEDS),
    "C4": Rule(idle.c4_many_coroutines, MAIN, idle.C4_NEEDS),
    "C5": Rule(idle.c5_threads_before_sockets, C100K, idle.C5_NEEDS),
    "C6": Rule(crawl.c6_event_loop_speed, MAIN, crawl.C6_NEEDS),
    "C7": Rule(crawl.c7_sleepy_connections, MAIN, crawl.C7_NEEDS),
    "C8": Rule(crawl.c8_free_threading, FREE_THREADING, crawl.C8_NEEDS),
    "C9": Rule(crawl.c9_uvloop, MAIN, crawl.C9_NEEDS),
}


def verdicts(document: Results) -> dict[str, Verdict]:
    """Each claim judged by its rule on one results document (C8 not: it reads runtimes.json)."""
    return {c: rule.judge(document) for c, rule in RULES.items() if rule.role != FREE_THREADING}


@dataclass(frozen=True)
class Ruling:
    """A claim's verdict and the file it was judged from (None: no file of its role named)."""

    verdict: Verdict
    source: Source | None
    needs: str = ""  # the role of the file it lacks (sources.COMMANDS makes it)


def _judged(claim: str, source: Source | None) -> Ruling:
    """A claim judged from the file of its role; without one, not measured, naming the run."""
    rule = RULES[claim]
    if source is None:
        return Ruling(not_measured(claim, ROLE_WORDS[rule.role]), None, rule.role)
    found = (source.runtimes or {}) if rule.role == FREE_THREADING else source.document
    return Ruling(rule.judge(found), source)


def rulings(found: Sources) -> list[Ruling]:
    """Every claim, C1 to C9, judged from the file that measured it: C5 from the c100k run, C8
    from the free-threading run's runtimes.json, every other claim from the main run."""
    files = {MAIN: found.main, C100K: found.c100k, FREE_THREADING: found.free_threading}
    return [_judged(claim, files[RULES[claim].role]) for claim in CLAIMS]
