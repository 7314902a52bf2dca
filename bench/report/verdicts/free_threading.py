"""The verdict on C8: the threads model without a GIL, from a --pythons run's runtimes.json."""

from __future__ import annotations

from typing import Any

from bench.report.verdicts.base import (
    GIL_GAIN,
    MANY_LINKS_KEEP_ALIVE,
    NOT_MEASURABLE,
    THREADS,
    Verdict,
    on_interval,
    verdict,
)
from bench.report.verdicts.crawl import judged_ratio, ratio_text
from bench.results import Results
from c10k.stats import recorded_interval


def c8_without_gil(document: Results) -> Verdict:
    """One results file holds one runtime: C8 needs a --pythons run of a free-threaded build
    beside the GIL build of the same version (c8_free_threading reads its runtimes.json)."""
    environment = document.get("environment")
    python: dict[str, Any] = environment["python"] if environment else {}
    runtime = document.get("runtime")
    version = runtime["version"] if runtime else python.get("version", "?")
    gil = runtime["gil_disabled"] if runtime else python.get("gil_disabled")
    return verdict(
        "C8",
        "-",
        "it needs the threads model on a free-threaded build beside the GIL build of the same "
        "version in one run, the runtimes.json of `c10k bench --profile free-threading "
        f"--pythons 3.14,3.14t` (docs/runtimes.md, C8); this file holds only "
        f"{python.get('implementation', 'Python')} {version} "
        f"{'without' if gil else 'with'} the GIL",
        NOT_MEASURABLE,
    )


def c8_free_threading(side_by_side: dict[str, Any]) -> Verdict:
    """C8 on runtimes.json: the threads model on the free-threaded build over the GIL build
    of the same version, pages/s in many-links-keep-alive (where the crawler's CPU limits,
    so the GIL binds), geometric mean over its points paired by round. Reproduced when the
    whole 95% interval is at 1.05x or above; contradicted when it lies wholly below 1.05x;
    inconclusive (within noise) when it straddles 1.05x; not measurable when no such pair
    ran, the threads model has no shared point there, or a free-threaded threads crawl there
    ended with the GIL enabled (or did not say)."""
    pairs = side_by_side.get("free_threading") or []
    if not pairs:
        why = (
            "no free-threaded runtime beside the GIL build of the same version in this run "
            "(`c10k bench --profile free-threading --pythons 3.14,3.14t`)"
        )
        return verdict("C8", "-", why, NOT_MEASURABLE)
    pair = pairs[0]
    names = f"{THREADS} on {pair['free_threaded']} over {pair['gil']} (Python {pair['version']})"
    found = (pair["models"].get(THREADS) or {}).get(MANY_LINKS_KEEP_ALIVE)
    if found is None or found.get("pages_per_s") is None:
        why = f"no {MANY_LINKS_KEEP_ALIVE} point of {THREADS} shared by {names}"
        return verdict("C8", "-", why, NOT_MEASURABLE)
    pages, cpu = ratio_text(found, "pages_per_s"), ratio_text(found, "cpu_us_per_page")
    measured = f"pages/s {pages}, CPU/page {cpu}"
    gil = ((pair.get("gil_at_end") or {}).get(MANY_LINKS_KEEP_ALIVE) or {}).get(THREADS) or {}
    against = gil.get("gil_enabled") or gil.get("unknown") or not gil.get("crawls")
    conditions = (
        f"{names}, {MANY_LINKS_KEEP_ALIVE} at C "
        f"{', '.join(str(c) for c in found['concurrencies'])}, paired by round"
    )
    judged = judged_ratio(found, "pages_per_s", f"{THREADS} on {pair['free_threaded']}:")
    if against:
        on, unknown = len(gil.get("gil_enabled") or []), len(gil.get("unknown") or [])
        why = (
            f"the GIL was enabled at the end of {on} and not reported in {unknown} of "
            f"{gil.get('crawls', 0)} {THREADS} crawls on {pair['free_threaded']}; {conditions}"
        )
        return verdict("C8", measured, why, NOT_MEASURABLE, judged)
    interval = recorded_interval(found.get("pages_per_s_ci95"))
    gil_note = (
        f"; the GIL was off at the end of all {gil['crawls']} {THREADS} crawls there on "
        f"{pair['free_threaded']}"
    )
    outcome = on_interval(found["pages_per_s"], interval, GIL_GAIN)
    return verdict("C8", measured, conditions + gil_note, outcome, judged)
