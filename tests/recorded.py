"""Hand-made runs (plain JSON, as results.json holds them) through the typed analysis."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, cast

from bench.analysis import derive as analysis
from bench.results import SCHEMA_V2, Environment, MemoryFit, Run, migrate
from c10k.durations import Latency, parse_latency
from c10k.quantity import FIT, T_95, Fit, Interval, Quantity, Unit

# What every record holds as the harness writes it, where a hand-made run leaves it out.
RECORD_DEFAULTS: dict[str, Any] = {"block": None, "again": 0, "noisy": False}


def runs_of(found: Sequence[Mapping[str, Any]]) -> list[Run]:
    """Hand-made run records, written as a /2 file held them (latencies as text, the point
    in the id), as the typed runs of a results document: read through the one migration
    (the fields a test does not care about as a run outside any paired round has them)."""
    runs = [{"id": ""} | RECORD_DEFAULTS | copy.deepcopy(dict(run)) for run in found]
    migrate({"schema": SCHEMA_V2, "runs": [run for run in runs if "point" not in run]})
    return cast(list[Run], runs)


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


# -- hand-made derived figures, in the types derive gives them --------------------------------


def quantity(
    value: float | None,
    interval: tuple[float, float] | list[float] | None = None,
    unit: Unit = "pages/s",
    n: int = 3,
    method: str = T_95,
) -> Quantity:
    """A figure with its interval (none: one run)."""
    return Quantity(value, None if interval is None else Interval(*interval), method, n, unit)


def line(
    slope: float | None,
    r2: float | None = 1.0,
    interval: tuple[float, float] | list[float] | None = None,
    repeat: tuple[float, float] | list[float] | None = None,
) -> Fit:
    """A least-squares line of bytes against C."""
    slope_q = quantity(slope, interval, "bytes", 3, FIT)
    return Fit(slope_q, 0.0, r2, None if repeat is None else Interval(*repeat))


def memory_fit(
    rss: float | None,
    interval: tuple[float, float] | list[float] | None = None,
    total: float | None = None,
    total_interval: tuple[float, float] | list[float] | None = None,
    concurrencies: Sequence[int] = (1000, 10_000),
    **rest: Any,
) -> MemoryFit:
    """A memory_per_connection fit of `rss` bytes per connection (total: RSS + kernel, rss
    without one); the other fields as a fit without them has them, or as given in rest."""
    total = rss if total is None else total
    fit = MemoryFit(
        from_concurrency=min(concurrencies),
        concurrencies=list(concurrencies),
        runs=2 * len(concurrencies),
        rss_bytes=line(rss, 0.99, interval),
        peak_rss_bytes=line(None, None),
        check_anon_bytes=line(None, None),
        check_gap=None,
        kernel_bytes=line(0.0),
        total_bytes=quantity(total, total_interval, "bytes", 3, FIT),
        per_url=None,
    )
    return replace(fit, **rest)


def latency(text: str) -> Latency:
    return parse_latency(text)
