"""The "Using both cores" table from runtimes.json's both_cores block, for runtimes.md and
the report's C8 section; and the finding that puts the answers on the pure core."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from bench.report.layout import Block, Code, Column, Paragraph, Strong, table
from c10k import catalog
from c10k.quantity import Interval
from c10k.words import KIB, Figure, number, with_interval

TITLE = "Using both cores"
COMMAND = "c10k bench --profile free-threading --pythons 3.14,3.14t"
NOTE = "docs/notes/2026-11-26-c-extensions-in-subinterpreters.md"
# The versions the note found refusing, on the CPython it ran: the finding, as measured.
REFUSING = "httptools 0.9.0 and selectolax 1.0.2 (cp314 wheels, CPython 3.14.7)"
FINDING = (
    f'Finding: {REFUSING} refuse to load in a subinterpreter with its own GIL ("module '
    'httptools.parser.parser does not support loading in subinterpreters"; the same for '
    "selectolax.lexbor), so the interpreters model, and the answers compared with it, run "
    "on the pure core (`--core pure`)."
)
ABSENT = (
    "No both-cores figures here (an older runtimes.json, or a run without the both-cores "
    f"scenario): `{COMMAND}` produces them, as runtimes.json's both_cores block."
)


def _listed(found: Any) -> Interval | None:
    """An interval as runtimes.json records it, [low, high]; None when it is not one."""
    if not isinstance(found, list | tuple) or len(found) != 2:
        return None
    if not all(isinstance(v, int | float) and math.isfinite(v) for v in found):
        return None
    return Interval(float(found[0]), float(found[1]))


def ratio_text(found: Mapping[str, Any], key: str) -> str:
    """runtimes.json's ratio found[key], paired by round: '1.22x [1.00x, 1.49x]', '1.22x (one
    round, no interval)'; '-' without one."""
    return str(Figure(found.get(key), why="one round, no interval"))


def kib_text(value: float) -> str:
    return number(value / KIB, 1)


def at_point(found: Mapping[str, Any] | None, shown: Callable[[float], str]) -> str:
    """A figure recorded as value, ci95 and the concurrency it was read at: '1,493 [1,258,
    1,822] at C 64'; '- (why it is missing)' without a value."""
    if not found or found.get("value") is None:
        return f"- ({(found or {}).get('missing') or 'no verified run'})"
    text = with_interval(found["value"], _listed(found.get("ci95")), shown, why="one run")
    return text + (f" at C {found['at']:,}" if found.get("at") else "")


def answer_label(answer: dict[str, Any]) -> str:
    """'interpreters (2 subinterpreters)', 'callbacks --processes 2' or 'threads'."""
    model, processes = answer["model"], answer.get("processes") or 1
    if model == catalog.INTERPRETERS.name and answer.get("interpreters"):
        return f"{model} ({answer['interpreters']} subinterpreters)"
    return f"{model} --processes {processes}" if processes > 1 else model


def lead_sentence(lead: dict[str, Any] | None) -> str | None:
    """The answer to "which way of using both cores wins": the leader over its closest rival,
    paired by round. It wins when the pages/s interval lies above 1; it leads, not told apart,
    when its ratio is 1 or more otherwise (an interval that holds 1, or one round); else no
    answer leads."""
    pages = (lead or {}).get("pages_per_s")
    if lead is None or pages is None:
        return None
    leader, rival = (
        f"{answer_label(a)} on {a['runtime']}" for a in (lead["leader"], lead["runner_up"])
    )
    figures = (
        f"pages/s {ratio_text(lead, 'pages_per_s')} and CPU per page "
        f"{ratio_text(lead, 'cpu_us_per_page')}"
    )
    if pages.interval is not None and pages.interval.low > 1.0:
        said = f"{leader} wins: its {figures} those of {rival}"
    elif pages.value >= 1.0:
        said = f"{leader} leads but is not told apart from {rival}: its {figures} theirs"
    else:
        said = f"no answer leads: {leader} against {rival}, its {figures} theirs"
    return f"On the pure core at C {lead['concurrency']:,}, {said}, paired by round."


# One row per answer and runtime: pages/s at its largest C, memory per connection (the slope
# of peak RSS between its concurrencies).
ANSWER_COLUMNS: list[Column[dict[str, Any]]] = [
    Column("answer", lambda label, a: label),
    Column(
        "runtime",
        lambda label, a: a["runtime"] + (" (free-threaded)" if a.get("gil_disabled") else ""),
    ),
    Column("core", lambda label, a: a["core"]),
    Column("pages/s [95%]", lambda label, a: at_point(a.get("pages_per_s"), number), True),
    Column(
        "CPU µs per page [95%]", lambda label, a: at_point(a.get("cpu_us_per_page"), number), True
    ),
    Column(
        "KiB per connection [95%]",
        lambda label, a: at_point(a.get("memory_per_connection_bytes"), kib_text),
        True,
    ),
]
# What the C core buys one model: C over pure, paired by round.
CORE_RATIO_COLUMNS: list[Column[dict[str, Any]]] = [
    Column("model", lambda label, r: label),
    Column("runtime", lambda label, r: r["runtime"]),
    Column("C", lambda label, r: str(r["concurrency"]), True),
    Column("pages/s, C over pure", lambda label, r: ratio_text(r, "pages_per_s"), True),
    Column("CPU per page, C over pure", lambda label, r: ratio_text(r, "cpu_us_per_page"), True),
]


def _labelled(found: list[dict[str, Any]] | None) -> list[tuple[str, dict[str, Any]]]:
    return [(answer_label(a), a) for a in found or []]


CAPTION = (
    "Each answer on the build it belongs to, on the many-links keep-alive site, unpinned. "
    "KiB per connection: the least-squares slope of each run's peak RSS (over its processes, "
    "their sum) against concurrency; at C 64 or less a connection's few KiB lie within the "
    "runs' RSS noise: a slope whose interval holds 0, or lies below it (less memory with "
    "more connections), resolves nothing. The second table: the same model on the C core "
    "over the pure core, paired by round."
)


def both_cores_blocks(runtimes: dict[str, Any] | None) -> list[Block]:
    """The blocks under the TITLE (each page titles them its own way): the finding, then the
    two tables, or the command that makes them. The note is named by its path in the
    repository: the page links only within itself (it is read wherever it was written)."""
    finding = Paragraph((FINDING, " See ", Code(NOTE), "."))
    block = (runtimes or {}).get("both_cores")
    if not block:
        return [finding, Paragraph(ABSENT, note=True)]
    return [
        finding,
        *[Paragraph((Strong(found),)) for found in [lead_sentence(block.get("lead"))] if found],
        table(ANSWER_COLUMNS, _labelled(block.get("answers")), "The answers side by side"),
        table(CORE_RATIO_COLUMNS, _labelled(block.get("core_ratios")), "What the C core buys"),
        Paragraph((CAPTION, " Made by ", Code(COMMAND), "."), note=True),
    ]
