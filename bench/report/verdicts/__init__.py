"""The verdict on each claim C1-C9, judged by a written rule against the derived figures (pure)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench.report.verdicts.base import (
    CONTRADICTED,
    INCONCLUSIVE,
    NOT_MEASURABLE,
    REPRODUCED,
    Band,
    Verdict,
    on_interval,
)
from bench.report.verdicts.crawl import (
    c6_event_loop_speed,
    c7_sleepy_connections,
    c8_free_threading,
    c8_without_gil,
    c9_uvloop,
)
from bench.report.verdicts.idle import (
    c1_thread_memory,
    c2_coroutine_memory,
    c3_thread_failures,
    c4_many_coroutines,
    c5_threads_before_sockets,
)

__all__ = [
    "CONTRADICTED",
    "INCONCLUSIVE",
    "NOT_MEASURABLE",
    "REPRODUCED",
    "RULES",
    "Band",
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
    "verdicts",
]

RULES: tuple[Callable[[dict[str, Any]], Verdict], ...] = (
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


def verdicts(document: dict[str, Any]) -> list[Verdict]:
    """Every claim's verdict, C1 to C9."""
    return [rule(document) for rule in RULES]

