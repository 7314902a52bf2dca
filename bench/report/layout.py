"""The page as blocks: headings, text, tables, figures and folds, written out as report.md,
index.html and the README's block (markdown.py, html.py)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Generic, TypeVar


@dataclass(frozen=True)
class Strong:
    text: str


@dataclass(frozen=True)
class Code:
    text: str


@dataclass(frozen=True)
class Badge:
    text: str  # a verdict, as a coloured label
    css: str  # its class: reproduced, contradicted, ...


@dataclass(frozen=True)
class Link:
    """Text that leads elsewhere: '#c1' on the same page, or a file beside it."""

    text: str
    href: str


Span = str | Link | Strong | Code | Badge
Rich = tuple[Span, ...]


def joined(spans: Iterable[Span], between: str = ", ") -> Rich:
    """Spans with a separator between each two: 'C1, C2, C3'."""
    found: list[Span] = []
    for span in spans:
        found += [between, span] if found else [span]
    return tuple(found)


def plain(spans: Rich | str) -> str:
    """The text of spans without their markup."""
    if isinstance(spans, str):
        return spans
    return "".join(s if isinstance(s, str) else s.text for s in spans)


@dataclass(frozen=True)
class Heading:
    level: int  # 1-3
    anchor: str  # the id others link to
    text: str


@dataclass(frozen=True)
class Paragraph:
    spans: Rich | str
    note: bool = False  # small print


@dataclass(frozen=True)
class Bullets:
    items: list[Rich]
    css: str = ""  # "answer": the lines the page opens with


Cell = Rich | str


@dataclass(frozen=True)
class Table:
    header: list[str]
    rows: Sequence[Sequence[Cell]]
    numeric: set[int] = field(default_factory=set)  # columns aligned right
    caption: str = ""
    css: str = ""  # "verdicts": the table that fits a phone without scrolling

    def shown(self) -> Table:
        """The table as a page shows it: a column that is "-" in every row says nothing and
        is left out (the rows kept, the numeric columns renumbered)."""
        kept = [i for i in range(len(self.header)) if any(row[i] != "-" for row in self.rows)]
        if len(kept) == len(self.header) or not self.rows:
            return self
        return replace(
            self,
            header=[self.header[i] for i in kept],
            rows=[[row[i] for i in kept] for row in self.rows],
            numeric={n for n, i in enumerate(kept) if i in self.numeric},
        )


R = TypeVar("R")


@dataclass(frozen=True)
class Column(Generic[R]):
    """A table's column: its heading, and its cell from a row's name and record; a numeric
    column aligns right."""

    header: str
    cell: Callable[[str, R], Cell]
    numeric: bool = False


def table(
    columns: Sequence[Column[R]], rows: Iterable[tuple[str, R | None]], caption: str = ""
) -> Table:
    """A table of the columns, one row per (name, record); a row without a record shows its
    name, then "-"."""
    return Table(
        [c.header for c in columns],
        [
            [c.cell(name, record) for c in columns]
            if record is not None
            else [name, *["-"] * (len(columns) - 1)]
            for name, record in rows
        ],
        {i for i, c in enumerate(columns) if c.numeric},
        caption,
    )


@dataclass(frozen=True)
class Figure:
    """A chart: its file stem, title, the sentence that says what to look at, and the numbers
    it shows in words (folded under it)."""

    name: str
    title: str
    look: str
    numbers: str


CONTENTS = "contents"  # the anchor of the contents' own heading, which they leave out


@dataclass(frozen=True)
class Contents:
    """The table of contents: every heading of levels 2 and 3 of the page, linked."""


@dataclass(frozen=True)
class Details:
    """A fold: its summary line shows, its blocks open on a click."""

    summary: str
    blocks: list[Block]


Block = Heading | Paragraph | Bullets | Table | Figure | Contents | Details


def anchor(text: str) -> str:
    """An id from words: 'Memory per connection' -> 'memory-per-connection'."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def walk(blocks: list[Block]) -> Iterator[Block]:
    """Every block in page order, the blocks in folds included."""
    for block in blocks:
        yield block
        if isinstance(block, Details):
            yield from walk(block.blocks)


def headings(blocks: list[Block]) -> list[Heading]:
    """Every heading of levels 2 and 3 but the contents' own, folds included, in page order."""
    return [
        block
        for block in walk(blocks)
        if isinstance(block, Heading) and block.level in (2, 3) and block.anchor != CONTENTS
    ]


FOLD_ROWS = 6  # a table with more rows than this opens on a click


def section(
    anchor: str, title: str, text: list[str], tables: list[Table], notes: list[str]
) -> list[Block]:
    """A section of the page after the charts: its heading, text, tables and notes in small
    print (an empty text or note is left out). A table with more than FOLD_ROWS rows is folded
    (its summary: its caption and how many rows)."""
    blocks: list[Block] = [Heading(2, anchor, title), *(Paragraph(t) for t in text if t)]
    for table in tables:
        if len(table.rows) > FOLD_ROWS:
            summary = f"{table.caption or 'The table'} ({len(table.rows)} rows)"
            blocks.append(Details(summary, [table]))
        else:
            blocks.append(table)
    return blocks + [Paragraph(note, note=True) for note in notes if note]


def table_section(
    anchor: str,
    title: str,
    table: Table,
    note: str = "",
    empty: str = "Not measured.",
    lead: str = "",
) -> list[Block]:
    """A section that is one table, the text that leads to it and its note; or the text
    `empty` when it has no rows."""
    if not table.rows:
        return section(anchor, title, [empty], [], [])
    return section(anchor, title, [lead], [table], [note])
