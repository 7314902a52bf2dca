"""The verdict on C8: the threads model without a GIL, from a --pythons run's runtimes.json."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bench.report.verdicts.base import (
    MANY_LINKS_KEEP_ALIVE,
    THREADS,
    Need,
    Verdict,
    lacking,
    not_measured,
)
from bench.report.verdicts.crawl import judged_ratio
from c10k.words import Figure

# What the rule cannot judge without, in runtimes.json (docs/report.md, "What each rule needs").
C8_NEEDS = (
    Need("a free-threaded build beside the GIL build of its version", ("free_threading", 0)),
    Need(
        f"{THREADS}' pages/s without the GIL over with it, in {MANY_LINKS_KEEP_ALIVE}",
        ("free_threading", 0, "models", THREADS, MANY_LINKS_KEEP_ALIVE, "pages_per_s"),
    ),
)


def c8_free_threading(side_by_side: dict[str, Any]) -> Verdict:
    """C8 on runtimes.json: the threads model on the free-threaded build over the GIL build
    of the same version, pages/s in many-links-keep-alive (where the crawler's CPU limits,
    so the GIL binds), geometric mean over its points paired by round. Reproduced when the
    whole interval is at 1.05x or above; contradicted when it lies wholly below 1.05x;
    inconclusive (within noise) when it straddles 1.05x. Needs the pair and the threads
    model's ratio there (C8_NEEDS), and every free-threaded threads crawl there ending with
    the GIL still off (said, and off)."""
    if need := lacking(side_by_side, C8_NEEDS):
        return not_measured("C8", need.words)
    pair = side_by_side["free_threading"][0]
    names = f"{THREADS} on {pair['free_threaded']} over {pair['gil']} (Python {pair['version']})"
    found = pair["models"][THREADS][MANY_LINKS_KEEP_ALIVE]
    pages = found.get("pages_per_s")
    cpu = Figure(found.get("cpu_us_per_page"))
    measured = ("pages/s ", Figure(pages), ", CPU/page ", cpu)
    gil = ((pair.get("gil_at_end") or {}).get(MANY_LINKS_KEEP_ALIVE) or {}).get(THREADS) or {}
    against = gil.get("gil_enabled") or gil.get("unknown") or not gil.get("crawls")
    conditions = (
        f"{names}, {MANY_LINKS_KEEP_ALIVE} at C "
        f"{', '.join(str(c) for c in found['concurrencies'])}, paired by round",
    )
    label = f"{THREADS} on {pair['free_threaded']}:"
    if against:
        on, unknown = len(gil.get("gil_enabled") or []), len(gil.get("unknown") or [])
        why = (
            f"the GIL was enabled at the end of {on} and not reported in {unknown} of "
            f"{gil.get('crawls', 0)} {THREADS} crawls on {pair['free_threaded']}"
        )
        return not_measured("C8", f"crawls that ran without the GIL ({why})", conditions)
    gil_note = (
        f"the GIL was off at the end of all {gil['crawls']} {THREADS} crawls there on "
        f"{pair['free_threaded']}"
    )
    fact = judged_ratio("C8", pages, label)
    return replace(fact, measured=measured, shown=(*conditions, gil_note))
