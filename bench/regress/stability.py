"""`python -m bench.regress.stability RUN.json...`: how much each figure moves between runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench.regress.baseline import run_medians
from bench.regress.compare import FIGURE_RULES, BadFile, Figures, load_run
from c10k.stats import coefficient_of_variation, mean


def stability_rows(runs: list[Figures]) -> list[tuple[str, str, int, float, float]]:
    """(benchmark, figure, runs, mean of the run medians, their coefficient of variation)."""
    return [
        (name, figure, len(medians), mean(medians), coefficient_of_variation(medians))
        for (name, figure), medians in run_medians(runs).items()
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.regress.stability", description=__doc__)
    p.add_argument("runs", type=Path, nargs="+", help="pytest-benchmark JSON files of one tree")
    p.add_argument("--figure", action="append", help="only these figures (repeatable)")
    args = p.parse_args(argv)
    try:
        runs = [load_run(path).figures for path in args.runs]
    except BadFile as exc:
        sys.stderr.write(f"bench.regress.stability: error: {exc}\n")
        return 2
    if len(runs) < 2:
        sys.stderr.write("bench.regress.stability: error: give at least two runs\n")
        return 2
    print(f"{'benchmark':<44} {'figure':<28} {'runs':>4} {'mean':>14} {'CV':>7}  gate")
    for name, figure, n, centre, cv in stability_rows(runs):
        if args.figure and figure not in args.figure:
            continue
        rule = FIGURE_RULES.get(figure)
        gate = f"+{rule.gate:.0%}" if rule is not None and rule.gate is not None else "-"
        print(f"{name:<44} {figure:<28} {n:>4} {centre:>14.6g} {cv:>7.2%}  {gate}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
