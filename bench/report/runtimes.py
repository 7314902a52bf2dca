"""`--pythons`' runtimes.md: each key figure, one row per model, one column per runtime
(`python -m bench.report.runtimes DIR/runtimes.json` writes it beside the file)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.report import both_cores as cores
from bench.report.both_cores import at_point, kib_text, ratio_text
from bench.report.layout import Block, Cell, Code, Heading, Paragraph, Strong, Table
from bench.report.markdown import render
from bench.report.verdicts.crawl import c8_free_threading
from bench.results import RUNTIMES_MD, load_runtimes
from c10k.words import line, number

# figure -> (title, how a value is shown)
TITLES: dict[str, tuple[str, Callable[[float], str]]] = {
    "few_active_cpu_us_per_page": ("few-active: CPU µs per page", number),
    "few_active_pages_per_s": ("few-active: pages/s", number),
    "idle_bytes_per_unit": ("idle: KiB per idle unit (RSS + kernel)", kib_text),
    "memory_per_connection_bytes": (
        "sleepy: KiB per connection (fitted slope, RSS + kernel)",
        kib_text,
    ),
    "c10k_fraction_of_ideal": ("sleepy: % of the ideal C/L", lambda v: number(100 * v, 1)),
    "thread_ceiling": ("idle: threads started before the first failure", number),
}


def runtimes_blocks(document: dict[str, Any]) -> list[Block]:
    """runtimes.json as blocks: the runtimes and how their runs ended, then per figure a
    table with its 95% interval in brackets where it has one, and why a cell is empty; C8's
    verdict and each free-threaded/GIL pair; the both-cores answers."""
    tags = document["tags"]
    runtimes = [
        [
            r["tag"],
            r.get("version") or "-",
            "free-threaded" if r.get("gil_disabled") else "GIL",
            r["status"] + (f": {r['reason']}" if r.get("reason") else ""),
            ", ".join(sorted(r.get("unavailable_models") or {})) or "none",
            r.get("results") or "-",
        ]
        for r in document["runtimes"]
    ]
    runtimes += [[tag, "-", "-", "not run", "-", "-"] for tag in document.get("not_run") or []]
    header = ["runtime", "version", "GIL", "run", "unavailable models", "results"]
    blocks: list[Block] = [Heading(1, "", "Runtimes side by side"), Table(header, runtimes)]
    for name, figure in document["figures"].items():
        title, shown = TITLES.get(name, (name, lambda v: number(v, 2)))
        better = "higher is better" if figure["higher_is_better"] else "lower is better"
        rows = [
            [row, *(at_point(cells[tag], shown) for tag in tags)]
            for row, cells in figure["rows"].items()
        ]
        blocks += [Heading(2, "", f"{title} ({better})"), Table(["", *tags], rows)]
    both = [Heading(2, "", cores.TITLE), *cores.both_cores_blocks(document)]
    return blocks + free_threading_blocks(document) + both


def runtimes_markdown(document: dict[str, Any]) -> str:
    return render(runtimes_blocks(document))


def _some(run_ids: list[str], shown: int = 3) -> str:
    """How many runs, and the first few ids: 'none', or '12: a, b, c, ...'."""
    if not run_ids:
        return "none"
    more = ", ..." if len(run_ids) > shown else ""
    return f"{len(run_ids)}: {', '.join(run_ids[:shown])}{more}"


def _ratio_rows(pair: dict[str, Any]) -> list[list[str]]:
    """Per model and scenario of a free-threaded/GIL pair: its ratios over the points and at
    each point."""
    rows = []
    for model, scenarios in pair["models"].items():
        for scenario, found in scenarios.items():
            at = [f"C {p['concurrency']}: {ratio_text(p, 'pages_per_s')}" for p in found["points"]]
            ratios = [ratio_text(found, key) for key in ("pages_per_s", "cpu_us_per_page")]
            rows.append([model, scenario, *ratios, "; ".join(at)])
    return rows


RATIO_HEADER = [
    "model",
    "scenario",
    "pages/s (geo. mean)",
    "CPU per page (geo. mean)",
    "pages/s per point",
]
GIL_HEADER = ["scenario", "model", "crawls", "GIL off", "GIL on", "not reported"]


def _pair_blocks(pair: dict[str, Any]) -> list[Block]:
    """A free-threaded/GIL pair: per model and scenario the ratios over the points and at
    each point, the idle thread on both, and the GIL at the crawls' end."""
    free, gil = pair["free_threaded"], pair["gil"]
    idle = pair["idle_thread_bytes"]
    gil_rows = [
        [scenario, model, str(e["crawls"]), str(e["gil_disabled"]), _some(e["gil_enabled"]),
         _some(e["unknown"])]
        for scenario, models in (pair.get("gil_at_end") or {}).items()
        for model, e in models.items()
    ]  # fmt: skip
    return [
        Heading(3, "", f"{free} over {gil} (Python {pair['version']})"),
        Paragraph(
            "Ratios of the free-threaded build's figure over the GIL build's, paired by round, "
            "with 95% intervals; over the points, their geometric mean."
        ),
        Table(RATIO_HEADER, _ratio_rows(pair)),
        Paragraph(
            f"The idle thread (RSS + kernel, KiB): {gil} {at_point(idle['gil'] or {}, kib_text)}, "
            f"{free} {at_point(idle['free_threaded'] or {}, kib_text)}. Shown, not judged."
        ),
        Paragraph(
            (
                f"The GIL at the end of each crawl on {free} (",
                Code("python.gil_enabled"),
                " in its crawl JSON):",
            )
        ),
        Table(GIL_HEADER, gil_rows),
    ]


def free_threading_blocks(document: dict[str, Any]) -> list[Block]:
    """C8's verdict, then each free-threaded/GIL pair."""
    c8 = c8_free_threading(document)
    row: list[Cell] = [c8.claim, line(c8.measured) or "-", "; ".join(c8.conditions),
                       (Strong(c8.verdict),), c8.about.rule]  # fmt: skip
    blocks: list[Block] = [
        Heading(2, "", "C8: without a GIL, threads would do even better"),
        Table(["claim", "measured", "conditions", "verdict", "rule"], [row]),
    ]
    for pair in document.get("free_threading") or []:
        blocks += _pair_blocks(pair)
    return blocks


def main(argv: list[str] | None = None) -> int:
    """Write runtimes.md beside the runtimes.json named; one line and exit 2 if unreadable."""
    args = argv if argv is not None else sys.argv[1:]
    if len(args) != 1:
        sys.stderr.write("usage: python -m bench.report.runtimes DIR/runtimes.json\n")
        return 2
    path = Path(args[0])
    try:
        document = load_runtimes(path)
    except ValueError as exc:
        sys.stderr.write(f"bench.report.runtimes: error: {exc}\n")
        return 2
    (path.parent / RUNTIMES_MD).write_text(runtimes_markdown(document), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
