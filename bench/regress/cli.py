"""`c10k compare BASE NEW`: judge a suite run against a baseline, gate it, or move the baseline."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from bench.regress.baseline import figure_spreads, pooled_document, pooled_run
from bench.regress.compare import (
    BASELINE_RUNS,
    DETERMINISTIC,
    GATED,
    SPREAD_FACTOR,
    BadFile,
    FigureChange,
    Run,
    compare,
    load_run,
    subject,
)
from bench.regress.environment import describe, differences, file_slug


class Refused(Exception):
    """Two runs that must not be judged against each other (different environments)."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="c10k compare",
        description="Compare a run of the benchmark suite (pytest-benchmark JSON) with a "
        "baseline, and fail when a gated figure regressed past its threshold. Runs made on "
        "different interpreters, platforms or package versions are never judged against "
        "each other. A gated figure's threshold is its fixed gate, or 3 times its spread over "
        "the baseline's clean runs where the baseline records one and that is wider.",
        epilog="exit 0: no gated regression (or --update wrote the baseline); 1: a gated "
        "figure regressed, or (with --deterministic) one is missing from NEW; 2: a bad file "
        "or option, or BASE and NEW come from different environments",
    )
    p.add_argument(
        "base",
        type=Path,
        help="the baseline: a suite run, or a directory of them (bench/regress/baselines), "
        "of which the one recorded on NEW's environment is used",
    )
    p.add_argument(
        "new",
        type=Path,
        nargs="+",
        help="the run to judge (pytest bench/regress/suites --benchmark-json); several runs of "
        "one tree, or a directory of them, are pooled (their samples together), and --update "
        "then records each gated figure's spread over them in the baseline",
    )
    switches = {
        "--all": "print every figure, not only the changed and gated",
        "--deterministic": "judge only the figures that hold still from run to run "
        "(instructions per page, memory per idle unit), and fail when one of BASE's is "
        "missing from NEW: the CI gate",
        "--update": "print the changes, then make NEW the baseline: it replaces BASE (a "
        "file) or BASE/<environment>.json (a directory), with each gated figure's spread "
        "over NEW's runs when there are several; a reviewed move, see docs/regression.md",
    }
    for switch, text in switches.items():
        p.add_argument(switch, action="store_true", help=text)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    label = ", ".join(str(path) for path in args.new)
    try:
        paths = run_paths(args.new)
        runs = [load_run(path) for path in paths]
        refuse_mixed(paths, runs)
        new = pooled_run(runs, label)
        base_path, base = choose_baseline(args.base, new, args.update)
    except (BadFile, Refused) as exc:
        sys.stderr.write(f"c10k compare: error: {exc}\n")
        return 2
    if base is None:  # --update into a directory with no baseline for this environment yet
        print(f"no baseline for this environment in {args.base}: nothing to compare")
        return write_baseline(paths, runs, base_path)
    base_figures, new_figures = base.figures, new.figures
    if args.deterministic:
        base_figures = {k: v for k, v in base_figures.items() if k[1] in DETERMINISTIC}
        new_figures = {k: v for k, v in new_figures.items() if k[1] in DETERMINISTIC}
    changes, missing = compare(base_figures, new_figures, base.spreads)
    if not changes:
        sys.stderr.write(f"c10k compare: error: {base_path} and {label} share no figure\n")
        return 2
    print(f"baseline: {base_path}")
    print_changes(changes, missing, args.all)
    unjudged = [key for key in base_figures if key not in new_figures and key[1] in GATED]
    status = print_summary(changes, unjudged, strict=args.deterministic)
    return write_baseline(paths, runs, base_path) if args.update else status


def run_paths(given: Sequence[Path]) -> list[Path]:
    """The run files NEW names: each file as given, each directory's *.json in name order."""
    paths: list[Path] = []
    for path in given:
        if not path.is_dir():
            paths.append(path)
            continue
        found = sorted(path.glob("*.json"))
        if not found:
            raise BadFile(f"{path}: a directory with no runs (*.json) in it")
        paths += found
    return paths


def refuse_mixed(paths: Sequence[Path], runs: Sequence[Run]) -> None:
    """Runs pooled as one must come from one environment."""
    for path, run in zip(paths[1:], runs[1:], strict=True):
        refuse_different(
            f"{path} and {paths[0]}", runs[0], run, "pool runs of one environment only"
        )


