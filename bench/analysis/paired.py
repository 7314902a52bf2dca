"""The comparisons the verdicts rest on, judged round by round (c10k.sequential)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bench import results
from bench.analysis.points import Points, ran
from bench.analysis.ratios import Figure, PointId, by_point, by_round, common_points, judged_point
from c10k import catalog, claims, sequential
from c10k.quantity import PAIRED_ROUNDS, Quantity
from c10k.stats import median

FEW_ACTIVE, SLEEPY_KEEP_ALIVE = catalog.FEW_ACTIVE.name, catalog.SLEEPY_KEEP_ALIVE.name
THREADS, ASYNCIO = catalog.THREADS.name, catalog.ASYNCIO.name


@dataclass(frozen=True)
class Comparison:
    """numerator(s) over denominator on one figure, paired by round, against a rule's bounds.
    With several numerators a round's figure is their median (C6: the chapter's event loops).
    A round's ratio is the geometric mean of its points' (server-bound points left out when
    skip_saturated); at_judged_point keeps only the scenario's point with the most
    connections at the longest latency (C7's C10K point)."""

    claim: str
    name: str
    scenario: str
    figure: Figure
    numerators: tuple[str, ...]
    denominator: str
    bounds: tuple[float, ...]
    skip_saturated: bool = False
    at_judged_point: bool = False

    @property
    def models(self) -> frozenset[str]:
        """Every model a round of this comparison needs."""
        return frozenset((*self.numerators, self.denominator))


def comparisons() -> list[Comparison]:
    """C6, C9 (each loop pair: CPU per page on asyncio's loop over the other's) and C7."""
    return [
        Comparison(
            "C6",
            "event loops over threads",
            FEW_ACTIVE,
            "pages_per_s",
            tuple(m.name for m in catalog.MODELS.values() if m.event_loop),
            THREADS,
            claims.MODERATE_RANGE,
            skip_saturated=True,
        ),
        *(
            Comparison(
                "C9",
                f"{plain.name} over {fast.name}",
                FEW_ACTIVE,
                "cpu_us_per_page",
                (plain.name,),
                fast.name,
                (claims.UVLOOP_SPEEDUP,),
            )
            for plain, fast in catalog.LOOP_PAIRS
        ),
        Comparison(
            "C7",
            f"{ASYNCIO} over {THREADS}",
            SLEEPY_KEEP_ALIVE,
            "plateau_pages_per_s",
            (ASYNCIO,),
            THREADS,
            (claims.AT_LEAST_AS_FAST,),
            at_judged_point=True,
        ),
    ]


def compared_models(scenario: str) -> frozenset[str]:
    """The models some comparison judged in this scenario needs: the only ones a round past
    a point's repetitions runs (a model in none would only add a run to its interval)."""
    return frozenset().union(*(c.models for c in comparisons() if c.scenario == scenario))


def shared_points(table: Points, comparison: Comparison) -> list[PointId]:
    """The points every model of the comparison ran (common_points); at_judged_point, only
    the judged one."""
    models = [*comparison.numerators, comparison.denominator]
    keys = common_points(table, models, comparison.skip_saturated)
    top = judged_point(table)
    return [k for k in keys if k == top] if comparison.at_judged_point else keys


def round_ratios(
    table: Points, comparison: Comparison, points: Sequence[PointId]
) -> dict[int, float]:
    """Round -> the comparison's log ratio in it, for every round complete at every point."""
    if not points:
        return {}
    den = by_point(table, comparison.denominator)
    per_model: list[dict[int, float]] = []
    for model in comparison.numerators:
        mine = by_point(table, model)
        logs: dict[int, list[float]] = {}
        for key in points:
            top, bottom = (by_round(found[key], comparison.figure) for found in (mine, den))
            for r in set(top) & set(bottom):
                logs.setdefault(r, []).append(math.log(top[r] / bottom[r]))
        per_model.append({r: sum(v) / len(v) for r, v in logs.items() if len(v) == len(points)})
    complete = set(per_model[0]).intersection(*per_model[1:])
    return {r: median([m[r] for m in per_model]) for r in sorted(complete)}


def _look(found: sequential.Look | None) -> results.Look | None:
    if found is None:
        return None
    method = PAIRED_ROUNDS.format(sequential.look_confidence())
    ratio = Quantity(found.value, found.interval, method, found.rounds, "ratio")
    return {"ratio": ratio, "decided": found.decided, "precise": found.precise}


def rounds_seen(
    runs: Sequence[results.Run], comparison: Comparison, points: Sequence[PointId]
) -> results.RoundCounts:
    """The rounds the comparison's models ran at its points, noisy and failed ones too (what
    the cap counts: a noisy round run again is still one round), the attempts a sentinel
    found noisy, and the attempts that ran a round again."""
    wanted = set(points)
    attempts = {
        (r["round"], r["again"]): bool(r["noisy"])
        for r in runs
        if r["scenario"] == comparison.scenario
        and r["kind"] == "measured"
        and r["model"] in comparison.models
        and ran(r)
        and (r["params"]["concurrency"], r["params"]["server"]["latency"]) in wanted
    }
    return {
        "rounds": len({round_ for round_, _ in attempts}),
        "noisy": sum(attempts.values()),
        "again": sum(1 for _, again in attempts if again),
    }


def judge(
    tables: Mapping[str, object], comparison: Comparison, runs: Sequence[results.Run]
) -> results.PairedComparison | None:
    """The comparison as the stopping rule sees it now; None when its scenario did not run
    or no point has every model of it. runs: every run so far, to see whether its rounds
    reached the cap (sequential.judge's at_cap)."""
    table = results.scenario_points(tables, comparison.scenario)
    points = shared_points(table, comparison)
    if not points:
        return None
    by_round = round_ratios(table, comparison, points)
    logs = list(by_round.values())
    seen = rounds_seen(runs, comparison, points)
    at_cap = seen["rounds"] >= sequential.LOOKS[-1]
    found = sequential.judge(logs, comparison.bounds, at_cap=at_cap) if logs else None
    stopped = sequential.stopped(logs, comparison.bounds, at_cap=at_cap)
    stopped_by = None
    if found is not None and found.decided:
        stopped_by = "decided"
    elif found is not None and found.precise:
        stopped_by = "precise"
    elif stopped:
        stopped_by = "cap"
    return {
        "claim": comparison.claim,
        "name": comparison.name,
        "scenario": comparison.scenario,
        "figure": comparison.figure,
        "numerators": list(comparison.numerators),
        "denominator": comparison.denominator,
        "bounds": list(comparison.bounds),
        "concurrencies": [c for c, _ in points],
        "latencies": [latency for _, latency in points],
        "per_round": {str(r): v for r, v in by_round.items()},
        "round_counts": seen,
        "look": _look(found),
        "stopped": stopped,
        "stopped_by": stopped_by,
    }


def paired_comparisons(
    tables: Mapping[str, object], runs: Sequence[results.Run]
) -> list[results.PairedComparison]:
    """Every comparison whose scenario ran, judged (runs: every run so far)."""
    return [found for c in comparisons() if (found := judge(tables, c, runs)) is not None]


def fold_looks(
    comparisons: results.Comparisons, paired: Sequence[results.PairedComparison]
) -> None:
    """Give the verdicts' comparisons the paired rounds' values and intervals: C6's median,
    each loop pair's CPU speedup (and a loop's claim on it), and C7's asyncio over threads at
    the judged point."""
    for found in paired:
        look = found["look"]
        if look is None:
            continue
        if found["claim"] == "C6":
            target = comparisons["event_loop_vs_threads"]
            target["median_pages_per_s"], target["look"] = look["ratio"], look
        elif found["claim"] == "C9" and (loops := comparisons["uvloop"]) is not None:
            models = [*found["numerators"], found["denominator"]]
            for pair in loops["pairs"]:
                if [pair["plain"], pair["fast"]] == models:
                    pair["cpu_per_page_speedup"], pair["look"] = look["ratio"], look
            for claim in comparisons.get("loop_claims") or []:  # the same pair, as a claim
                if [claim["against"], claim["model"]] == models:
                    claim["cpu_per_page_speedup"] = look["ratio"]
        elif found["claim"] == "C7" and (c7 := comparisons["asyncio_vs_threads_sleepy_keep_alive"]):
            c7["asyncio_over_threads"], c7["look"] = look["ratio"], look


def round_counts(runs: Sequence[results.Run]) -> dict[str, results.RoundCounts]:
    """Per scenario: its paired rounds that ran, those a sentinel found noisy, and those run
    again (a noisy round's second run counts as a round of its own), with the points noisy
    rounds left with no run (lost_points); and where rounds waited for a quiet machine before
    they started, how many and for how long in all."""
    found: dict[str, results.RoundCounts] = {}
    seen: set[tuple[results.Block | None, int]] = set()
    waited: set[tuple[results.Block | None, int]] = set()  # the rounds that waited: block and again
    for run in runs:
        block = run["block"]
        if run["wait"]:
            counts = found.setdefault(run["scenario"], {"rounds": 0, "noisy": 0, "again": 0})
            if (block, run["again"]) not in waited:
                waited.add((block, run["again"]))
                counts["waited"] = counts.get("waited", 0) + 1
            counts["waited_s"] = counts.get("waited_s", 0.0) + run.get("waited_s", 0.0)
            continue
        if block is None or (block, run["again"]) in seen:
            continue
        seen.add((block, run["again"]))
        counts = found.setdefault(run["scenario"], {"rounds": 0, "noisy": 0, "again": 0})
        counts["rounds"] += 1
        counts["noisy"] += run["noisy"]
        counts["again"] += run["again"] > 0
    for scenario, counts in found.items():
        if counts["noisy"] and (lost := lost_points(runs, scenario)):
            counts["lost"] = lost
    return found


def lost_points(runs: Sequence[results.Run], scenario: str) -> list[tuple[str, int]]:
    """The (site, C) of a scenario whose every measured run that ended ok ran in a noisy round:
    they have no point in its table."""
    noisy: dict[tuple[str, int], bool] = {}
    for r in runs:
        if r["scenario"] == scenario and r["kind"] == "measured" and r["status"] == "ok":
            key = (r["params"]["server"]["shape"], r["params"]["concurrency"])
            noisy[key] = noisy.get(key, True) and r["noisy"]
    return sorted(key for key, all_noisy in noisy.items() if all_noisy)
