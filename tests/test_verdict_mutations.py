"""Every rule on the committed sample, mutated: a figure it needs taken away, its judged figure
moved across each bound of its band, its interval widened or dropped."""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, is_dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.report import sources
from bench.report import verdicts as v
from bench.report.sources import C100K, FREE_THREADING, MAIN, Sources
from bench.report.verdicts.base import CLAIMS
from c10k.quantity import Interval
from c10k.words import KIB

ROOT = Path(__file__).resolve().parent.parent
Path_ = tuple[str | int, ...]


@dataclass(frozen=True)
class Judged:
    """Where a claim's judged figure lies in the document of its role, and its band's bounds
    with the outcome just below and just above each, as the rule's text says."""

    claim: str
    role: str
    value: Path_
    edges: tuple[tuple[float, str, str], ...]
    counted: bool = False  # a count: no interval


R, C, WITHIN_NOISE = v.REPRODUCED, v.CONTRADICTED, v.INCONCLUSIVE
COMPARISONS = ("derived", "comparisons")
JUDGED = {
    j.claim: j
    for j in (
        Judged("C1", MAIN, ("derived", "idle", "thread", "total_bytes_per_unit"),
               ((25 * KIB, C, R), (100 * KIB, R, C))),
        # The costliest stackless kind in the sample; the others lie well inside.
        Judged("C2", MAIN, ("derived", "idle", "trio-task", "total_bytes_per_unit"),
               ((6 * KIB, R, C),)),
        Judged("C3", MAIN, ("derived", "idle", "thread", "max_threads", "count"),
               ((100_000, R, C),), counted=True),
        # The slowest kind in the sample; the others start far faster.
        Judged("C4", MAIN, ("derived", "idle", "greenlet", "start_rate_per_s"),
               ((10_000, C, R),)),
        # Against the connections held at once in the sample's c100k run (60,000).
        Judged("C5", C100K, ("derived", "idle", "thread", "max_threads_machine", "count"),
               ((60_000, R, v.NOT_MEASURED),), counted=True),
        Judged("C6", MAIN, (*COMPARISONS, "event_loop_vs_threads", "median_pages_per_s"),
               ((0.5, C, R), (0.95, R, C))),
        Judged("C7", MAIN,
               (*COMPARISONS, "asyncio_vs_threads_sleepy_keep_alive", "asyncio_over_threads"),
               ((1.0, C, R),)),
        Judged("C8", FREE_THREADING,
               ("free_threading", 0, "models", "threads", "many-links-keep-alive", "pages_per_s"),
               ((1.05, C, R),)),
        Judged("C9", MAIN, (*COMPARISONS, "uvloop", "pairs", 0, "cpu_per_page_speedup"),
               ((2.0, C, R),)),
    )
}  # fmt: skip
INTERVAL_CLAIMS = [c for c, j in JUDGED.items() if not j.counted]


@functools.cache
def _sample() -> Sources:
    return sources.collect(sources.sample(ROOT), ROOT)


def _fresh() -> Sources:
    """The committed sample's sources, each document a copy of its own (runs left out: no
    rule reads them)."""
    found = _sample()

    def slim(source: sources.Source | None) -> sources.Source | None:
        if source is None:
            return None
        if source.runtimes is not None:
            return replace(source, runtimes=copy.deepcopy(source.runtimes))
        kept = {k: value for k, value in source.document.items() if k != "runs"}
        return replace(source, results=copy.deepcopy(kept))  # type: ignore[arg-type]

    return Sources(slim(found.main), slim(found.c100k), slim(found.free_threading))


def _document(found: Sources, role: str) -> dict[str, Any]:
    source = {MAIN: found.main, C100K: found.c100k, FREE_THREADING: found.free_threading}[role]
    assert source is not None, f"the committed sample has no {role} file"
    held = source.runtimes if source.runtimes is not None else source.results
    return held  # type: ignore[return-value]


def _child(node: Any, key: str | int) -> Any:
    return getattr(node, str(key)) if is_dataclass(node) else node[key]


def _parent(document: Any, path: Path_) -> tuple[Any, str | int]:
    node = document
    for key in path[:-1]:
        node = _child(node, key)
    return node, path[-1]


def update(node: Any, path: Path_, change: Callable[[Any], Any]) -> Any:
    """node with the value at path changed; a typed value on the way (a frozen dataclass) is
    replaced by its changed copy."""
    key, rest = path[0], path[1:]
    new = update(_child(node, key), rest, change) if rest else change(_child(node, key))
    if is_dataclass(node):
        return replace(node, **{str(key): new})  # type: ignore[type-var]
    node[key] = new
    return node


def put(document: Any, path: Path_, value: Any) -> None:
    update(document, path, lambda _: value)


def take_away(document: Any, path: Path_) -> None:
    node, key = _parent(document, path)
    if isinstance(node, list):
        node.clear()
    elif is_dataclass(node):
        put(document, path, None)
    else:
        node.pop(key, None)


def judge(found: Sources, claim: str) -> v.Verdict:
    return next(r.verdict for r in v.rulings(found) if r.verdict.claim == claim)


def moved(claim: str, value: float, interval: tuple[float, float] | None) -> v.Verdict:
    """The claim's verdict with its judged figure set to value (and its interval)."""
    found, where = _fresh(), JUDGED[claim]
    document = _document(found, where.role)
    if where.counted:
        put(document, where.value, value)
    else:  # a quantity: its value and interval together
        bounds = None if interval is None else Interval(*interval)
        update(document, where.value, lambda q: replace(q, value=value, interval=bounds))
    return judge(found, claim)


