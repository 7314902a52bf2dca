"""How each model, peer and idle kind is drawn, keyed by the catalog's names."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from c10k import catalog
from c10k.catalog import CRAWLERS, IDLE_KINDS, PEERS
from c10k.catalog import idle_order as idle_order  # the tables and charts read both from here
from c10k.catalog import model_order as model_order


@dataclass(frozen=True)
class Style:
    """How a model is drawn: colour for screens, marker/line/hatch for grey-scale prints."""

    colour: str
    marker: str
    linestyle: Any  # a matplotlib line style: a name or (offset, (on, off, ...))
    hatch: str

    @property
    def line(self) -> dict[str, Any]:
        """A model's line and its legend entry, as Line2D's keywords."""
        return dict(color=self.colour, marker=self.marker, linestyle=self.linestyle, markersize=7)


# Okabe-Ito colours (safe for colour-blind readers; a purple for its black, which would hide the
# black hatching); markers, dashes and hatches differ too, for grey prints. "X" is kept for runs
# that did not count; circle and dot hatches cost ~40 KB of SVG each. Every crawler and idle kind
# has its row (tests/test_catalog_tables.py).
CRAWLER_STYLES: dict[str, Style] = {
    catalog.THREADS.name: Style("#D55E00", "s", "-", "///"),
    catalog.CALLBACKS.name: Style("#0072B2", "o", "--", "\\\\\\"),
    catalog.GENERATORS.name: Style("#009E73", "^", "-.", "xxx"),
    catalog.ASYNCIO.name: Style("#CC79A7", "D", ":", "||"),
    catalog.ASYNCIO_UVLOOP.name: Style("#E69F00", "v", (0, (5, 1, 1, 1, 1, 1)), "O"),
    # Past Okabe-Ito's eight: Paul Tol's wine, olive, indigo, sand and teal, apart in grey by
    # marker, dash and hatch.
    catalog.ASYNCIO_RLOOP.name: Style("#882255", ">", (0, (10, 3, 2, 3)), "|/"),
    catalog.ASYNCIO_VELOXLOOP.name: Style("#999933", "d", (0, (2, 2, 6, 2)), "o|"),
    catalog.ASYNCIO_ZUVLOOP.name: Style("#332288", "X", (0, (6, 1, 2, 1)), "+/"),
    catalog.ASYNCIO_ZLOOP.name: Style("#DDCC77", "8", (0, (1, 3)), "o-"),
    # Tol's rose and purple; a cross and an upright hexagon, dashes and hatches of their own.
    catalog.ASYNCIO_THREADS.name: Style("#CC6677", "x", (0, (3, 2, 1, 2, 1, 2)), "/-"),
    catalog.ASYNCIO_THREADS_UVLOOP.name: Style("#AA4499", "h", (0, (2, 1, 2, 3)), "x/"),
    catalog.AIOHTTP.name: Style("#56B4E9", "P", (0, (8, 2)), "---"),
    catalog.AIOHTTP_UVLOOP.name: Style("#7570B3", "*", (0, (3, 1, 1, 1)), "+++"),
    catalog.HTTPX.name: Style("#44AA99", "H", (0, (1, 1, 1, 4)), "x-"),
    catalog.GEVENT.name: Style("#A6761D", "p", (0, (4, 2, 4, 2, 1, 2)), "\\\\|"),
    catalog.TRIO.name: Style("#66A61E", "<", (0, (2, 4)), "-\\\\"),
    catalog.INTERPRETERS.name: Style("#1B9E9E", ">", (0, (6, 2, 1, 2)), "x\\\\"),
    catalog.SCRAPY.name: Style("#555555", "p", (0, (1, 1)), ".."),
}
# An idle kind borrows the style of the model that parks work that way.
IDLE_STYLES: dict[str, Style] = {
    catalog.THREAD.name: CRAWLER_STYLES[catalog.THREADS.name],
    catalog.THREAD_SMALL_STACK.name: Style("#F0A47A", "s", "--", "//"),
    catalog.ASYNCIO_TASK.name: CRAWLER_STYLES[catalog.ASYNCIO.name],
    catalog.UVLOOP_TASK.name: CRAWLER_STYLES[catalog.ASYNCIO_UVLOOP.name],
    catalog.RLOOP_TASK.name: CRAWLER_STYLES[catalog.ASYNCIO_RLOOP.name],
    catalog.GENERATORS_TASK.name: CRAWLER_STYLES[catalog.GENERATORS.name],
    catalog.GENERATOR.name: Style("#7FCFB9", "^", ":", "*"),
    catalog.COROUTINE.name: Style("#AAAAAA", "h", "-.", "."),
    catalog.GREENLET.name: CRAWLER_STYLES[catalog.GEVENT.name],
    catalog.TRIO_TASK.name: CRAWLER_STYLES[catalog.TRIO.name],
    catalog.SUBINTERPRETER.name: CRAWLER_STYLES[catalog.INTERPRETERS.name],
}
_FALLBACK = Style("#777777", "8", "-", "||")


def style(name: str) -> Style:
    """The style of a model, peer or idle kind; a name the catalog does not know gets a
    neutral one (a name it knows must have its row: a KeyError otherwise)."""
    if name in CRAWLERS:
        return CRAWLER_STYLES[name]
    if name in IDLE_KINDS:
        return IDLE_STYLES[name]
    return _FALLBACK


PEER_MARK = "◆"  # beside a peer's name in tables and legends: a reference, not a model


def label(name: str) -> str:
    """A model's name; a peer's with its marker and what it is: a reference line or row."""
    if name in PEERS:
        return f"{PEER_MARK} {name} (peer: what a user would use instead)"
    return name


def short_label(name: str) -> str:
    """A model's name; a peer's with its marker, for a legend: '◆ scrapy (peer)'."""
    return f"{PEER_MARK} {name} (peer)" if name in PEERS else name
