"""The stopping rule of paired rounds: when a comparison stops, and that stopping is sound."""

from __future__ import annotations

import math
import random

import pytest

from c10k import stats
from c10k.quantity import Interval
from c10k.sequential import LOOKS, decides, is_precise, judge, look_at, look_confidence, stopped


def test_each_look_spends_an_equal_share_of_the_five_percent() -> None:
    assert look_confidence((3, 5, 8, 12)) == pytest.approx(1 - 0.05 / 4)
    assert look_confidence((10,)) == pytest.approx(0.95)


@pytest.mark.parametrize(
    ("interval", "bounds", "expected"),
    [
        (Interval(0.80, 0.90), (0.5, 0.95), True),  # inside the band
        (Interval(0.96, 1.10), (0.5, 0.95), True),  # above both bounds
        (Interval(0.90, 0.97), (0.5, 0.95), False),  # straddles 0.95
        (Interval(0.80, 0.95), (0.5, 0.95), False),  # a bound on the edge decides nothing
        (None, (1.0,), False),  # one round: no interval
    ],
)
def test_an_interval_decides_when_no_bound_lies_inside(
    interval: Interval | None, bounds: tuple[float, ...], expected: bool
) -> None:
    assert decides(interval, bounds) is expected


def test_precise_means_both_ends_within_five_percent_of_the_value() -> None:
    assert is_precise(1.0, Interval(0.96, 1.04))
    assert not is_precise(1.0, Interval(0.94, 1.04))
    assert not is_precise(1.0, None)


def test_a_clear_difference_stops_at_the_first_look() -> None:
    rounds = [math.log(x) for x in (0.80, 0.82, 0.81)]
    found = judge(rounds, (0.5, 0.95))
    assert found is not None and found.rounds == 3 and found.decided
    assert stopped(rounds, (0.5, 0.95))


def test_a_ratio_at_the_bound_runs_to_the_cap_and_stays_undecided() -> None:
    rng = random.Random(7)
    rounds = [math.log(0.95) + rng.gauss(0, 0.03) for _ in range(LOOKS[-1])]
    for n in range(1, LOOKS[-1]):
        found = judge(rounds[:n], (0.5, 0.95))
        assert found is None or not found.decided or found.rounds < n
    found = judge(rounds, (0.5, 0.95))
    assert found is not None
    assert stopped(rounds, (0.5, 0.95))


def test_rounds_between_looks_are_not_judged_until_the_next_look() -> None:
    rounds = [math.log(x) for x in (0.90, 0.96, 0.93, 0.91)]  # 4 rounds: judged at 3 only
    found = judge(rounds, (0.5, 0.95))
    assert found is not None and found.rounds == 3


def test_fewer_rounds_than_the_first_look_are_not_judged() -> None:
    assert judge([0.0, 0.1], (1.0,)) is None
    assert not stopped([0.0, 0.1], (1.0,))


def test_a_cap_reached_with_noisy_rounds_takes_its_last_look_at_the_ratios_there_are() -> None:
    rounds = [0.15, 0.3, 0.9, 0.35, 0.35, 0.4]  # 6 quiet rounds when the cap's 12 had run
    before = judge(rounds, (1.0,))
    assert before is not None and before.rounds == 5 and not before.decided
    assert not stopped(rounds, (1.0,))
    found = judge(rounds, (1.0,), at_cap=True)
    assert found is not None and found.rounds == 6 and found.decided
    assert stopped(rounds, (1.0,), at_cap=True)


def test_the_last_look_at_the_cap_adds_no_look_where_one_was_due_or_too_early() -> None:
    at_a_look = [0.1, 0.3, 0.9, 0.3, 0.35, 0.4, 0.45, 0.2]  # 8 ratios: the look at 8
    assert judge(at_a_look, (1.0,), at_cap=True) == judge(at_a_look, (1.0,))
    assert judge([0.1, 0.9], (1.0,), at_cap=True) is None  # before the first look: none
    undecided = [0.5, -0.5, 0.4, -0.3, 0.2, 0.1, -0.2]
    found = judge(undecided, (1.0,), at_cap=True)
    assert found is not None and found.rounds == 7 and not found.decided


def test_the_look_interval_is_the_paired_t_interval_on_the_log_scale() -> None:
    logs = [math.log(x) for x in (1.2, 1.3, 1.25)]
    found = look_at(logs, (2.0,))
    centre = sum(logs) / 3
    assert found.value == pytest.approx(math.exp(centre))
    assert found.interval is not None
    assert found.interval.low < found.value < found.interval.high


def _verdict_is_wrong(truth: float, rng: random.Random, bounds: tuple[float, ...]) -> bool:
    """One simulated comparison: rounds until judge() stops; is its interval a miss?"""
    rounds: list[float] = []
    while not stopped(rounds, bounds):
        rounds.append(math.log(truth) + rng.gauss(0, 0.08))
    found = judge(rounds, bounds)
    assert found is not None and found.interval is not None
    return not found.interval.low <= truth <= found.interval.high


def test_stopping_as_soon_as_an_interval_decides_keeps_the_miss_rate_under_five_percent() -> None:
    # The truth sits just outside a bound, where peeking would hurt most: a naive 95% interval
    # checked at every look misses more often than 5%; the rule's intervals do not.
    rng = random.Random(20261126)
    trials = 2000
    misses = sum(_verdict_is_wrong(0.97, rng, (0.5, 0.95)) for _ in range(trials))
    assert misses / trials <= 0.05


def _verdict_at_a_noisy_cap_is_wrong(truth: float, rng: random.Random) -> bool:
    """One comparison whose rounds are noisy (no ratio) half the time, up to the cap's rounds:
    judged as the run loop and derive do; is the interval it ends with a miss?"""
    bounds = (0.5, 0.95)
    ratios: list[float] = []
    for ran in range(1, LOOKS[-1] + 1):
        if rng.random() < 0.5:
            ratios.append(math.log(truth) + rng.gauss(0, 0.08))
        if stopped(ratios, bounds, at_cap=ran == LOOKS[-1]):
            break
    found = judge(ratios, bounds, at_cap=True)
    return (
        found is not None
        and found.interval is not None
        and not (found.interval.low <= truth <= found.interval.high)
    )


def test_a_last_look_at_a_noisy_cap_keeps_the_miss_rate_under_five_percent() -> None:
    # Half the rounds give no ratio, so the cap comes between looks. A 95% interval after
    # every ratio misses about 12% of the time here; the rule's at most four looks do not.
    rng = random.Random(20261128)
    trials = 2000
    misses = sum(_verdict_at_a_noisy_cap_is_wrong(0.97, rng) for _ in range(trials))
    assert misses / trials <= 0.05


def test_judging_again_finds_no_t_quantile_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each look's t factor is found once (a bisection), not at every judgement of every look."""
    found: list[tuple[float, float]] = []
    real = stats.t_quantile

    def counted(p: float, df: float) -> float:
        found.append((p, df))
        return real(p, df)

    monkeypatch.setattr(stats, "t_quantile", counted)
    for _ in range(3):
        judge([0.1, -0.2, 0.05, 0.3, 0.0, 0.1, -0.1, 0.2], (1.0,))
    assert len(found) == len(set(found))
