"""Blocks as Markdown (GitHub's): report.md, and the README's generated block."""

from __future__ import annotations

from dataclasses import dataclass

from bench.report import layout
from bench.report.layout import Block, Rich


@dataclass(frozen=True)
class Place:
    """Where the Markdown is read from: page is the file that holds the anchors ('' for the
    Markdown itself), images the folder of the chart files ('' for beside it)."""

    page: str = ""
    images: str = ""

    def href(self, target: str) -> str:
        return f"{self.page}{target}" if target.startswith("#") else f"{self.images}{target}"


def spans(found: Rich | str, place: Place) -> str:
    if isinstance(found, str):
        return found
    out = []
    for span in found:
        if isinstance(span, str):
            out.append(span)
        elif isinstance(span, layout.Link):
            out.append(f"[{span.text}]({place.href(span.href)})")
        elif isinstance(span, layout.Strong | layout.Badge):
            out.append(f"**{span.text}**")
        elif isinstance(span, layout.Code):
            out.append(f"`{span.text}`")
    return "".join(out)


def _cell(found: Rich | str, place: Place) -> str:
    return spans(found, place).replace("|", "\\|").replace("\n", " ")


def table(block: layout.Table, place: Place) -> list[str]:
    block = block.shown()
    lines = ([f"**{block.caption}**", ""] if block.caption else []) + [
        "| " + " | ".join(block.header) + " |",
        "|" + "".join("---:|" if i in block.numeric else "---|" for i in range(len(block.header))),
    ]
    lines += ["| " + " | ".join(_cell(c, place) for c in row) + " |" for row in block.rows]
    return [*lines, ""]


def _contents(blocks: list[Block], place: Place) -> list[str]:
    lines = [
        f"{'  ' * (heading.level - 2)}- [{heading.text}]({place.href('#' + heading.anchor)})"
        for heading in layout.headings(blocks)
    ]
    return [*lines, ""]


def figure(block: layout.Figure, place: Place) -> list[str]:
    return [
        f"![{block.title}]({place.href(block.name + '.png')})",
        "",
        f"**What to look at:** {block.look}",
        "",
        "<details><summary>The numbers</summary>",
        "",
        block.numbers,
        "",
        f"([SVG]({place.href(block.name + '.svg')}))",
        "",
        "</details>",
        "",
    ]


def render(blocks: list[Block], place: Place = Place(), every: list[Block] | None = None) -> str:
    """The blocks as Markdown; every: the whole page, whose headings the contents list."""
    lines: list[str] = []
    for block in blocks:
        if isinstance(block, layout.Heading):
            at = f'<a id="{block.anchor}"></a>' if block.anchor else ""  # none: not linked to
            lines += [f"{'#' * block.level} {at}{block.text}", ""]
        elif isinstance(block, layout.Paragraph):
            lines += [spans(block.spans, place), ""]
        elif isinstance(block, layout.Bullets):
            lines += [f"- {spans(item, place)}" for item in block.items] + [""]
        elif isinstance(block, layout.Table):
            lines += table(block, place)
        elif isinstance(block, layout.Figure):
            lines += figure(block, place)
        elif isinstance(block, layout.Contents):
            lines += _contents(every if every is not None else blocks, place)
        elif isinstance(block, layout.Details):
            inner = render(block.blocks, place, every)
            lines += [f"<details><summary>{block.summary}</summary>", "", inner, "</details>", ""]
    return "\n".join(lines)
