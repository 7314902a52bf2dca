"""`--pythons`' runtimes.md: each key figure, one row per model, one column per runtime."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench.report.text import number, with_interval
from c10k.stats import Interval, recorded_interval

KIB = 1024.0
# figure -> (title, how a value is shown)
TITLES: dict[str, tuple[str, Callable[[float], str]]] = {
    "few_active_cpu_us_per_page": ("few-active: CPU µs per page", lambda v: number(v)),
    "few_active_pages_per_s": ("few-active: pages/s", lambda v: number(v)),
    "idle_bytes_per_unit": ("idle: KiB per idle unit (RSS + kernel)", lambda v: number(v / KIB, 1)),
    "memory_per_connection_bytes": (
        "sleepy: KiB per connection (fitted slope, RSS + kernel)",
        lambda v: number(v / KIB, 1),
    ),
    "c10k_fraction_of_ideal": ("sleepy: % of the ideal C/L", lambda v: number(100 * v, 1)),
    "thread_ceiling": ("idle: threads started before the first failure", lambda v: number(v)),
}


def _cell(found: dict[str, Any], shown: Callable[[float], str]) -> str:
    if found.get("value") is None:
        return f"- ({found.get('missing') or 'missing'})"
    interval: Interval | None = recorded_interval(found.get("ci95"))
    text = with_interval(found["value"], interval, shown, "none recorded")
    if interval is None:
        text = shown(found["value"])
    return text + (f" at C {found['at']:,}" if found.get("at") else "")


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]


def runtimes_markdown(document: dict[str, Any]) -> str:
    """runtimes.json as markdown: the runtimes and how their runs ended, then per figure a
    table with its 95% interval in brackets where it has one, and why a cell is empty."""
    tags = document["tags"]
    lines = ["# Runtimes side by side", ""]
    lines += _table(
        ["runtime", "version", "GIL", "run", "unavailable models", "results"],
        [
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
        + [[tag, "-", "-", "not run", "-", "-"] for tag in document.get("not_run") or []],
    )
    for name, figure in document["figures"].items():
        title, shown = TITLES.get(name, (name, lambda v: number(v, 2)))
        better = "higher is better" if figure["higher_is_better"] else "lower is better"
        lines += ["", f"## {title} ({better})", ""]
        rows = [
            [row, *(_cell(cells[tag], shown) for tag in tags)]
            for row, cells in figure["rows"].items()
        ]
        lines += _table(["", *tags], rows)
    return "\n".join(lines) + "\n"
