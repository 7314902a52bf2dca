"""README.md's generated block: it is what the committed sample gives, and it is rewritten
between its markers only; the README opens with the two commands a new user runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.report import readme, sources

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
COMMANDS = (
    "python3 -m venv .venv && .venv/bin/pip install -q tox && .venv/bin/tox -e bench",
    "python3 -m venv .venv && .venv/bin/pip install -q tox && .venv/bin/tox -e test",
)


def test_the_block_is_what_the_committed_sample_gives() -> None:
    found = sources.collect(sources.sample(ROOT), ROOT)
    expected = readme.block_text(found, readme.place(README, ROOT / sources.SAMPLE_DIR))
    assert readme.current(README.read_text(encoding="utf-8")) == expected, (
        "README.md's generated block differs from the committed sample: run `tox -e sample`"
    )


def test_the_readme_opens_with_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    first_code = text.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert [line.split("   #")[0].rstrip() for line in first_code] == list(COMMANDS)
    tox = (ROOT / "tox.ini").read_text(encoding="utf-8")
    for env in ("bench", "test", "sample"):
        assert f"[testenv:{env}]" in tox


def test_the_block_is_replaced_between_its_markers_only() -> None:
    text = f"before\n{readme.BEGIN}\nold\n{readme.END}\nafter\n"
    updated = readme.rewrite(text, "new")
    assert updated == f"before\n{readme.BEGIN}\nnew\n{readme.END}\nafter\n"
    assert readme.rewrite(updated, "new") == updated
    assert readme.current(updated) == "new"


@pytest.mark.parametrize(
    "text",
    [
        "no markers",
        f"{readme.END}\n{readme.BEGIN}\n",
        f"{readme.BEGIN}\n{readme.BEGIN}\n{readme.END}",
    ],
)
def test_a_readme_without_one_pair_of_markers_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="the README has no block between"):
        readme.rewrite(text, "new")


def test_links_lead_from_the_readme_into_the_report() -> None:
    at = readme.place(ROOT / "README.md", ROOT / "reports")
    assert (at.page, at.images) == ("reports/report.md", "reports/")
    assert at.href("#c1") == "reports/report.md#c1"
    assert at.href("headline.png") == "reports/headline.png"
    beside = readme.place(ROOT / "reports" / "README.md", ROOT / "reports")
    assert beside.href("#c1") == "report.md#c1"


def test_the_models_table_lists_every_model_of_the_catalog() -> None:
    from c10k.catalog import MODELS, PEERS

    table = readme.models_table()
    assert [row[0] for row in table.rows] == [f"`{m}`" for m in MODELS] + [
        f"`{p}` (peer)" for p in PEERS
    ]