def test_the_sample_gives_its_nine_verdicts() -> None:
    found = {r.verdict.claim: r.verdict.verdict for r in v.rulings(_sample())}
    assert found == {f"C{n}": R for n in range(1, 9)} | {"C9": C}


def _needs() -> Iterator[tuple[str, v.Need]]:
    for claim, rule in v.RULES.items():
        for need in rule.needs:
            yield claim, need


@pytest.mark.parametrize(("claim", "need"), list(_needs()), ids=lambda x: getattr(x, "words", x))
def test_a_figure_taken_away_is_not_measured_and_named(claim: str, need: v.Need) -> None:
    found = _fresh()
    role = JUDGED[claim].role
    take_away(_document(found, role), need.path)
    verdict = judge(found, claim)
    assert verdict.verdict == v.NOT_MEASURED, verdict
    assert verdict.missing == need.words and need.words in verdict.figure


@pytest.mark.parametrize(("claim", "role"), [("C5", "c100k"), ("C8", "free_threading")])
def test_a_claim_without_its_own_run_is_not_measured_and_names_the_run(
    claim: str, role: str
) -> None:
    found = replace(_fresh(), **{role: None})
    verdict = judge(found, claim)
    assert verdict.verdict == v.NOT_MEASURED
    assert verdict.missing == sources.ROLE_WORDS[JUDGED[claim].role]


def test_every_rule_declares_what_it_needs() -> None:
    assert set(v.RULES) == set(CLAIMS) == set(JUDGED)
    assert all(rule.needs for rule in v.RULES.values())


EDGES = [
    (claim, bound, below, above) for claim, j in JUDGED.items() for bound, below, above in j.edges
]


@pytest.mark.parametrize(("claim", "bound", "below", "above"), EDGES)
def test_a_figure_just_inside_or_outside_a_bound_flips_the_verdict(
    claim: str, bound: float, below: str, above: str
) -> None:
    if JUDGED[claim].counted:
        just_below, just_above = bound - 1, bound
    else:
        just_below, just_above = bound * 0.999, bound * 1.001
    for value, expected in ((just_below, below), (just_above, above)):
        tight = (value * 0.9999, value * 1.0001)
        assert moved(claim, value, tight).verdict == expected, (value, expected)


@pytest.mark.parametrize(
    ("claim", "bound"), [(c, b) for c, b, _, _ in EDGES if not JUDGED[c].counted]
)
def test_an_interval_across_a_bound_is_inconclusive(claim: str, bound: float) -> None:
    assert moved(claim, bound, (bound * 0.9, bound * 1.1)).verdict == WITHIN_NOISE


@pytest.mark.parametrize("claim", INTERVAL_CLAIMS)
def test_a_figure_without_an_interval_is_inconclusive_from_one_run(claim: str) -> None:
    bound, _, above = JUDGED[claim].edges[0]
    value = bound * 1.5 if above == R else bound / 1.5
    verdict = moved(claim, value, None)
    assert verdict.verdict == v.FROM_ONE_RUN, verdict


def _inside(claim: str, x: float) -> bool:
    band = CLAIMS[claim].band
    assert band is not None
    below_top = x <= band.high if band.includes_high else x < band.high
    return band.low <= x and below_top


@settings(max_examples=60, deadline=None)
@given(
    claim=st.sampled_from(INTERVAL_CLAIMS),
    low=st.floats(0.2, 4.0),
    width=st.floats(0.0, 1.0),
)
def test_the_verdict_follows_the_interval_against_the_band(
    claim: str, low: float, width: float
) -> None:
    """Any interval on the scale of the band's bounds: inside reproduces, wholly outside
    contradicts, across a bound is inconclusive."""
    scale = JUDGED[claim].edges[0][0]
    interval = (low * scale, (low + width) * scale)
    inside = [_inside(claim, x) for x in interval]
    band = CLAIMS[claim].band
    assert band is not None
    crosses = any(interval[0] < b < interval[1] for b in (band.low, band.high))
    expected = (
        R if all(inside) and not crosses else C if not any(inside) and not crosses else WITHIN_NOISE
    )
    assert moved(claim, sum(interval) / 2, interval).verdict == expected


# -- C7's memory: asyncio against threads on the two fits' intervals ---------------------------


def _memory(model: str) -> Path_:
    return ("derived", "sleepy", model, "memory_per_connection", "total_bytes")


@pytest.mark.parametrize(
    ("asyncio", "expected"),
    [
        ((20 * KIB, 21 * KIB), R),  # apart, below the threads' 56.4-56.8 KiB
        ((50 * KIB, 57 * KIB), WITHIN_NOISE),  # overlapping
        ((60 * KIB, 61 * KIB), C),  # apart, above
        (None, v.FROM_ONE_RUN),  # a fit without an interval
    ],
)
def test_c7_judges_memory_on_the_two_fits_intervals(
    asyncio: tuple[float, float] | None, expected: str
) -> None:
    found = _fresh()
    bounds = None if asyncio is None else Interval(*asyncio)
    update(_document(found, MAIN), _memory("asyncio"), lambda q: replace(q, interval=bounds))
    assert judge(found, "C7").verdict == expected


def test_c5_from_one_process_is_not_judged() -> None:
    """The default run holds one process's thread ceiling, not the machine's: no verdict."""
    found = replace(_fresh(), c100k=None)
    assert judge(found, "C5").verdict == v.NOT_MEASURED
