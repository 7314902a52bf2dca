"""The committed sample re-derived draws the report it drew before its figures were typed: the
text of report.md and of README's block, kept as they were rendered from the /2 sample."""

from __future__ import annotations

import functools
from pathlib import Path

from bench.report import readme, sources
from bench.report.charts import draw_all
from bench.report.page import markdown
from bench.report.verdicts import rulings

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


@functools.cache
def _found() -> sources.Sources:
    return sources.collect(sources.sample(ROOT), ROOT)


def test_the_sample_draws_the_report_it_drew_as_v2() -> None:
    found = _found()
    page = markdown(found, draw_all(found.document, rulings(found)))
    assert page == (DATA / "sample-report-v2.md").read_text(encoding="utf-8")


def test_the_sample_gives_the_readme_block_it_gave_as_v2() -> None:
    at = readme.place(ROOT / "README.md", ROOT / sources.SAMPLE_DIR)
    block = readme.block_text(_found(), at)
    assert block == (DATA / "sample-readme-block-v2.md").read_text(encoding="utf-8")
