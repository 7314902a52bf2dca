"""The renderer on recorded results (failed runs, missing scenarios): every chart, a valid page."""

from __future__ import annotations

import base64
import html
import json
from html.parser import HTMLParser
from pathlib import Path
from typing import cast

import pytest

from bench import results
from bench.report import cli
from bench.report.charts import CHART_COUNT
from bench.report.page import Written, write_report
from bench.results import SCHEMA, Results

DATA = Path(__file__).parent / "data"
RECORDED = ("report-failures.json", "report-partial.json")
VOID = {"meta", "img", "br", "hr", "link", "input", "source", "col", "area", "base", "wbr"}


class PageParser(HTMLParser):
    """Collects images and table rows; fails on a closing tag that does not match."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.images: list[dict[str, str | None]] = []
        self.errors: list[str] = []
        self.rows = 0
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            self.images.append(dict(attrs))
        if tag == "tr":
            self.rows += 1
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def empty_document() -> Results:
    return cast(Results, {"schema": SCHEMA, "status": "running", "runs": [], "derived": {}})


def load(name: str) -> Results:
    document = results.load(DATA / name)
    return document


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Written]:
    """Each recorded file (and an empty document) rendered once for all the tests."""
    out: dict[str, Written] = {}
    for name in (*RECORDED, "empty"):
        document = empty_document() if name == "empty" else load(name)
        out[name] = write_report(document, tmp_path_factory.mktemp(name.replace(".", "-")))
    return out


def chart_names(written: Written) -> list[str]:
    """The stems of the chart files written, in the page's order."""
    return [path.stem for path in written.charts if path.suffix == ".png"]


@pytest.mark.parametrize("name", [*RECORDED, "empty"])
def test_every_chart_is_written_as_png_and_svg(rendered: dict[str, Written], name: str) -> None:
    written = rendered[name]
    names = chart_names(written)
    # One PNG and one SVG per chart, each chart under its own name, all beside the page.
    assert len(names) == len(set(names)) == CHART_COUNT
    assert sorted(written.charts) == sorted(
        written.html.parent / f"{stem}.{ext}" for stem in names for ext in ("png", "svg")
    )
    for stem in names:
        png = written.html.parent / f"{stem}.png"
        svg = written.html.parent / f"{stem}.svg"
        assert png.read_bytes().startswith(b"\x89PNG"), png
        assert b"<svg" in svg.read_bytes()[:2000], svg


@pytest.mark.parametrize("name", [*RECORDED, "empty"])
def test_the_page_is_well_formed_and_every_image_is_embedded(
    rendered: dict[str, Written], name: str
) -> None:
    parser = PageParser()
    parser.feed(rendered[name].html.read_text(encoding="utf-8"))
    parser.close()
    assert parser.errors == [] and parser.stack == []
    assert len(parser.images) == CHART_COUNT
    for image in parser.images:
        src = image.get("src") or ""
        assert src.startswith("data:image/png;base64,"), src[:40]
        assert base64.b64decode(src.partition(",")[2]).startswith(b"\x89PNG")
        assert image.get("alt")
    text = " ".join(parser.text)
    for claim in range(1, 10):
        assert f"C{claim}" in text
    # No external resource: the page opens offline.
    page = rendered[name].html.read_text(encoding="utf-8")
    assert "http://" not in page and "https://" not in page and 'src="/' not in page


def test_runs_that_did_not_count_are_listed_once_with_their_reason(
    rendered: dict[str, Written],
) -> None:
    document = load("report-failures.json")
    bad = [r for r in document["runs"] if r["kind"] == "measured" and r["status"] != "ok"]
    assert {r["status"] for r in bad} >= {"failed-verification", "crashed", "timeout", "limit"}
    written = rendered["report-failures.json"]
    for page, shown in ((written.markdown, str), (written.html, html.escape)):
        text = page.read_text(encoding="utf-8")
        for run in bad:
            assert text.count(run["id"]) == 1, run["id"]
            assert shown(run["reason"] or "") in text
    # The chart they belong to counts them and points to the list.
    markdown = written.markdown.read_text(encoding="utf-8")
    assert "Crossed: 2 runs that did not count (listed under Runs that did not count)." in markdown


def test_missing_scenarios_are_named_not_hidden(rendered: dict[str, Written]) -> None:
    markdown = rendered["report-partial.json"].markdown.read_text(encoding="utf-8")
    assert (
        "Scenarios that did not run: noise-floor, few-active-keep-alive, sleepy, "
        "sleepy-keep-alive, latency-sweep, realistic, instructions." in markdown
    )
    assert "Not measured: sleepy did not run." in markdown
    assert "server-error" in markdown
    assert "not measured" in markdown


def test_the_markdown_links_every_chart(rendered: dict[str, Written]) -> None:
    written = rendered["report-failures.json"]
    markdown = written.markdown.read_text(encoding="utf-8")
    for chart in chart_names(written):
        assert f"({chart}.png)" in markdown and f"({chart}.svg)" in markdown


def test_cli_writes_beside_the_results_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results.json"
    results.write_text(json.dumps(empty_document()), encoding="utf-8")
    assert cli.main([str(results)]) == 0
    assert (tmp_path / "index.html").is_file() and (tmp_path / "report.md").is_file()
    assert str(tmp_path / "index.html") in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no results file at"),
        ("{not json", "is not readable JSON"),
        (json.dumps({"schema": "other/1"}), "is not a c10k-bench-results/3 results file"),
        (json.dumps([1, 2]), "is not a c10k-bench-results/3 results file"),
        (json.dumps({"schema": SCHEMA, "runs": {}}), "has no runs list"),
        (json.dumps({"schema": SCHEMA, "runs": []}), "has no derived section"),
    ],
)
def test_cli_refuses_a_missing_or_invalid_file_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, message: str
) -> None:
    results = tmp_path / "results.json"
    if content is not None:
        results.write_text(content, encoding="utf-8")
    assert cli.main([str(results), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("c10k report: error: ") and message in err
    assert err.count("\n") == 1
    assert not (tmp_path / "out").exists()
