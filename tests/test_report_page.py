"""The page reads answer first: at most five lines, the five-column verdict table with each row
linked to its claim's section, contents whose every link lands, a sentence on what to look at
above every chart, and under 1 MB with the charts inline."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from bench import results
from bench.report.claims import VERDICT_HEADER
from bench.report.page import Written, write_report
from bench.report.tables import not_counted_rows

DATA = Path(__file__).parent / "data"
SAMPLE = Path(__file__).resolve().parent.parent / "reports" / "index.html"
MAX_BYTES = 1_000_000


class Outline(HTMLParser):
    """The page's elements in order (tag, attributes), and the text inside each <li> of the
    answer and each verdict row."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.tags.append((tag, found))
        if found.get("id"):
            self.ids.add(str(found["id"]))
        if tag == "a" and found.get("href"):
            self.links.append(str(found["href"]))


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Written:
    document = results.load(DATA / "report-failures.json")
    return write_report(document, tmp_path_factory.mktemp("page"))


@pytest.fixture(scope="module")
def outline(written: Written) -> Outline:
    found = Outline()
    found.feed(written.html.read_text(encoding="utf-8"))
    return found


def test_the_page_opens_with_at_most_five_lines_then_the_verdicts(outline: Outline) -> None:
    tags = [tag for tag, _ in outline.tags if tag in ("h1", "h2", "ul", "li", "table")]
    assert tags[0] == "h1" and tags[1] == "ul"
    answer = tags[2 : tags.index("table")]
    assert 1 <= len(answer) <= 5 and set(answer) == {"li"}
    classes = [a.get("class") for tag, a in outline.tags if tag in ("ul", "table")]
    assert classes[:2] == ["answer", "verdicts"]


def test_the_verdict_table_has_five_columns_and_links_each_claim(written: Written) -> None:
    text = written.markdown.read_text(encoding="utf-8")
    header = f"| {' | '.join(VERDICT_HEADER)} |"
    assert len(VERDICT_HEADER) == 5 and header in text
    table = text.split(header, 1)[1].split("\n\n", 1)[0].splitlines()
    rows = [line for line in table if line.startswith("| [")]
    assert len(rows) == 9
    for n, row in enumerate(rows, 1):
        assert row.startswith(f"| [C{n} ") and f"](#c{n}) |" in row
        assert row.count(" | ") == 4


def test_every_link_on_the_page_lands(outline: Outline) -> None:
    inside = [link for link in outline.links if link.startswith("#")]
    assert {f"#c{n}" for n in range(1, 10)} <= set(inside)
    assert [link for link in inside if link[1:] not in outline.ids] == []
    assert [link for link in outline.links if not link.startswith("#")] == []


def test_every_chart_says_what_to_look_at(written: Written) -> None:
    text = written.html.read_text(encoding="utf-8")
    figures = text.split("<figure>")[1:]
    assert len(figures) == sum(1 for p in written.charts if p.suffix == ".png")
    for figure in figures:
        look = figure.split('<p class="look"><strong>What to look at:</strong> ', 1)[1]
        assert len(look.split("</p>", 1)[0]) > 40


def test_the_page_has_contents_and_folds(written: Written) -> None:
    text = written.html.read_text(encoding="utf-8")
    assert '<nav class="toc" aria-label="Contents">' in text
    assert text.count("<details>") >= 10  # the numbers under each chart, long lists


@pytest.mark.parametrize("which", ["rendered", "sample"])
def test_the_page_with_its_charts_inline_is_under_one_megabyte(
    written: Written, which: str
) -> None:
    page = written.html if which == "rendered" else SAMPLE
    if not page.is_file():
        pytest.skip("no committed sample")
    assert page.stat().st_size < MAX_BYTES


def test_a_model_the_plan_left_out_is_listed_with_what_it_needs() -> None:
    document = results.load(DATA / "report-failures.json")
    document["profile"]["left_out"] = [
        {"model": "interpreters", "needs": "3.14", "runtimes": ["3.11"]}
    ]
    rows = not_counted_rows(document)
    assert rows[-1] == [
        "-",
        "interpreters",
        "-",
        "-",
        "not planned",
        "needs CPython 3.14 (this run: 3.11)",
        "-",
    ]
    assert not [row for row in rows[:-1] if row[1] == "interpreters"]
