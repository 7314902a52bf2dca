"""The verdict table (five columns) and one section per claim: its verdict, rule, the file it was
judged from, its conditions and numbers, and the charts that show them."""

from __future__ import annotations

from bench.report import layout
from bench.report.sources import COMMANDS, ROLE_WORDS, Sources
from bench.report.verdicts import CONTRADICTED, FROM_ONE_RUN, INCONCLUSIVE, REPRODUCED, Ruling
from c10k.words import line

# Each outcome's mark and its badge's CSS class; any other outcome is not measured.
BADGES = {
    REPRODUCED: ("✔", "reproduced"),
    CONTRADICTED: ("✘", "contradicted"),
    INCONCLUSIVE: ("≈", "inconclusive"),
    FROM_ONE_RUN: ("≈", "inconclusive"),
}
VERDICT_HEADER = ["claim", "claimed", "measured here", "threshold", "verdict"]
RULES_AT = "bench/report/verdicts/"  # where every rule is written, documented in docs/report.md
# The charts and sections that show a claim's numbers, by anchor, with their link text.
EVIDENCE: dict[str, tuple[tuple[str, str], ...]] = {
    "C1": (("idle-units", "idle units"),),
    "C2": (("idle-units", "idle units"),),
    "C3": (("idle-units", "idle units"),),
    "C4": (("idle-units", "idle units"),),
    "C5": (("idle-units", "idle units"), ("c100k", "past one process")),
    "C6": (("few-active", "few active"), ("instructions", "instructions per page")),
    "C7": (
        ("sleepy-keep-alive-throughput", "sleepy keep-alive"),
        ("memory-per-connection", "memory per connection"),
        ("sleepy-throughput", "sleepy, a connection per fetch"),
    ),
    "C8": (),
    "C9": (("few-active", "few active"), ("instructions", "instructions per page")),
}
FOLD_CLAUSES = 4  # conditions with more clauses than this open on a click


def badge(ruling: Ruling) -> layout.Badge:
    verdict = ruling.verdict.verdict
    mark, css = BADGES.get(verdict, ("–", "not-measurable"))
    return layout.Badge(f"{mark} {verdict}", css)


def anchor(ruling: Ruling) -> str:
    return ruling.verdict.claim.lower()


def verdict_table(found: list[Ruling]) -> layout.Table:
    """One row per claim: the claim (linked to its section), the chapter's figure, the figure
    measured with its interval, the rule's threshold and the verdict."""
    rows: list[list[layout.Rich | str]] = [
        [
            (layout.Link(f"{r.verdict.claim} {r.verdict.about.words}", f"#{anchor(r)}"),),
            r.verdict.about.chapter,
            r.verdict.figure,
            r.verdict.threshold,
            (badge(r),),
        ]
        for r in found
    ]
    return layout.Table(VERDICT_HEADER, rows, css="verdicts")


def judged_from(ruling: Ruling) -> layout.Rich:
    """The file a claim was judged from, or the command that writes the file it needs."""
    spans: list[layout.Span] = []
    if ruling.source is not None:
        spans += [
            "Judged from ",
            layout.Code(str(ruling.source.path)),
            f" ({ruling.source.about()}).",
        ]
    if ruling.needs:
        spans += [
            " " if spans else "",
            f"It needs {ROLE_WORDS[ruling.needs]}: ",
            layout.Code(COMMANDS[ruling.needs]),
            "; name its file (or DIR) on the command line of ",
            layout.Code("c10k report"),
            " beside the others.",
        ]
    return tuple(spans)


def claim_section(ruling: Ruling) -> list[layout.Block]:
    """A claim's own section: verdict and figure, rule, file, conditions, evidence."""
    v = ruling.verdict
    measured = [f"Measured: {line(v.measured)}"] if v.measured else []
    items: list[layout.Rich] = [(text,) for text in (*measured, *v.conditions)]
    blocks: list[layout.Block] = [
        layout.Heading(3, anchor(ruling), f"{v.claim}: {v.about.words}"),
        layout.Paragraph(
            (
                badge(ruling),
                " ",
                layout.Strong(v.figure),
                f" against the rule's threshold {v.threshold}; {v.about.source} says "
                f"{v.about.chapter}.",
            )
        ),
        layout.Paragraph(f"Rule: {v.about.rule}."),
        layout.Paragraph(judged_from(ruling), note=True),
    ]
    if v.stopping:
        blocks.append(layout.Paragraph(f"Rounds: {v.stopping}.", note=True))
    if len(items) > FOLD_CLAUSES:
        summary = f"Conditions and supporting numbers ({len(items)})"
        blocks.append(layout.Details(summary, [layout.Bullets(items)]))
    else:
        blocks.append(layout.Bullets(items))
    if evidence := EVIDENCE[v.claim]:
        links = [layout.Link(text, f"#{target}") for target, text in evidence]
        blocks.append(layout.Paragraph(("Shown in: ", *layout.joined(links), ".")))
    return blocks


def sources_note(found: Sources, rulings: list[Ruling]) -> layout.Paragraph:
    """Under the verdict table: which file judged which claims, and where the rules are."""
    spans: list[layout.Span] = []
    for source in found.given():
        claims = [r.verdict.claim for r in rulings if r.source is source]
        if claims:
            judged = f"{', '.join(claims)} judged from "
            spans += [judged, layout.Code(str(source.path)), f" ({source.about()}). "]
    needed = [r for r in rulings if r.needs]
    for ruling in needed:
        needs = f"{ruling.verdict.claim} needs {ROLE_WORDS[ruling.needs]} ("
        spans += [needs, layout.Code(COMMANDS[ruling.needs]), "). "]
    spans += ["Every verdict comes from a rule in ", layout.Code(RULES_AT), " (docs/report.md)."]
    return layout.Paragraph(tuple(spans), note=True)
