"""Values whose 95% intervals overlap are tied within noise: never ranked highest and lowest."""

from __future__ import annotations

import pytest

from c10k.quantity import Interval
from c10k.words import Entry, names, overlaps, standing
from c10k.words import ranking as words


def entry(name: str, value: float, low: float | None = None, high: float | None = None) -> Entry:
    return Entry(name, value, None if low is None or high is None else Interval(low, high))


def shown(found: Entry) -> str:
    if found.interval is None:
        return f"{found.value:g}"
    return f"{found.value:g} [{found.interval.low:g}, {found.interval.high:g}]"


@pytest.mark.parametrize(
    ("a", "b", "tied"),
    [
        (entry("a", 10, 8, 12), entry("b", 11, 9, 13), True),  # overlapping intervals
        (entry("a", 10, 8, 12), entry("b", 12, 12, 14), True),  # touching at one point
        (entry("a", 10, 8, 12), entry("b", 15, 13, 17), False),  # apart
        (entry("a", 10), entry("b", 11, 9, 13), True),  # one run, inside the other's interval
        (entry("a", 10), entry("b", 15, 13, 17), False),  # one run, outside it
        (entry("a", 10), entry("b", 10), True),  # two single runs: tied only when equal
        (entry("a", 10), entry("b", 10.5), False),
    ],
)
def test_overlapping_intervals_are_tied(a: Entry, b: Entry, tied: bool) -> None:
    assert overlaps(a, b) is tied and overlaps(b, a) is tied


def test_a_median_outside_its_interval_still_counts_as_a_point_of_it() -> None:
    assert overlaps(entry("a", 20, 8, 12), entry("b", 19, 18, 19.5))


def test_the_leaders_are_the_best_and_every_value_tied_with_it() -> None:
    found = standing(
        [entry("a", 100, 90, 110), entry("b", 95, 85, 105), entry("c", 50, 45, 55)],
        higher_is_better=True,
    )
    assert [e.name for e in found.leaders] == ["a", "b"]
    assert [e.name for e in found.trailers] == ["c"]
    assert found.apart and not found.all_tied


def test_lower_is_better_ranks_the_smallest_first() -> None:
    found = standing([entry("a", 5, 4, 6), entry("b", 50, 45, 55)], higher_is_better=False)
    assert [e.name for e in found.leaders] == ["a"] and [e.name for e in found.trailers] == ["b"]


def test_all_tied_is_said_so_and_nothing_is_ranked() -> None:
    text = words(
        [entry("a", 3203, 1403, 5501), entry("b", 3074, 1398, 4167), entry("c", 1663, 1286, 2018)],
        True,
        shown,
        "pages/s",
    )
    assert text == "all 3 tied within noise (medians 1663 to 3203 pages/s)"


def test_apart_values_are_ranked_with_their_ties_named() -> None:
    text = words(
        [
            entry("callbacks", 48, 47, 49),
            entry("generators", 37, 35, 40),
            entry("asyncio", 23, 20, 28),
            entry("aiohttp", 20, 17, 22),
        ],
        True,
        shown,
        "%",
    )
    assert text == (
        "highest: callbacks 48 [47, 49]%; lowest: aiohttp 20 [17, 22]%, tied within noise with "
        "asyncio (2.40x apart)"
    )


def test_a_worst_tied_with_the_best_is_among_the_leaders() -> None:
    # c overlaps a (the best) but not b: the trailers are those tied with the worst only.
    found = standing(
        [entry("a", 100, 60, 140), entry("b", 99, 98, 100), entry("c", 61, 59, 62)], True
    )
    assert {e.name for e in found.leaders} == {"a", "b", "c"}
    assert found.all_tied


def test_single_runs_rank_by_value_alone() -> None:
    text = words([entry("a", 66), entry("b", 5)], True, shown, "%")
    assert text == "highest: a 66%; lowest: b 5% (13.20x apart)"


def test_one_value_and_none() -> None:
    assert words([entry("a", 1.5, 1, 2)], True, shown, "x") == "a 1.5 [1, 2] x"
    assert words([], True, shown, "x") == ""


def test_names_are_joined_as_a_sentence() -> None:
    assert names([entry("a", 1)]) == "a"
    assert names([entry("a", 1), entry("b", 2)]) == "a and b"
    assert names([entry("a", 1), entry("b", 2), entry("c", 3)]) == "a, b and c"
