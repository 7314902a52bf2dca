"""The verdict on each claim C1-C9, judged by a written rule against the derived figures (pure)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bench.report.sources import C100K, FREE_THREADING, MAIN, ROLE_WORDS, Source, Sources
from bench.report.verdicts import crawl, idle
from bench.report.verdicts.base import (
    CLAIMS,
    CONTRADICTED,
    FROM_ONE_RUN,
    INCONCLUSIVE,
    NOT_MEASURED,
    REPRODUCED,
    Band,
    Need,
    Verdict,
    not_measured,
)
from bench.report.verdicts.free_threading import C8_NEEDS, c8_free_threading
from bench.results import Results

__all__ = [
    "CONTRADICTED",
    "FROM_ONE_RUN",
    "INCONCLUSIVE",
    "NEEDS",
    "NOT_MEASURED",
    "REPRODUCED",
    "RULES",
    "Band",
    "Need",
    "Ruling",
    "Verdict",
    "c8_free_threading",
    "rulings",
    "verdicts",
]

# Each claim's rule on a results document, by the claim's id, and the role of the file that
# measures it (bench/report/sources.py). C8's rule reads a --pythons run's runtimes.json
# (c8_free_threading), not a results document.
RULES: dict[str, tuple[Callable[[Results], Verdict], str]] = {
    "C1": (idle.c1_thread_memory, MAIN),
    "C2": (idle.c2_coroutine_memory, MAIN),
    "C3": (idle.c3_thread_failures, MAIN),
    "C4": (idle.c4_many_coroutines, MAIN),
    "C5": (idle.c5_threads_before_sockets, C100K),
    "C6": (crawl.c6_event_loop_speed, MAIN),
    "C7": (crawl.c7_sleepy_connections, MAIN),
    "C9": (crawl.c9_uvloop, MAIN),
}
# What each rule cannot judge without: a figure missing gives NOT_MEASURED, naming it.
NEEDS: dict[str, tuple[Need, ...]] = {
    "C1": idle.C1_NEEDS,
    "C2": idle.C2_NEEDS,
    "C3": idle.C3_NEEDS,
    "C4": idle.C4_NEEDS,
    "C5": idle.C5_NEEDS,
    "C6": crawl.C6_NEEDS,
    "C7": crawl.C7_NEEDS,
    "C8": C8_NEEDS,
    "C9": crawl.C9_NEEDS,
}


def verdicts(document: Results) -> dict[str, Verdict]:
    """Each claim judged by its rule on one results document (C8 not: it reads runtimes.json)."""
    return {claim: rule(document) for claim, (rule, _) in RULES.items()}


@dataclass(frozen=True)
class Ruling:
    """A claim's verdict and the file it was judged from (None: no file of its role was named);
    needs: the role of the file that measures the claim, when it was not named (sources.COMMANDS
    says how to make it)."""

    verdict: Verdict
    source: Source | None
    needs: str = ""


def _judged(claim: str, source: Source | None, role: str) -> Ruling:
    """A claim judged from the file of its role; without one, not measured, naming the run."""
    if source is None:
        return Ruling(not_measured(claim, ROLE_WORDS[role]), None, role)
    if claim == "C8":
        return Ruling(c8_free_threading(source.runtimes or {}), source)
    rule, _ = RULES[claim]
    return Ruling(rule(source.document), source)


def rulings(found: Sources) -> list[Ruling]:
    """Every claim, C1 to C9, judged from the file that measured it: C5 from the c100k run, C8
    from the free-threading run's runtimes.json, every other claim from the main run."""
    roles = {claim: role for claim, (_, role) in RULES.items()} | {"C8": FREE_THREADING}
    files = {MAIN: found.main, C100K: found.c100k, FREE_THREADING: found.free_threading}
    return [_judged(claim, files[roles[claim]], roles[claim]) for claim in CLAIMS]
