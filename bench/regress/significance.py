"""The Mann-Whitney U test (exact for small samples): do two runs of a figure differ?"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

EXACT_LIMIT = 50  # exact U distribution up to this many samples in all, without ties


@dataclass(frozen=True)
class MannWhitney:
    """U of the first sample and the two-sided p-value; method says how p was computed."""

    u: float
    p_value: float
    method: str  # "exact" or "normal"


def average_ranks(values: Sequence[float]) -> list[float]:
    """Ranks from 1, ties given the mean of the ranks they span."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in range(start, end + 1):
            ranks[order[position]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


@cache
def u_counts(m: int, n: int) -> tuple[int, ...]:
    """How many of the C(m+n, m) orderings give U = 0, 1, ..., m*n (no ties)."""
    if m == 0 or n == 0:
        return (1,)
    # The largest value belongs to the first sample (adding n to U) or to the second.
    with_first = u_counts(m - 1, n)
    with_second = u_counts(m, n - 1)
    counts = [0] * (m * n + 1)
    for u, ways in enumerate(with_first):
        counts[u + n] += ways
    for u, ways in enumerate(with_second):
        counts[u] += ways
    return tuple(counts)


def mann_whitney_u(xs: Sequence[float], ys: Sequence[float]) -> MannWhitney:
    """Two-sided Mann-Whitney U test of xs against ys: the exact p-value with no ties and few
    samples, else the normal approximation with tie and continuity corrections."""
    m, n = len(xs), len(ys)
    if m == 0 or n == 0:
        raise ValueError("the Mann-Whitney U test needs at least one value on each side")
    ranks = average_ranks([*xs, *ys])
    u = sum(ranks[:m]) - m * (m + 1) / 2
    has_ties = len(set(ranks)) < len(ranks)
    if not has_ties and m + n <= EXACT_LIMIT:
        counts = u_counts(m, n)
        total = math.comb(m + n, m)
        low = sum(counts[: int(u) + 1]) / total
        high = sum(counts[int(u) :]) / total
        return MannWhitney(u, min(1.0, 2 * min(low, high)), "exact")
    total_n = m + n
    tie_sizes: dict[float, int] = {}
    for rank in ranks:
        tie_sizes[rank] = tie_sizes.get(rank, 0) + 1
    tie_term = sum(t**3 - t for t in tie_sizes.values()) / (total_n * (total_n - 1))
    variance = m * n / 12 * ((total_n + 1) - tie_term)
    if variance == 0:  # every value equal: nothing tells the samples apart
        return MannWhitney(u, 1.0, "normal")
    z = (abs(u - m * n / 2) - 0.5) / math.sqrt(variance)
    p_value = math.erfc(max(z, 0.0) / math.sqrt(2))
    return MannWhitney(u, min(1.0, p_value), "normal")
