"""The committed sample's report says what its data says: every sentence from the same fact as
its table (interval methods, round counts, judged and measured figures, counts, titles)."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from bench.report import sources
from bench.report.page import markdown
from bench.report.verdicts import rulings
from c10k import words
from c10k.quantity import FIT, MEDIAN_OF, PAIRED_ROUNDS, T_95

ROOT = Path(__file__).resolve().parent.parent
# Every way an interval is made, as the report names it (docs/intervals.md).
METHODS = re.compile(
    "|".join(
        re.escape(m.replace("{:.2%}", "LEVEL").replace("{}", "K"))
        .replace("LEVEL", r"[\d.]+%")
        .replace("K", r"\d+")
        for m in (FIT, T_95, PAIRED_ROUNDS, MEDIAN_OF)
    )
)


@functools.cache
def _found() -> sources.Sources:
    return sources.collect(sources.sample(ROOT), ROOT)


@functools.cache
def page() -> str:
    return markdown(_found())


def section(anchor: str) -> str:
    """The text of one section of the page, from its anchor to the next heading."""
    after = page().split(f'<a id="{anchor}"></a>', 1)[1]
    return re.split(r"\n#{2,3} ", after, maxsplit=1)[0]


def tables(text: str) -> list[list[list[str]]]:
    """Every Markdown table of a text: its rows (header first), each a list of cells."""
    found, current = [], []
    for line in text.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            current.append([c.strip() for c in line.strip("|").split(" | ")])
        elif not line.startswith("|---") and current:
            found.append(current)
            current = []
    return found + ([current] if current else [])


def test_every_judged_interval_names_the_method_that_made_it() -> None:
    for ruling in rulings(_found()):
        v = ruling.verdict
        if v.interval is not None:
            assert METHODS.search(v.figure), v.figure
            assert f"({v.method})" in section(v.claim.lower())
        # A rule never names a level of its own: the figure's method says it.
        assert not re.search(r"[\d.]+% interval", v.about.rule), v.about.rule


def test_a_comparisons_rounds_are_counted_at_its_own_points() -> None:
    for claim in ("C6", "C7", "C9"):
        text = section(claim.lower())
        looked = re.search(r"after (\d+) paired rounds?: (decided|precise|undecided)", text)
        ran = re.search(r"(\d+) paired rounds? ran at these points", text)
        assert looked and ran, claim
        assert int(looked[1]) <= int(ran[1]), (claim, looked[0], ran[0])


def test_the_c7_rounds_are_the_judged_points_not_the_scenarios() -> None:
    text = section("c7")
    assert "5 paired rounds ran at these points (1 noisy and run again)" in text
    assert "11 paired round" not in text


@pytest.mark.parametrize("claim", ["C2", "C4"])
def test_the_measured_line_names_the_judged_kind(claim: str) -> None:
    v = next(r.verdict for r in rulings(_found()) if r.verdict.claim == claim)
    kind = v.figure.split()[0]
    assert kind in words.line(v.measured), (v.figure, v.measured)


def test_c4_states_how_many_of_each_kind_were_started() -> None:
    text = section("c4")
    for kind, count in (("asyncio-task", "1,000,000"), ("greenlet", "200,000")):
        assert re.search(rf"{kind} {count} in [\d.]+ s", text), kind
    assert "200,000 greenlets started at" in text


def test_the_c100k_title_says_how_many_connections_its_table_held() -> None:
    text = section("c100k")
    title = page().split('<a id="c100k"></a>', 1)[1].splitlines()[0]
    held = max(int(row[1].replace(",", "")) for row in tables(text)[0][1:])
    assert f"{held:,} connections held" in title


def test_no_table_has_a_column_empty_in_every_row() -> None:
    for table in tables(page()):
        header, rows = table[0], table[1:]
        for n, name in enumerate(header):
            assert any(row[n] != "-" for row in rows if n < len(row)), (name, header)


def test_no_possessive_apostrophe_after_a_name_that_does_not_end_in_s() -> None:
    assert not re.search(r"[a-rt-z]': ", page()), re.search(r".{40}[a-rt-z]': .{20}", page())


def test_a_fit_without_a_point_says_so_with_the_counts_of_the_runs_table() -> None:
    """Threads' sleepy fit lacks C 10,000 (its runs there failed, in noisy rounds), gevent's
    too: the memory section names both, with the same quiet runs as the table of runs that
    did not count."""
    text = section("memory")
    assert "threads at C 10,000 (0 of 0 verified, 2 more ran in noisy rounds)" in text
    assert "gevent at C 10,000 (0 of 1 verified, 4 more ran in noisy rounds)" in text
    rows = {(r[0], r[1], r[2]): r for r in tables(section("not-counted"))[0][1:]}
    assert rows[("sleepy", "gevent", "C 10,000, L 2s")][3] == "0 of 1"
    assert rows[("sleepy", "threads", "C 10,000, L 2s")][3] == "0 of 0"
