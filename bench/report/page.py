"""report.md and a self-contained index.html from the verdicts, the charts and the runs."""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.report import conditions
from bench.report.captions import INSTRUCTIONS_TITLE, instructions_caption
from bench.report.chart_kit import Chart
from bench.report.charts import draw_all, save
from bench.report.conditions import Section, Table, table_section
from bench.report.figures import scenarios_not_run
from bench.report.tables import (
    INSTRUCTION_HEADER,
    MEDIAN_NOTE,
    PEER_HEADER,
    PEER_NOTE,
    REALISTIC_HEADER,
    environment_rows,
    instruction_rows,
    peer_rows,
    problem_rows,
    realistic_rows,
)
from bench.report.verdicts import CONTRADICTED, INCONCLUSIVE, REPRODUCED, Verdict, verdicts

VERDICT_MARK = {REPRODUCED: "✔", CONTRADICTED: "✘", INCONCLUSIVE: "≈"}
DOCS = "docs/report.md"

REALISTIC_TITLE = (
    "Realistic sites (deep: lognormal latency, bandwidth limit, faults; "
    "docs: lognormal latency, 50-200 KB pages, 300 links a page)"
)


PEERS_TITLE = "Peers: what a user would use instead (a reference, not a model)"


@dataclass(frozen=True)
class Written:
    markdown: Path
    html: Path
    charts: list[Path]


def headline(document: dict[str, Any]) -> str:
    """One sentence: which machine, which profile, when."""
    env = document.get("environment") or {}
    cpu = env.get("cpu") or {}
    python = env.get("python") or {}
    profile = (document.get("profile") or {}).get("name", "?")
    text = (
        f"Measured on {cpu.get('model', 'an unknown CPU')} ({cpu.get('usable_cores', '?')} "
        f"cores), CPython {python.get('version', '?')}, profile `{profile}`, "
        f"started {document.get('started_at') or '?'}, status {document.get('status', '?')}."
    )
    if profile == "quick":
        text += (
            " The quick profile is a smoke test at tiny scale: its numbers are not measurements."
        )
    missing = scenarios_not_run(document)
    if missing:
        text += f" Scenarios that did not run: {', '.join(missing)}."
    return text


VERDICT_HEADER = ["claim", "the chapter says", "chapter", "measured here", "conditions", "verdict"]


def verdict_cells(v: Verdict) -> list[str]:
    return [v.claim, v.words, v.chapter, v.measured, v.conditions, v.verdict]


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _md_section(section: Section) -> list[str]:
    parts = [f"## {section.title}", ""]
    for text in section.paragraphs:
        parts += [text, ""]
    for table in section.tables:
        parts += [f"**{table.caption}**", ""] if table.caption else []
        parts += [_md_table(table.header, table.rows), ""]
    for text in section.notes:
        parts += [text, ""]
    return parts


def _closing_sections(document: dict[str, Any]) -> list[Section]:
    """The sections after the charts: how the runs ran, the realistic sites, instructions per
    page, and the runs that did not count."""
    realistic = Table("", REALISTIC_HEADER, realistic_rows(document), set(range(2, 10)))
    counted = Table("", INSTRUCTION_HEADER, instruction_rows(document), set(range(1, 6)))
    not_counted = Table("", ["run", "status", "reason"], problem_rows(document))
    peers = Table("", PEER_HEADER, peer_rows(document), {3, 4, 5, 6})
    instructions_note = instructions_caption(document) if counted.rows else ""
    return [
        *conditions.sections(document),
        table_section(REALISTIC_TITLE, realistic, MEDIAN_NOTE),
        table_section(INSTRUCTIONS_TITLE, counted, instructions_note),
        table_section(PEERS_TITLE, peers, PEER_NOTE, empty="No peer ran."),
        table_section("Runs that did not count", not_counted, empty="None: every run counted."),
    ]


def markdown(document: dict[str, Any], found: list[Verdict], charts: list[Chart]) -> str:
    """The report as Markdown; chart images are the PNG files beside it."""
    parts = [
        "# c10k-bench report",
        "",
        headline(document),
        "",
        "## Verdicts on the chapter's claims",
        "",
        _md_table(
            VERDICT_HEADER,
            [
                [*verdict_cells(v)[:-1], f"**{VERDICT_MARK.get(v.verdict, '–')} {v.verdict}**"]
                for v in found
            ],
        ),
        "",
        f"Each verdict comes from a rule in `bench/report/verdicts/`, listed in `{DOCS}`:",
        "",
        *[f"- {v.claim}: {v.rule}." for v in found],
        "",
    ]
    for chart in charts:
        parts += [
            f"## {chart.title}",
            "",
            f"![{chart.title}]({chart.name}.png)",
            "",
            chart.interpretation,
            "",
            f"([SVG]({chart.name}.svg))",
            "",
        ]
    for section in _closing_sections(document):
        parts += _md_section(section)
    parts += [
        "## Environment",
        "",
        _md_table(["item", "value"], [list(r) for r in environment_rows(document)]),
    ]
    return "\n".join(parts) + "\n"


CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;
max-width:1120px;padding:1.5em;color:#1a1a1a;background:#fff}
h1{margin-bottom:.2em}h2{margin-top:2em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;width:100%;font-size:13px;margin:.5em 0}
th,td{border:1px solid #ccc;padding:.35em .5em;text-align:left;vertical-align:top}
th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.verdict{font-weight:bold;white-space:nowrap}
.reproduced{background:#e3f4e8;color:#0b5d1e}.contradicted{background:#fbe4e0;color:#8a1c0d}
.inconclusive{background:#fdf3d8;color:#6b4a00}.not-measurable{background:#eeeeee;color:#444}
figure{margin:1em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{margin-top:.4em}p.note{color:#555;font-size:13px}
"""


def _verdict_class(verdict: str) -> str:
    classes = {REPRODUCED: "reproduced", CONTRADICTED: "contradicted", INCONCLUSIVE: "inconclusive"}
    return classes.get(verdict, "not-measurable")


def _html_table(header: list[str], rows: list[list[str]], numeric: set[int] | None = None) -> str:
    numeric = numeric or set()
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{html.escape(c)}</td>'
            if i in numeric
            else f"<td>{html.escape(c)}</td>"
            for i, c in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _html_section(section: Section) -> str:
    text = "".join(f"<p>{html.escape(t)}</p>" for t in section.paragraphs)
    for table in section.tables:
        text += f"<h3>{html.escape(table.caption)}</h3>" if table.caption else ""
        text += _html_table(table.header, table.rows, table.numeric)
    text += "".join(f'<p class="note">{html.escape(t)}</p>' for t in section.notes)
    return f"<h2>{html.escape(section.title)}</h2>{text}"


def page(
    document: dict[str, Any], found: list[Verdict], charts: list[Chart], images: dict[str, bytes]
) -> str:
    """One HTML file with everything inside: styles inline, charts as PNG data URIs."""
    verdict_rows = "".join(
        "<tr>"
        + "".join(f"<td>{html.escape(c)}</td>" for c in verdict_cells(v)[:-1])
        + f'<td class="verdict {_verdict_class(v.verdict)}">'
        + f"{VERDICT_MARK.get(v.verdict, '–')} {html.escape(v.verdict)}</td></tr>"
        for v in found
    )
    head = "".join(f"<th>{html.escape(h)}</th>" for h in VERDICT_HEADER)
    sections = []
    for chart in charts:
        data = base64.b64encode(images[chart.name]).decode("ascii")
        sections.append(
            f'<h2 id="{chart.name}">{html.escape(chart.title)}</h2>'
            f'<figure><img alt="{html.escape(chart.title)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{html.escape(chart.interpretation)}</figcaption></figure>"
        )
    rules = "".join(f"<li>{html.escape(v.claim)}: {html.escape(v.rule)}</li>" for v in found)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>c10k-bench report</title><style>{CSS}</style></head><body>"
        "<h1>c10k-bench report</h1>"
        f"<p>{html.escape(headline(document))}</p>"
        "<h2>Verdicts on the chapter's claims</h2>"
        f"<table><thead><tr>{head}</tr></thead><tbody>{verdict_rows}</tbody></table>"
        f'<p class="note">Each verdict comes from a rule in bench/report/verdicts/ '
        f'(documented in {DOCS}):</p><ul class="note">{rules}</ul>'
        + "".join(sections)
        + "".join(_html_section(s) for s in _closing_sections(document))
        + "<h2>Environment</h2>"
        + _html_table(["item", "value"], [list(r) for r in environment_rows(document)])
        + "</body></html>\n"
    )


def write_report(document: dict[str, Any], out_dir: Path) -> Written:
    """Draw every chart (PNG + SVG), then write report.md and index.html into out_dir."""
    out_dir.mkdir(parents=True, exist_ok=True)
    found = verdicts(document)
    charts = draw_all(document)
    files: list[Path] = []
    images: dict[str, bytes] = {}
    for chart in charts:
        png, svg = save(chart, out_dir)
        files += [png, svg]
        images[chart.name] = png.read_bytes()
    md_path = out_dir / "report.md"
    md_path.write_text(markdown(document, found, charts), encoding="utf-8")
    html_path = out_dir / "index.html"
    html_path.write_text(page(document, found, charts, images), encoding="utf-8")
    return Written(md_path, html_path, files)
