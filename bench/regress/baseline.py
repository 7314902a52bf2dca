"""Several clean runs of one tree as one: their samples pooled, each gated figure's spread."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from bench.regress import compare
from c10k.stats import median


def run_medians(runs: Sequence[compare.Figures]) -> dict[tuple[str, str], list[float]]:
    """Each figure's median in every run that has it, for the figures two runs or more have."""
    keys = dict.fromkeys(key for run in runs for key in run)
    medians = {key: [median(run[key]) for run in runs if key in run] for key in keys}
    return {key: found for key, found in medians.items() if len(found) >= 2}


def figure_spreads(runs: Sequence[compare.Run]) -> compare.Spreads:
    """Each gated figure's spread over the runs that have it (two at least): the spread of
    the runs' medians, and the threshold it sets."""
    return {
        key: compare.spread_of(medians, gate)
        for key, medians in run_medians([run.figures for run in runs]).items()
        if (gate := compare.FIGURE_RULES.get(key[1], compare.DEFAULT_RULE).gate) is not None
    }


def pooled_document(runs: Sequence[compare.Run]) -> dict[str, Any]:
    """One pytest-benchmark document for the runs: the first run's (its machine, commit and
    pytest-benchmark's own stats), each benchmark's samples those of every run in turn with
    their medians as its figures, and with two runs or more each gated figure's spread over
    them in extra_info[compare.SPREAD_KEY] (compare.Spread)."""
    if not runs:
        raise ValueError("no runs to pool")
    document = copy.deepcopy(runs[0].document)
    entries: dict[str, dict[str, Any]] = {}
    for run in runs:  # a benchmark missing from the first run comes from the next that has it
        for entry in run.document["benchmarks"]:
            entries.setdefault(entry["name"], copy.deepcopy(entry))
    spreads = figure_spreads(runs) if len(runs) >= 2 else {}
    for name, entry in entries.items():
        info = entry.setdefault("extra_info", {})
        samples = {
            figure: [value for run in runs for value in run.figures.get((name, figure), [])]
            for figure in info.get("samples", {})
        }
        info["samples"] = samples
        info["figures"] = {figure: median(values) for figure, values in samples.items() if values}
        recorded = {
            figure: asdict(spreads[(name, figure)])
            for figure in samples
            if (name, figure) in spreads
        }
        if recorded:
            info[compare.SPREAD_KEY] = recorded
        else:
            info.pop(compare.SPREAD_KEY, None)
    document["benchmarks"] = list(entries.values())
    return document


def pooled_run(runs: Sequence[compare.Run], source: str) -> compare.Run:
    """The runs as one (pooled_document), read back as a run; one run stays as it was."""
    if len(runs) == 1:
        return runs[0]
    return compare.read_run(pooled_document(runs), source)
