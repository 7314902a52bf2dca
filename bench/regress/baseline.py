"""Several clean runs of one tree as one: their samples pooled, each gated figure's spread."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from bench.regress.compare import FIGURE_RULES, SPREAD_KEY, Run, Spreads, read_run, spread_of
from c10k.stats import median


def figure_spreads(runs: Sequence[Run]) -> Spreads:
    """Each gated figure's spread over the runs that have it (two at least): the spread of
    the runs' medians, and the threshold it sets."""
    keys = dict.fromkeys(key for run in runs for key in run.figures)
    spreads: Spreads = {}
    for key in keys:
        gate = FIGURE_RULES[key[1]].gate if key[1] in FIGURE_RULES else None
        medians = [median(run.figures[key]) for run in runs if key in run.figures]
        if gate is not None and len(medians) >= 2:
            spreads[key] = spread_of(medians, gate)
    return spreads


def pooled_document(runs: Sequence[Run]) -> dict[str, Any]:
    """One pytest-benchmark document for the runs: the first run's (its machine, commit and
    pytest-benchmark's own stats), each benchmark's samples those of every run in turn with
    their medians as its figures, and with two runs or more each gated figure's spread over
    them in extra_info[SPREAD_KEY] (compare.Spread)."""
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
            info[SPREAD_KEY] = recorded
        else:
            info.pop(SPREAD_KEY, None)
    document["benchmarks"] = list(entries.values())
    return document


def pooled_run(runs: Sequence[Run], source: str) -> Run:
    """The runs as one (pooled_document), read back as a run; one run stays as it was."""
    if len(runs) == 1:
        return runs[0]
    return read_run(pooled_document(runs), source)
