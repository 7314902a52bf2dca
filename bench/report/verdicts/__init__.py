"""The verdict on each claim C1-C9, judged by a written rule against the derived figures (pure)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bench.report.sources import C100K, EMPTY, FREE_THREADING, MAIN, Source, Sources
from bench.report.verdicts.base import (
    CONTRADICTED,
    INCONCLUSIVE,
    NOT_MEASURABLE,
    REPRODUCED,
    Band,
    Verdict,
    on_interval,
)
from bench.report.verdicts.crawl import c6_event_loop_speed, c7_sleepy_connections, c9_uvloop
from bench.report.verdicts.free_threading import c8_free_threading, c8_without_gil
from bench.report.verdicts.idle import (
    c1_thread_memory,
    c2_coroutine_memory,
    c3_thread_failures,
    c4_many_coroutines,
    c5_threads_before_sockets,
)
from bench.results import Results

__all__ = [
    "CONTRADICTED",
    "INCONCLUSIVE",
    "NOT_MEASURABLE",
    "REPRODUCED",
    "RULES",
    "Band",
    "Ruling",
    "Verdict",
    "c1_thread_memory",
    "c2_coroutine_memory",
    "c3_thread_failures",
    "c4_many_coroutines",
    "c5_threads_before_sockets",
    "c6_event_loop_speed",
    "c7_sleepy_connections",
    "c8_free_threading",
    "c8_without_gil",
    "c9_uvloop",
    "on_interval",
    "rulings",
    "verdicts",
]

RULES: tuple[Callable[[Results], Verdict], ...] = (
    c1_thread_memory,
    c2_coroutine_memory,
    c3_thread_failures,
    c4_many_coroutines,
    c5_threads_before_sockets,
    c6_event_loop_speed,
    c7_sleepy_connections,
    c8_without_gil,
    c9_uvloop,
)


def verdicts(document: Results) -> list[Verdict]:
    """Every claim's verdict, C1 to C9."""
    return [rule(document) for rule in RULES]


@dataclass(frozen=True)
class Ruling:
    """A claim's verdict and the file it was judged from (None: no file of its role was named);
    needs: the role of the file that measures the claim, when it was not named or did not
    decide (sources.COMMANDS says how to make it)."""

    verdict: Verdict
    source: Source | None
    needs: str = ""


def _from(source: Source | None, rule: Callable[[Results], Verdict], role: str) -> Ruling:
    """rule on source's document (an empty one without a source, naming role's command)."""
    if source is None:
        return Ruling(rule(EMPTY), None, role)
    return Ruling(rule(source.document), source)


def rulings(found: Sources) -> list[Ruling]:
    """Every claim judged from the file that measured it: C5 from the c100k run (else the main
    run, naming the c100k run when that does not decide), C8 from the free-threading run's
    runtimes.json (else not measurable, naming it), every other claim from the main run."""
    judged = [_from(found.main, rule, MAIN) for rule in RULES]
    c5 = _from(found.c100k, c5_threads_before_sockets, C100K) if found.c100k else judged[4]
    if c5.verdict.verdict == NOT_MEASURABLE:
        c5 = Ruling(c5.verdict, c5.source, C100K)
    side_by_side = found.free_threading
    c8 = (
        Ruling(c8_free_threading(side_by_side.runtimes or {}), side_by_side)
        if side_by_side
        else Ruling(judged[7].verdict, judged[7].source, FREE_THREADING)
    )
    judged[4], judged[7] = c5, c8
    return judged