def choose_baseline(base: Path, new: Run, updating: bool) -> tuple[Path, Run | None]:
    """The baseline file for NEW, and its run (None: a directory without one, when updating)."""
    if new.environment is None:
        raise Refused(f"{base if updating else 'NEW'} records no environment: run the suite again")
    # A directory of baselines that does not exist yet: --update creates it.
    new_directory = updating and not base.exists() and base.suffix != ".json"
    if not base.is_dir() and not new_directory:
        run = load_run(base)
        if not updating:
            if run.environment is None:
                raise Refused(f"{base} records no environment: it cannot be judged against")
            why = "instruction counts and memory are not comparable across them"
            refuse_different(f"{base} and NEW", run, new, why)
        return base, run
    candidates = []
    for path in sorted(base.glob("*.json")) if base.is_dir() else []:
        run = load_run(path)
        if run.environment is not None and not differences(run.environment, new.environment):
            return path, run
        candidates.append((path, run))
    target = base / file_slug(new.environment)
    if updating:
        return target, (load_run(target) if target.exists() else None)
    closest = ""
    if candidates:
        distance = {
            path: differences(run.environment or {}, new.environment) for path, run in candidates
        }
        path = min(distance, key=lambda p: len(distance[p]))
        closest = f"; the closest, {path.name}, differs in {', '.join(distance[path])}"
    raise Refused(
        f"no baseline in {base} was measured on this environment "
        f"({describe(new.environment)}){closest}; record one with `tox -e baseline`"
    )


def refuse_different(which: str, base: Run, new: Run, why: str) -> None:
    """Refused, naming what differs, when two runs' environments do."""
    if found := differences(base.environment or {}, new.environment or {}):
        raise Refused(f"{which} come from different environments ({'; '.join(found)}): {why}")


def print_changes(changes: list[FigureChange], missing: list[str], everything: bool) -> None:
    for change in changes:
        if everything or change.gated or change.changed:
            print(change.line())
    if everything:
        for name in missing:
            print(f"{name}, not compared")
    elif missing:
        print(f"{len(missing)} figures are in one run only, not compared (--all lists them)")


def print_summary(
    changes: list[FigureChange], unjudged: list[tuple[str, str]], *, strict: bool
) -> int:
    """The regressions and the improvements, named; the exit status they lead to."""
    regressions = [c for c in changes if c.regressed]
    improvements = [c for c in changes if c.improved]
    if regressions:
        print(f"REGRESSED past the gate ({len(regressions)}):")
        for change in regressions:
            print(f"  {change.headline()}; the {change.gate_text()}")
    if improvements:
        print(f"improved beyond the noise floor ({len(improvements)}):")
        for change in improvements:
            hint = "" if change.gated else " (not gated: a hint)"
            print(f"  {change.headline()}{hint}")
    if unjudged:  # a skipped benchmark (no valgrind, `-k`) must not pass for a clean one
        names = ", ".join(f"{subject(name)} {figure}" for name, figure in unjudged[:6])
        more = f" and {len(unjudged) - 6} more" if len(unjudged) > 6 else ""
        print(f"{'MISSING' if strict else 'warning'}: gated figures not in NEW: {names}{more}")
    gated = [c for c in changes if c.gated]
    print(
        f"compared {len(changes)} figures: {len(gated)} gated, "
        f"{sum(c.changed for c in gated)} of them changed, {len(regressions)} regressed; "
        f"{sum(c.changed for c in changes if not c.gated)} ungated figures changed"
    )
    return 1 if regressions or (strict and unjudged) else 0


def write_baseline(paths: Sequence[Path], runs: Sequence[Run], target: Path) -> int:
    """One run becomes the baseline as it is, with no spread (the fixed gates apply); several
    become one, pooled, with each gated figure's spread over them."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if len(runs) == 1:
        if paths[0].resolve() != target.resolve():
            shutil.copyfile(paths[0], target)
        print(f"one run: no spread recorded, the fixed gates apply ({BASELINE_RUNS} runs set them)")
    else:
        target.write_text(json.dumps(pooled_document(runs), indent=4) + "\n")
        print_spreads(runs)
    print(f"baseline written: {target} (commit it with the change that moved it)")
    return 0


def print_spreads(runs: Sequence[Run]) -> None:
    """Each gated figure's spread over the runs, as the baseline now records it."""
    spreads = figure_spreads(runs)
    print(
        f"spread over {len(runs)} runs, recorded in the baseline "
        f"(each gate: the fixed one, or {SPREAD_FACTOR:g} x the spread where that is wider):"
    )
    for (name, figure), spread in spreads.items():
        low, high = min(spread.run_medians), max(spread.run_medians)
        print(
            f"  {subject(name)}: {figure} spread {spread.spread:.2%} "
            f"({low:,.6g} .. {high:,.6g}); gate {spread.threshold:+.1%}"
        )
    if len(runs) < BASELINE_RUNS:
        rough = f"a spread over {len(runs)} runs is a rough one; {BASELINE_RUNS} is the default"
        print(f"warning: {rough}")


if __name__ == "__main__":
    sys.exit(main())
