"""What one run's data says: its memory plateau from the samples, and its verification."""

from __future__ import annotations

from typing import Any

from bench.harness.sampler import SAMPLE_FIELDS
from c10k.stats import linear_fit

PEAK_TOLERANCE = 0.01  # sleepy: the server's peak in flight within 1% of the concurrency
# The figures whose median over the plateau the summary gives.
PLATEAU_FIELDS = (
    "rss_kib",
    "vmrss_kib",
    "uss_kib",
    "fds",
    "threads",
    "tcp_mem_kib",
    "tcp_inuse",
    "slab_kib",
    "kernel_stack_kib",
    "page_tables_kib",
)


def plateau_summary(columns: dict[str, list[Any]], concurrency: int) -> dict[str, Any]:
    """RSS while (nearly) all connections are open, and just before they were opened."""
    fds = columns["fds"]
    if not fds:
        return {"samples": 0}
    base = min(fds)
    threshold = base + 0.95 * concurrency
    above = [i for i, f in enumerate(fds) if f >= threshold]
    # The first stretch with (nearly) every connection open: in sleepy that is the first
    # wave, before any response has been processed, so every C is measured alike.
    plateau = [i for n, i in enumerate(above) if i - n == (above[0] if above else 0)]
    summary: dict[str, Any] = {
        "samples": len(fds),
        "base_fds": base,
        "threshold_fds": threshold,
        "plateau_samples": len(plateau),
        "samples_above_threshold": len(above),
    }
    if not plateau:
        return summary
    summary.update({name: _median_of(columns[name], plateau) for name in PLATEAU_FIELDS})
    summary["max_rss_kib_above_threshold"] = max(columns["rss_kib"][i] for i in above)
    summary["t_start"] = columns["t"][plateau[0]]
    summary["t_end"] = columns["t"][plateau[-1]]
    # The last sample before the ramp: the independent, in-run cross-check of the fit.
    before = [i for i in range(plateau[0]) if fds[i] <= base + max(2, 0.02 * concurrency)]
    if before:
        summary.update(_ramp(columns, summary, before[-1], plateau[0]))
    return summary


def _median_of(column: list[Any], indices: list[int]) -> float | None:
    values = sorted(column[i] for i in indices if column[i] is not None)
    return values[len(values) // 2] if values else None


def _ramp(
    columns: dict[str, list[Any]], summary: dict[str, Any], before: int, first: int
) -> dict[str, Any]:
    """The sample `before` the connections opened, and memory per connection over the ramp
    from it to the `first` plateau sample."""
    fds, vmrss = columns["fds"], columns["vmrss_kib"]
    ramp_summary: dict[str, Any] = {
        "before_ramp": {name: columns[name][before] for name in SAMPLE_FIELDS}
    }
    opened = (summary["fds"] or 0) - fds[before]
    if opened > 0 and summary["vmrss_kib"] is not None and vmrss[before]:
        ramp_summary["ramp_vmrss_bytes_per_connection"] = (
            (summary["vmrss_kib"] - vmrss[before]) * 1024 / opened
        )
    # VmRSS against open fds while the connections open: fixed costs that land in the
    # ramp (first-use allocations) go to the intercept, not the slope. Needs a ramp
    # longer than a few samples, i.e. thousands of connections.
    ramp = [j for j in range(before, first + 1) if vmrss[j] is not None]
    if len(ramp) >= 4:
        fit = linear_fit([float(fds[j]) for j in ramp], [vmrss[j] * 1024.0 for j in ramp])
        ramp_summary["ramp_fit_bytes_per_fd"] = fit.as_dict()
    return ramp_summary


def verify(
    fetched: dict[str, Any] | None,
    manifest: dict[str, Any],
    concurrency: int,
    server_stats: dict[str, Any] | None,
    check_peak: bool,
) -> dict[str, Any]:
    """fetched must equal the manifest; in sleepy the server's peak must reach C (±1%)."""
    expected: dict[str, Any] = manifest.get("urls", {})
    got = fetched or {}
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    differ = sorted(u for u in set(got) & set(expected) if got[u] != expected[u])
    result: dict[str, Any] = {
        "manifest_count": len(expected),
        "fetched_count": len(got),
        "missing": len(missing),
        "extra": len(extra),
        "different": len(differ),
        "examples": {
            "missing": missing[:5],
            "extra": extra[:5],
            "different": [[u, got[u], expected[u]] for u in differ[:5]],
        },
        "manifest_ok": fetched is not None and not (missing or extra or differ),
    }
    peak = (server_stats or {}).get("peak_in_flight")
    result["server_peak_in_flight"] = peak
    result["peak_required"] = None
    result["peak_ok"] = True
    if check_peak:
        required = min(concurrency, len(expected) - 1) * (1 - PEAK_TOLERANCE)
        result["peak_required"] = required
        result["peak_ok"] = peak is not None and peak >= required
    result["ok"] = result["manifest_ok"] and result["peak_ok"]
    return result


def verification_failures(verification: dict[str, Any]) -> str:
    """Why a verification failed, in one line."""
    why = []
    if not verification["manifest_ok"]:
        why.append(
            f"fetched != manifest (missing {verification['missing']}, extra "
            f"{verification['extra']}, different {verification['different']})"
        )
    if not verification["peak_ok"]:
        why.append(
            f"server peak in flight {verification['server_peak_in_flight']} < "
            f"{verification['peak_required']:.0f}"
        )
    return "; ".join(why)
