"""The sleepy highlights read the C10K point: the largest C at its longest latency."""

from __future__ import annotations

from typing import Any

from bench.analysis.highlights import sleepy_highlights
from tests.recorded import latency, quantity


def point(at: str, seconds: float, fraction: float) -> dict[str, Any]:
    return {
        "concurrency": 10_000,
        "latency": latency(at),
        "fraction_of_ideal": quantity(fraction, [fraction - 0.01, fraction + 0.01], "share"),
        "latency_p50_s": quantity(seconds, unit="s"),
        "latency_p99_s": quantity(seconds, unit="s"),
        "server_peak_in_flight": 10_000,
    }


def test_the_largest_concurrency_is_read_at_its_longest_latency_only() -> None:
    derived = {
        "sleepy-keep-alive": {
            # Both latencies at C 10,000: the 10 s point is the one judged.
            "asyncio": {"points": [point("2s", 2.0, 0.50), point("10s", 10.0, 0.80)]},
            "threads": {"points": [point("10s", 10.0, 0.40), point("2s", 2.0, 0.05)]},
            # The CPU-bound view only: not a model missing from the judged point.
            "aiohttp": {"points": [point("2s", 2.0, 0.30)]},
        }
    }
    found = sleepy_highlights(derived, "sleepy-keep-alive")
    assert found["judged_latency"] == latency("10s")
    assert found["latencies"] == [latency("10s"), latency("2s")]
    shares = found["percent_of_ideal"]
    assert shares is not None
    assert {m: q.value for m, q in shares["values"].items()} == {"asyncio": 80.0, "threads": 40.0}
    assert shares["values"]["asyncio"].unit == "percent"
    assert found["no_verified_run_at_largest"] == []
    assert found["latency_p50_ms"] is not None
    p50 = {m: q.value for m, q in found["latency_p50_ms"]["values"].items()}
    assert p50 == {"asyncio": 10_000.0, "threads": 10_000.0}


def test_a_model_without_a_verified_run_at_the_judged_point_is_named() -> None:
    missing = point("10s", 10.0, 0.0) | {"fraction_of_ideal": None}
    derived = {
        "sleepy": {
            "asyncio": {"points": [point("10s", 10.0, 0.80)]},
            "threads": {"points": [missing]},
        }
    }
    found = sleepy_highlights(derived, "sleepy")
    assert found["no_verified_run_at_largest"] == ["threads"]
