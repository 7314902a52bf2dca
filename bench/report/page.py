"""The report's page, answer first: report.md and a self-contained index.html (docs/report.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bench.report import both_cores, captions, conditions, layout, tables
from bench.report.answer import answer
from bench.report.chart_kit import Chart
from bench.report.charts import draw_all, save
from bench.report.claims import claim_section, sources_note, verdict_table
from bench.report.html import page as html_page
from bench.report.layout import Block, Heading, Paragraph, Table
from bench.report.loops import which_loop
from bench.report.markdown import render
from bench.report.sources import Sources, of_document, profile_name
from bench.report.verdicts import Ruling, rulings
from bench.results import Results
from c10k import catalog

TITLE = "c10k-bench: the chapter's claims on this machine"
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


def figure(chart: Chart) -> layout.Figure:
    return layout.Figure(chart.name, chart.title, chart.look, chart.interpretation)


def _scenarios_note(document: Results) -> list[Block]:
    missing = document["derived"].get("not_run") or []
    if not missing or "runs" not in document:
        return []
    return [Paragraph(f"Scenarios that did not run: {', '.join(missing)}.", note=True)]


def opening(found: Sources, judged: list[Ruling]) -> list[Block]:
    """The answer and the verdict table: what the README's block holds too."""
    document = found.document
    blocks: list[Block] = [layout.Bullets(answer(found, judged), css="answer")]
    if profile_name(document) == "quick":
        smoke = "The quick profile is a smoke test at tiny scale: its numbers are not measurements."
        blocks.append(Paragraph(smoke, note=True))
    return [*blocks, verdict_table(judged), sources_note(found, judged)]


def _later_sections(found: Sources) -> list[Block]:
    """How the runs ran: memory fits, past one process (the c100k run's), cores, realistic,
    instructions, peers; which loop (the main run's, and the loops run's)."""
    document = found.document
    c100k = found.c100k.document if found.c100k else document
    realistic, counted = tables.realistic_table(document), tables.instructions(document)
    peers = Table(tables.PEER_HEADER, tables.peer_rows(document), {3, 4, 5, 6})
    with_cpu = tables.CPU_AT_C in counted.shown().header
    note = captions.instructions_caption(document, with_cpu) if counted.rows else ""
    blocks = [
        *conditions.memory_section(document),
        *conditions.past_one_process_section(c100k),
        *conditions.cores_section(document),
        *layout.table_section(
            "realistic",
            REALISTIC_TITLE,
            realistic,
            tables.MEDIAN_NOTE + tables.noisy_note(document, catalog.REALISTIC.name),
        ),
        *layout.table_section("instructions-table", captions.INSTRUCTIONS_TITLE, counted, note),
        *layout.table_section("peers", PEERS_TITLE, peers, tables.PEER_NOTE, empty="No peer ran."),
    ]
    for source in (found.main, found.loops):
        if source is not None:
            blocks += which_loop(source)
    return blocks


def _closing(found: Sources) -> list[Block]:
    """The runs that did not count (the one list of them), the files and the environment."""
    document = found.document
    not_counted = Table(tables.NOT_COUNTED_HEADER, tables.not_counted_rows(document))
    files = Table(
        ["file", "role", "profile", "started", "status"],
        [
            [
                (layout.Code(str(s.path)),),
                s.role,
                s.profile,
                s.started or "-",
                s.document.get("status", "-"),
            ]
            for s in found.given()
        ],
    )
    return [
        Heading(2, captions.NOT_COUNTED_ANCHOR, "Runs that did not count"),
        *([not_counted] if not_counted.rows else [Paragraph("None: every run counted.")]),
        Heading(2, "environment", "Environment"),
        files,
        Table(["item", "value"], [list(r) for r in tables.environment_rows(document)]),
    ]


def page_blocks(found: Sources, judged: list[Ruling], charts: list[Chart]) -> list[Block]:
    """The whole page as blocks: the answer, the verdict table, the contents, the two charts
    read at a glance, a section per claim, every chart, how the runs ran, the runs that did not
    count (listed once) and the environment."""
    by_name = {chart.name: chart for chart in charts}
    glance = [
        by_name[name] for name in (captions.HEADLINE, captions.VERDICT_CHART) if name in by_name
    ]
    rest = [chart for chart in charts if chart not in glance]
    blocks: list[Block] = [
        Heading(1, "top", TITLE),
        *opening(found, judged),
        *_scenarios_note(found.document),
        Heading(2, layout.CONTENTS, "Contents"),
        layout.Contents(),
        Heading(2, "at-a-glance", "At a glance"),
        *(figure(chart) for chart in glance),
        Heading(2, "claims", "The claims, one by one"),
    ]
    for ruling in judged:
        blocks += claim_section(ruling)
        if ruling.verdict.claim == "C8":  # beside C8, from the same runtimes.json
            runtimes = found.free_threading.runtimes if found.free_threading else None
            blocks += [
                Paragraph((layout.Strong(both_cores.TITLE),)),
                *both_cores.both_cores_blocks(runtimes),
            ]
    blocks.append(Heading(2, "charts", "Charts"))
    for chart in rest:
        blocks += [Heading(3, chart.name, chart.title), figure(chart)]
    return blocks + _later_sections(found) + _closing(found)


def _sources(found: Sources | Results) -> Sources:
    return found if isinstance(found, Sources) else of_document(found)


def markdown(found: Sources | Results, charts: list[Chart] | None = None) -> str:
    """The report as Markdown, with the charts given (none: a page of text and tables)."""
    found = _sources(found)
    return render(page_blocks(found, rulings(found), charts or []))


def write_report(found: Sources | Results, out_dir: Path) -> Written:
    """Draw every chart (PNG + SVG), then write report.md and index.html into out_dir."""
    found = _sources(found)
    out_dir.mkdir(parents=True, exist_ok=True)
    judged = rulings(found)
    charts = draw_all(found.document, judged)
    files: list[Path] = []
    images: dict[str, bytes] = {}
    for chart in charts:
        png, svg = save(chart, out_dir)
        files += [png, svg]
        images[chart.name] = png.read_bytes()
    blocks = page_blocks(found, judged, charts)
    md_path = out_dir / "report.md"
    md_path.write_text(render(blocks), encoding="utf-8")
    html_path = out_dir / "index.html"
    html_path.write_text(html_page(TITLE, blocks, images), encoding="utf-8")
    return Written(md_path, html_path, files)
