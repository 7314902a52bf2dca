"""Which loop: each asyncio loop against asyncio's own, on the crawler and on the loop's work."""

from __future__ import annotations

from bench.report.layout import Block, Column, Table, section, table
from bench.report.sources import Source
from bench.report.verdicts.base import CRAWLER_FAILURES, Band
from bench.results import LoopClaimFigures, Results, UvloopPair, not_counted
from c10k import catalog
from c10k.quantity import Interval
from c10k.words import Figure, times

TITLE = "Which loop: each asyncio loop against asyncio's own"
NOTE = (
    "Two views of each loop. The crawler's: its CPU per page and pages/s in few-active, "
    "against the same code on the other loop (geometric mean over C, its interval by paired "
    "rounds where they ran, else t over the runs), what a user of the crawler gets. The "
    "loop's own: callgrind's instructions per page less the core replay's, the work that is "
    "the loop's alone, what a loop's maker claims (a library's transports parse with its own "
    "code: no such share). Counts repeat to within 0.1%: no interval. Exact: every crawl of "
    "the loop matched the site's manifest; a finding of the contract tests is named."
)
CLAIMS_NOTE = (
    "A claim that names a figure is judged as C9 is, on each view: reproduced when the whole "
    "interval lies at the figure or above, contradicted when it lies below, inconclusive "
    "when it straddles it; the count has no interval, so it is above or below."
)


def exact(document: Results, model: str) -> str:
    """'yes', or how its crawls failed, and the catalog's finding for it."""
    failed = [
        p
        for p in not_counted(document["derived"])
        if p.model == model and p.status in CRAWLER_FAILURES
    ]
    entry = catalog.MODELS.get(model)
    finding = f"; {entry.finding}" if entry and entry.finding else ""
    if not failed:
        return "yes" + (f" where it ran{finding}" if finding else "")
    scenarios = sorted({p.scenario for p in failed})
    return (
        f"no: {len(failed)} run(s) failed in {', '.join(scenarios)} ({failed[0].reason}){finding}"
    )


def pair_columns(document: Results) -> list[Column[UvloopPair]]:
    instructions = document["derived"]["comparisons"]["instructions"]
    whole = instructions["uvloop_speedup"] if instructions else {}
    own = instructions["loop_own_speedup"] if instructions else {}
    return [
        Column("loop", lambda n, p: p["fast"]),
        Column("against", lambda n, p: p["plain"]),
        Column("crawler: less CPU/page", lambda n, p: str(Figure(p["cpu_per_page_speedup"])), True),
        Column("crawler: pages/s", lambda n, p: str(Figure(p["pages_per_s_ratio"])), True),
        Column("fewer instructions/page", lambda n, p: times(whole.get(p["fast"])), True),
        Column("loop's own: fewer", lambda n, p: times(own.get(p["fast"])), True),
        Column("exact", lambda n, p: exact(document, p["fast"])),
    ]


def judged(ratio: float | None, interval: Interval | None, at_least: float) -> str:
    """A loop's claim on one view: the ratio's interval against its figure (a count's value)."""
    if ratio is None:
        return "not measured"
    return Band(at_least).judge(interval or Interval(ratio, ratio))


def claim_row(entry: LoopClaimFigures) -> list[str]:
    claim = catalog.MODELS[entry["model"]].claim
    assert claim is not None
    said = f'"{claim.words}" ({claim.source})'
    crawler = entry["cpu_per_page_speedup"]
    if claim.at_least is None:
        verdicts = ["names no figure: no verdict"] * 2
    else:
        value, interval = (crawler.value, crawler.interval) if crawler else (None, None)
        own = judged(entry["loop_own_speedup"], None, claim.at_least)
        verdicts = [judged(value, interval, claim.at_least), own]
    return [
        entry["model"],
        said,
        entry["against"],
        f"{Figure(crawler)!s}: {verdicts[0]}",
        f"{times(entry['loop_own_speedup'])}: {verdicts[1]}",
    ]


CLAIM_HEADER = ["loop", "its claim", "against", "crawler: less CPU/page", "loop's own: fewer"]


def which_loop(source: Source) -> list[Block]:
    """The section for one run's loops: the pairs on both views, then each loop's claim."""
    document = source.document
    comparisons = document["derived"].get("comparisons")
    found = comparisons["uvloop"] if comparisons else None
    rows = [(p["fast"], p) for p in (found["pairs"] if found else [])]
    claims = comparisons.get("loop_claims", []) if comparisons else []
    runtime = document["runtime"]["version"] if "runtime" in document else "?"
    title, anchor = f"{TITLE} (CPython {runtime}, {source.path})", f"which-loop-{source.role}"
    if not rows:
        return section(anchor, title, ["No loop ran beside asyncio's own."], [], [])
    pairs = table(pair_columns(document), rows)
    tables = [pairs] + ([Table(CLAIM_HEADER, [claim_row(c) for c in claims])] if claims else [])
    return section(anchor, title, [], tables, [NOTE, CLAIMS_NOTE])
