"""Hand-made runs (plain JSON, as results.json holds them) through the typed analysis."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from bench.analysis import derive as analysis
from bench.results import Environment, Run

# What every record holds as the harness writes it, where a hand-made run leaves it out.
RECORD_DEFAULTS: dict[str, Any] = {"block": None, "again": 0, "noisy": False}


def runs_of(found: Sequence[Mapping[str, Any]]) -> list[Run]:
    """Hand-made run records as the typed runs of a results document (the fields a test
    does not care about as a run outside any paired round has them)."""
    return cast(list[Run], [RECORD_DEFAULTS | dict(run) for run in found])


def derive(
    runs: Sequence[Mapping[str, Any]],
    fit_min: Mapping[str, int],
    environment: Mapping[str, Any] | None = None,
) -> Any:
    """bench.analysis.derive.derive of hand-made runs, the figures read back as JSON."""
    return analysis.derive(runs_of(runs), fit_min, cast(Environment | None, environment))


def crawl_record(
    scenario: str,
    model: str,
    concurrency: int,
    site: Mapping[str, Any],
    crawl: Mapping[str, Any],
    kind: str = "measured",
    rep: int = 0,
    waves: int = 0,
) -> dict[str, Any]:
    """A crawl run as the harness records it, reduced to what derive reads: its point (the
    site served, over `site`'s changes to a wide one, at this concurrency), its crawl
    document's figures, a server that was not saturated and a peak in flight at the
    concurrency."""
    return {
        "id": f"{scenario}/{model}/c{concurrency}/s{waves}/{kind}{rep}",
        "scenario": scenario,
        "model": model,
        "kind": kind,
        "repetition": rep,
        "status": "ok",
        "reason": None,
        **RECORD_DEFAULTS,
        "params": {
            "concurrency": concurrency,
            "processes": 1,
            "server": {"shape": "wide", "preset": None, "root_latency": True, **site},
        },
        "crawl": dict(crawl),
        "server": {"saturated": False},
        "verification": {"server_peak_in_flight": concurrency},
    }
