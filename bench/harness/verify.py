"""A run's verification: the URLs it fetched against the manifest, the server's peak."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast
from urllib.parse import unquote

from bench.results import Verification

PEAK_TOLERANCE = 0.01  # sleepy: the server's peak in flight within 1% of the concurrency


def verify(
    fetched: Mapping[str, int | str] | None,
    manifest: dict[str, Any],
    concurrency: int,
    server_stats: dict[str, Any] | None,
    check_peak: bool,
    deviations: dict[str, int] | None = None,
    parts: Sequence[tuple[int, dict[str, Any]]] = (),
) -> Verification:
    """fetched must equal the manifest; with check_peak the server's peak must reach C (±1%).
    deviations (a peer's only): where it said it left the contract, recorded with the
    differences sorted by why. parts (a crawl of the site's parts): each process's page
    count and its part's manifest, which fetched must then equal in union and per part."""
    if parts:
        manifest = {"urls": {url: o for _, part in parts for url, o in part["urls"].items()}}
    expected: Mapping[str, int | str] = manifest.get("urls", {})
    wrong_parts = [
        [k, pages, len(part["urls"])]
        for k, (pages, part) in enumerate(parts)
        if pages != len(part["urls"])
    ]
    got = fetched or {}
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    differ = sorted(u for u in set(got) & set(expected) if got[u] != expected[u])
    # The fields in the order docs/results.md lists them, deviations among them.
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
        }
        | ({"parts": wrong_parts[:5]} if parts else {}),
        "manifest_ok": fetched is not None and not (missing or extra or differ or wrong_parts),
    }
    if deviations is not None:
        result["deviations"] = {
            "counted": deviations,
            "differences": why_different(missing, extra, len(differ)),
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
    return cast(Verification, result)


def why_different(missing: list[str], extra: list[str], different: int) -> dict[str, int]:
    """A peer's differences from the manifest by cause: a URL fetched under its
    percent-encoded spelling (Scrapy's URLs are encoded), else missing, extra or other."""
    decoded_missing = {unquote(u) for u in missing}
    respelled = [u for u in extra if unquote(u) in decoded_missing]
    reasons = {
        "percent-encoded": len(respelled),
        "missing": len(missing) - len(respelled),
        "extra": len(extra) - len(respelled),
        "other-outcome": different,
    }
    return {why: n for why, n in reasons.items() if n}


def verification_failures(verification: Verification) -> str:
    why = []
    if not verification["manifest_ok"]:
        why.append(
            f"fetched != manifest (missing {verification['missing']}, extra "
            f"{verification['extra']}, different {verification['different']})"
        )
        for k, pages, count in verification["examples"].get("parts", []):
            why.append(f"process {k} fetched {pages} URLs, its part has {count}")
        if deviations := verification.get("deviations"):
            counted = ", ".join(f"{k} {n}" for k, n in deviations["counted"].items()) or "none"
            why.append(f"a peer's deviations: {counted}")
    if not verification["peak_ok"]:
        why.append(
            f"server peak in flight {verification['server_peak_in_flight']} < "
            f"{verification['peak_required']:.0f}"
        )
    return "; ".join(why)
