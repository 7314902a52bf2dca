"""One style per model and idle kind (colour, marker, line style, hatch), for every chart."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Style:
    """How a model is drawn: colour for screens, marker/line/hatch for grey-scale prints."""

    colour: str
    marker: str
    linestyle: Any  # a matplotlib line style: a name or (offset, (on, off, ...))
    hatch: str


# Okabe-Ito colours (safe for colour-blind readers; a purple instead of its black, which would
# hide the black hatching); markers, dashes and hatches differ too, so each model stays
# recognisable in grey. The "X" marker is kept for runs that did not count. Circle and dot
# hatches are used sparingly: each one costs ~40 KB of SVG.
MODEL_STYLES: dict[str, Style] = {
    "threads": Style("#D55E00", "s", "-", "///"),
    "callbacks": Style("#0072B2", "o", "--", "\\\\\\"),
    "generators": Style("#009E73", "^", "-.", "xxx"),
    "asyncio": Style("#CC79A7", "D", ":", "||"),
    "asyncio-uvloop": Style("#E69F00", "v", (0, (5, 1, 1, 1, 1, 1)), "O"),
    "aiohttp": Style("#56B4E9", "P", (0, (8, 2)), "---"),
    "aiohttp-uvloop": Style("#7570B3", "*", (0, (3, 1, 1, 1)), "+++"),
}
# Idle kinds borrow the colour of the model that parks work that way.
IDLE_STYLES: dict[str, Style] = {
    "thread": MODEL_STYLES["threads"],
    "thread-small-stack": Style("#F0A47A", "s", "--", "//"),
    "asyncio-task": MODEL_STYLES["asyncio"],
    "uvloop-task": MODEL_STYLES["asyncio-uvloop"],
    "generators-task": MODEL_STYLES["generators"],
    "generator": Style("#7FCFB9", "^", ":", "*"),
    "coroutine": Style("#AAAAAA", "h", "-.", "."),
}
_FALLBACK = Style("#777777", "8", "-", "||")


def style(name: str) -> Style:
    """The style of a model or idle kind; a model added later gets a neutral one."""
    return MODEL_STYLES.get(name) or IDLE_STYLES.get(name) or _FALLBACK


def model_order(names: list[str] | set[str]) -> list[str]:
    """Models in the design's order (threads first), unknown ones after, alphabetically."""
    known = [m for m in MODEL_STYLES if m in names]
    return known + sorted(n for n in names if n not in MODEL_STYLES)


def idle_order(names: list[str] | set[str]) -> list[str]:
    known = [k for k in IDLE_STYLES if k in names]
    return known + sorted(n for n in names if n not in IDLE_STYLES)
