"""The words for a record of the results document, the same in the harness's lines and the
report: why the plan left a model out, and how the sleepy latencies were chosen."""

from __future__ import annotations

from bench.results.profile import LatencyChoices, LatencyPoint, LeftOutModel
from c10k.durations import Latency


def left_out_text(entry: LeftOutModel) -> str:
    """Why the plan left a model out: 'needs CPython 3.14 (this run: 3.11)'."""
    return f"needs CPython {entry['needs']} (this run: {', '.join(entry['runtimes'])})"


def latencies_text(record: LatencyChoices) -> str:
    """The choice in one line: the measured cost with its spread, then each scenario's points
    by the latency they took, with the rule's number that decided there."""
    cost = record["cost"]
    if cost is None:
        return f"Sleepy latencies as the profile writes them: {record['error'] or 'not measured'}."
    low, high = cost["connect_us_range"]
    request_low, request_high = cost["request_us_range"]
    groups: dict[tuple[str, Latency, bool], list[LatencyPoint]] = {}
    for p in record["points"]:
        groups.setdefault((p["scenario"], p["latency"], p["judges_throughput"]), []).append(p)
    parts = []
    for (scenario, latency, judges), found in groups.items():
        cs = ", ".join(f"{c:,}" for c in dict.fromkeys(p["concurrency"] for p in found))
        if judges:
            why = f"judging throughput, C/L asks {max(p['load'] for p in found):.0%} of its core"
        else:
            why = f"the ramp {max(p['ramp_share'] for p in found):.0%} of L"
        unmet = "; rule not met" if not all(p["met"] for p in found) else ""
        parts.append(f"{scenario} {latency.text} at C {cs} ({why}{unmet})")
    return (
        f"Sleepy latencies chosen from the server's cost, measured at the start by "
        f"{len(cost['probes'])} crawls of {cost['connections']:,} connections: "
        f"{cost['connect_us']:.0f} µs [{low:.0f}-{high:.0f}] a connection as they open, "
        f"{cost['request_us']:.0f} µs [{request_low:.0f}-{request_high:.0f}] a request at "
        f"{cost['share']:.0%} of a core; " + "; ".join(parts) + "."
    )
