"""`c10k compare BASE NEW`: judge a suite run against a baseline, gate it, or move the baseline."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from bench.regress.compare import (
    DEFAULT_RULE,
    DETERMINISTIC,
    FIGURE_RULES,
    GATED,
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
        "each other.",
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
        "new", type=Path, help="the run to judge (pytest bench/regress/suites --benchmark-json)"
    )
    switches = {
        "--all": "print every figure, not only the changed and gated",
        "--deterministic": "judge only the figures that hold still from run to run "
        "(instructions per page, memory per idle unit), and fail when one of BASE's is "
        "missing from NEW: the CI gate",
        "--update": "print the changes, then make NEW the baseline: it replaces BASE (a "
        "file) or BASE/<environment>.json (a directory); a reviewed move, see "
        "docs/regression.md",
    }
    for switch, text in switches.items():
        p.add_argument(switch, action="store_true", help=text)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        new = load_run(args.new)
        base_path, base = choose_baseline(args.base, new, args.update)
    except (BadFile, Refused) as exc:
        sys.stderr.write(f"c10k compare: error: {exc}\n")
        return 2
    if base is None:  # --update into a directory with no baseline for this environment yet
        print(f"no baseline for this environment in {args.base}: nothing to compare")
        return write_baseline(args.new, base_path)
    base_figures, new_figures = base.figures, new.figures
    if args.deterministic:
        base_figures = {k: v for k, v in base_figures.items() if k[1] in DETERMINISTIC}
        new_figures = {k: v for k, v in new_figures.items() if k[1] in DETERMINISTIC}
    changes, missing = compare(base_figures, new_figures)
    if not changes:
        sys.stderr.write(f"c10k compare: error: {base_path} and {args.new} share no figure\n")
        return 2
    print(f"baseline: {base_path}")
    print_changes(changes, missing, args.all)
    unjudged = [key for key in base_figures if key not in new_figures and key[1] in GATED]
    status = print_summary(changes, unjudged, strict=args.deterministic)
    return write_baseline(args.new, base_path) if args.update else status


def choose_baseline(base: Path, new: Run, updating: bool) -> tuple[Path, Run | None]:
    """The baseline file for NEW, and its run (None: a directory without one, when updating)."""
    if new.environment is None:
        raise Refused(f"{base if updating else 'NEW'} records no environment: run the suite again")
    # A directory of baselines that does not exist yet: --update creates it.
    new_directory = updating and not base.exists() and base.suffix != ".json"
    if not base.is_dir() and not new_directory:
        run = load_run(base)
        if not updating:
            refuse_if_different(base, run, new)
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


def refuse_if_different(base_path: Path, base: Run, new: Run) -> None:
    if base.environment is None:
        raise Refused(f"{base_path} records no environment: it cannot be judged against")
    found = differences(base.environment, new.environment or {})
    if found:
        raise Refused(
            f"{base_path} and NEW come from different environments ({'; '.join(found)}): "
            "instruction counts and memory are not comparable across them"
        )


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
            gate = FIGURE_RULES.get(change.figure, DEFAULT_RULE).gate or 0.0
            print(f"  {change.headline()}; the gate is {gate:+.0%}")
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


def write_baseline(new: Path, target: Path) -> int:
    target.parent.mkdir(parents=True, exist_ok=True)
    if new.resolve() != target.resolve():
        shutil.copyfile(new, target)
    print(f"baseline written: {target} (commit it with the change that moved it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
