"""C8: the free-threaded build over the GIL build of the same version, from crafted results
documents (paired by round, a missing round, the GIL re-enabled), and its verdict."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from bench.harness.runtimes import compare_runtimes, runtime_outcome
from bench.report import verdicts as v
from bench.report.runtimes import runtimes_markdown
from bench.results import IdleEntry, Results
from tests.recorded import latency, quantity

HEAVY, FEW = "many-links-keep-alive", "few-active"


def point(concurrency: int, pages_per_s: list[float], cpu: list[float]) -> dict[str, Any]:
    """A derived point with its per-round figures (round k at index k; None: no such round)."""
    rounds = [
        {"round": k, "pages_per_s": rate, "cpu_us_per_page": us}
        for k, (rate, us) in enumerate(zip(pages_per_s, cpu, strict=True))
        if rate is not None
    ]
    return {
        "concurrency": concurrency,
        "latency": latency("0"),
        "pages_per_s": quantity(sorted(r["pages_per_s"] for r in rounds)[len(rounds) // 2]),
        "cpu_us_per_page": quantity(cpu[0], unit="us/page"),
        "rounds": rounds,
    }


def results(
    rates: dict[int, list[float]],
    cpu: float,
    idle_bytes: float,
    gil_enabled: bool | None = False,
) -> dict[str, Any]:
    """A results document: threads in both C8 scenarios at the given points (pages/s per
    round, CPU per page), the idle thread, and one crawl run per round and point whose
    crawl JSON says whether the GIL was on at its end."""
    points = [point(c, r, [cpu] * len(r)) for c, r in rates.items()]
    runs = [
        {
            "id": f"{scenario}/threads/c{c}/s0/measured{k}",
            "scenario": scenario,
            "model": "threads",
            "status": "ok",
            "crawl": {"python": {"gil_enabled": gil_enabled}},
        }
        for scenario in (FEW, HEAVY)
        for c, r in rates.items()
        for k in range(len(r))
    ]
    return {
        "status": "complete",
        "profile": {"models": ["threads"], "scenarios": ["idle", FEW, HEAVY]},
        "runs": runs,
        "derived": {
            FEW: {"threads": {"points": points}},
            HEAVY: {"threads": {"points": points}},
            "idle": {"thread": IdleEntry(total_bytes_per_unit=quantity(idle_bytes, unit="bytes"))},
        },
    }


def runtime(tag: str, version: str = "3.14.7") -> dict[str, Any]:
    return {
        "tag": tag,
        "version": version,
        "gil_disabled": tag.endswith("t"),
        "executable": f"/venv/{tag}/python",
        "dependencies": {},
        "unavailable_models": {},
    }


GIL_RATES = {2: [1000.0, 1010.0, 990.0], 8: [2000.0, 2020.0, 1980.0]}


def side_by_side(
    free_rates: dict[int, list[float]],
    gil_enabled: bool | None = False,
    free_version: str = "3.14.7",
) -> dict[str, Any]:
    outcomes = [
        runtime_outcome(
            runtime("3.14"), Path("/o/3.14"), cast(Results, results(GIL_RATES, 800.0, 9e4)), None
        ),
        runtime_outcome(
            runtime("3.14t", free_version),
            Path("/o/3.14t"),
            cast(Results, results(free_rates, 1000.0, 1.1e5, gil_enabled)),
            None,
        ),
    ]
    return compare_runtimes(outcomes, ["3.14", "3.14t"])


def test_a_pair_gives_per_point_and_combined_ratios_paired_by_round() -> None:
    found = side_by_side({2: [1500.0, 1500.0, 1500.0], 8: [3000.0, 3030.0, 2970.0]})
    (pair,) = found["free_threading"]
    assert (pair["gil"], pair["free_threaded"], pair["version"]) == ("3.14", "3.14t", "3.14.7")
    heavy = pair["models"]["threads"][HEAVY]
    assert heavy["concurrencies"] == [2, 8]
    at_two = heavy["points"][0]
    # Round k over round k: 1500/1000, 1500/1010, 1500/990; their geometric mean.
    two = at_two["pages_per_s"]
    assert two.value == pytest.approx(1500 / (1000 * 1010 * 990) ** (1 / 3))
    assert two.n == 3 and two.interval.low < two.value < two.interval.high
    assert heavy["points"][1]["pages_per_s"].value == pytest.approx(1.5)  # every round 1.5x
    combined = heavy["pages_per_s"]
    assert combined.value == pytest.approx((two.value * 1.5) ** 0.5)
    assert heavy["cpu_us_per_page"].value == pytest.approx(1000 / 800)
    assert combined.interval.low < combined.value < combined.interval.high
    assert FEW in pair["models"]["threads"]
    assert pair["idle_thread_bytes"]["gil"]["value"] == 9e4
    assert pair["idle_thread_bytes"]["free_threaded"]["value"] == 1.1e5
    gil = pair["gil_at_end"][HEAVY]["threads"]
    assert (gil["crawls"], gil["gil_disabled"], gil["gil_enabled"]) == (6, 6, [])
    assert all("points" not in r for r in found["runtimes"])  # internal, not written


def test_a_missing_round_pairs_only_the_rounds_both_have() -> None:
    found = side_by_side({2: [1500.0, None, 1500.0], 8: [3000.0, 3030.0, 2970.0]})  # type: ignore[list-item]
    at_two = found["free_threading"][0]["models"]["threads"][HEAVY]["points"][0]
    assert at_two["pages_per_s"].n == 2
    assert at_two["pages_per_s"].value == pytest.approx(1500 / (1000 * 990) ** 0.5)


def test_no_pair_unless_the_same_version_differs_in_the_gil() -> None:
    assert side_by_side({2: [1500.0] * 3}, free_version="3.14.6")["free_threading"] == []
    verdict = v.RULES["C8"].judge(side_by_side({2: [1500.0] * 3}, free_version="3.14.6"))
    assert verdict.verdict == v.NOT_MEASURED
    assert verdict.missing == "a free-threaded build beside the GIL build of its version"


@pytest.mark.parametrize(
    ("free_rates", "gil_enabled", "expected"),
    [
        ({2: [1500.0, 1510.0, 1490.0], 8: [3000.0, 3030.0, 2970.0]}, False, v.REPRODUCED),
        ({2: [1000.0, 1010.0, 990.0], 8: [2000.0, 2020.0, 1980.0]}, False, v.CONTRADICTED),
        ({2: [900.0, 1100.0, 1300.0], 8: [1800.0, 2200.0, 2600.0]}, False, v.INCONCLUSIVE),
        ({2: [1500.0, 1510.0, 1490.0], 8: [3000.0, 3030.0, 2970.0]}, True, v.NOT_MEASURED),
        ({2: [1500.0, 1510.0, 1490.0], 8: [3000.0, 3030.0, 2970.0]}, None, v.NOT_MEASURED),
    ],
    ids=["reproduced", "contradicted", "inconclusive", "gil-re-enabled", "gil-not-reported"],
)
def test_the_c8_verdict_for_each_outcome(
    free_rates: dict[int, list[float]], gil_enabled: bool | None, expected: str
) -> None:
    found = side_by_side(free_rates, gil_enabled)
    verdict = v.RULES["C8"].judge(found)
    assert verdict.verdict == expected, verdict
    assert verdict.claim == "C8"
    assert "threads on 3.14t over 3.14" in "; ".join(verdict.conditions)
    if gil_enabled is not False:
        assert "the GIL was enabled at the end of" in verdict.missing
    markdown = runtimes_markdown(found)
    assert "## C8" in markdown and expected in markdown
    assert "idle thread" in markdown
