"""Blocks as one self-contained HTML page: styles inline, charts as PNG data URIs, no script and
no link outside the file; it fits a phone's width (wide tables scroll in their own box)."""

from __future__ import annotations

import base64
import html
import struct

from bench.report import layout

CSS = """
*{box-sizing:border-box}
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;
max-width:1180px;padding:1rem 1.2rem 3rem;color:#1a1a1a;background:#fff;overflow-wrap:break-word}
h1{font-size:1.7rem;line-height:1.25;margin:.4em 0 .5em}
h2{font-size:1.35rem;margin-top:2.2em;border-bottom:1px solid #ddd;padding-bottom:.2em}
h3{font-size:1.1rem;margin-top:1.8em}
a{color:#0b4f8a}
ul.answer{list-style:none;padding:0;margin:0 0 1.2em;font-size:1.05rem}
ul.answer li{margin:.4em 0;padding:.1em 0 .1em .7em;border-left:4px solid #0072B2}
.scroll{overflow-x:auto;max-width:100%;margin:.5em 0}
table{border-collapse:collapse;font-size:14px}
th,td{border:1px solid #ccc;padding:.3em .5em;text-align:left;vertical-align:top}
th{background:#f2f2f2}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.verdicts{width:100%}
.badge{font-weight:bold;padding:0 .25em;border-radius:3px;white-space:nowrap}
.reproduced{background:#e3f4e8;color:#0b5d1e}.contradicted{background:#fbe4e0;color:#8a1c0d}
.inconclusive{background:#fdf3d8;color:#6b4a00}.not-measurable{background:#eee;color:#444}
figure{margin:1em 0}
figure img{display:block;max-width:100%;height:auto;border:1px solid #eee}
p.look{margin:.3em 0 .5em}
p.note{color:#555;font-size:14px}
nav.toc ol{margin:.3em 0;padding-left:1.4em}
nav.toc>ol{columns:2 18em;column-gap:2em}
nav.toc li{break-inside:avoid}
details{margin:.6em 0}
summary{cursor:pointer;color:#0b4f8a}
code{font-size:.92em;background:#f5f5f5;padding:0 .2em;overflow-wrap:anywhere}
@media (max-width:640px){
body{padding:.6rem .7rem 2rem;font-size:15px}
h1{font-size:1.35rem}
table{font-size:12.5px}
th,td{padding:.2em .3em}
table.verdicts thead{display:none}
table.verdicts,table.verdicts tbody,table.verdicts tr,table.verdicts td{display:block;width:100%}
table.verdicts tr{border:1px solid #ccc;margin:.6em 0;padding:.3em .4em}
table.verdicts td{border:none;padding:.1em 0}
table.verdicts td::before{content:attr(data-label) ": ";font-weight:600;color:#555}
}
"""
# The page carries the stylesheet on one line: the rules above are for reading, the page's
# bytes for a browser.
INLINE_CSS = "".join(CSS.split("\n"))


def spans(found: layout.Rich | str) -> str:
    return html.escape(found) if isinstance(found, str) else "".join(map(_span, found))


def _span(span: layout.Span) -> str:
    if isinstance(span, str):
        return html.escape(span)
    text = html.escape(span.text)
    if isinstance(span, layout.Link):
        return f'<a href="{html.escape(span.href)}">{text}</a>'
    if isinstance(span, layout.Badge):
        return f'<span class="badge {span.css}">{text}</span>'
    tag = "strong" if isinstance(span, layout.Strong) else "code"
    return f"<{tag}>{text}</{tag}>"


def table(block: layout.Table) -> str:
    block = block.shown()
    head = "".join(f"<th>{html.escape(h)}</th>" for h in block.header)
    # Each cell carries its column's name: a phone shows the rows as cards.
    num = ' class="num"'
    cells = [
        f'<td{num if i in block.numeric else ""} data-label="{html.escape(h)}">'
        for i, h in enumerate(block.header)
    ]
    body = "".join(
        "<tr>" + "".join(f"{cells[i]}{spans(c)}</td>" for i, c in enumerate(row)) + "</tr>"
        for row in block.rows
    )
    css = f' class="{block.css}"' if block.css else ""
    caption = f"<h4>{html.escape(block.caption)}</h4>" if block.caption else ""
    found = f"<table{css}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return caption + (found if block.css == "verdicts" else f'<div class="scroll">{found}</div>')


def figure(block: layout.Figure, images: dict[str, bytes]) -> str:
    data = images[block.name]
    width, height = struct.unpack(">II", data[16:24])  # from the PNG's header
    encoded = base64.b64encode(data).decode("ascii")
    return (
        f'<figure><p class="look"><strong>What to look at:</strong> {html.escape(block.look)}</p>'
        f'<img alt="{html.escape(block.title)}" width="{width}" height="{height}" '
        f'src="data:image/png;base64,{encoded}">'
        f"<details><summary>The numbers</summary><p>{html.escape(block.numbers)}</p></details>"
        "</figure>"
    )


def contents(every: list[layout.Block]) -> str:
    """Level-2 headings with their level-3 headings nested under them."""
    groups: list[tuple[layout.Heading, list[layout.Heading]]] = []
    for heading in layout.headings(every):
        if heading.level == 2:
            groups.append((heading, []))
        elif heading.level == 3 and groups:
            groups[-1][1].append(heading)

    def link(heading: layout.Heading) -> str:
        return f'<a href="#{heading.anchor}">{html.escape(heading.text)}</a>'

    items = "".join(
        f"<li>{link(top)}"
        + (f"<ol>{''.join(f'<li>{link(s)}</li>' for s in subs)}</ol>" if subs else "")
        + "</li>"
        for top, subs in groups
    )
    return f'<nav class="toc" aria-label="Contents"><ol>{items}</ol></nav>'


def render(blocks: list[layout.Block], images: dict[str, bytes], every: list[layout.Block]) -> str:
    out = []
    for block in blocks:
        if isinstance(block, layout.Heading):
            text = html.escape(block.text)
            out.append(f'<h{block.level} id="{block.anchor}">{text}</h{block.level}>')
        elif isinstance(block, layout.Paragraph):
            css = ' class="note"' if block.note else ""
            out.append(f"<p{css}>{spans(block.spans)}</p>")
        elif isinstance(block, layout.Bullets):
            css = f' class="{block.css}"' if block.css else ""
            out.append(
                f"<ul{css}>" + "".join(f"<li>{spans(i)}</li>" for i in block.items) + "</ul>"
            )
        elif isinstance(block, layout.Table):
            out.append(table(block))
        elif isinstance(block, layout.Figure):
            out.append(figure(block, images))
        elif isinstance(block, layout.Contents):
            out.append(contents(every))
        elif isinstance(block, layout.Details):
            inner = render(block.blocks, images, every)
            out.append(f"<details><summary>{html.escape(block.summary)}</summary>{inner}</details>")
    return "".join(out)


def page(title: str, blocks: list[layout.Block], images: dict[str, bytes]) -> str:
    """One HTML file with everything inside."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{INLINE_CSS}</style></head><body>"
        + render(blocks, images, blocks)
        + "</body></html>\n"
    )
