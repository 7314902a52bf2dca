"""`c10k report [FILE ...] [--out DIR] [--readme README.md] [--sample]`: charts, verdicts,
report.md and index.html from one or more results files (docs/report.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench import results
from bench.report import sources

DESCRIPTION = (
    "Draw the charts and judge the chapter's claims from results files written by `c10k bench`; "
    "nothing is measured again. Each file is recognised by what it holds: the default run "
    "(every claim but C5 and C8), the full profile's idle+c100k run (C5), and a `--pythons "
    "3.14,3.14t` free-threading run's folder or runtimes.json (C8). Only the files named here "
    "count."
)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="c10k report", description=DESCRIPTION)
    p.add_argument(
        "files",
        nargs="*",
        type=Path,
        help="results files (or a --pythons run's folder); default: reports/results.json",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        help="directory to write to (default: the first file's own)",
    )
    p.add_argument(
        "--readme",
        type=Path,
        default=None,
        help="rewrite this README's generated block (between its c10k-report markers)",
    )
    p.add_argument(
        "--sample",
        action="store_true",
        help="redraw the committed sample: every file of it under reports/ that exists, into "
        "reports/, and README.md's block (run from the checkout's root)",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    root = Path.cwd() if args.sample else None
    named = sources.sample(Path.cwd()) if args.sample else args.files
    named = named or [Path("reports") / results.FILENAME]
    try:
        if args.sample and args.files:
            raise ValueError("--sample names its own files: name none beside it")
        found = sources.collect(named, root)
    except ValueError as exc:
        sys.stderr.write(f"c10k report: error: {exc}\n")
        return 2
    # Imported here so that a bad path fails fast, before matplotlib loads.
    from bench.report.page import write_report
    from bench.report.readme import write

    out_dir = args.out or (sources.SAMPLE_DIR if args.sample else _beside(found, named[0]))
    readme = args.readme or (Path("README.md") if args.sample else None)
    written = write_report(found, out_dir)
    print(f"report: {written.html}")
    print(f"        {written.markdown} and {len(written.charts)} chart files in {out_dir}")
    for role in found.missing():
        print(f"        not given: {sources.ROLE_WORDS[role]} ({sources.COMMANDS[role]})")
    if readme is not None:
        try:
            changed = write(readme, found, out_dir)
        except (OSError, ValueError) as exc:
            sys.stderr.write(f"c10k report: error: {readme}: {exc}\n")
            return 2
        print(f"readme: {readme} {'rewritten' if changed else 'unchanged'}")
    return 0


def _beside(found: sources.Sources, first: Path) -> Path:
    """The default output folder: the main results file's own, else the first file's."""
    if found.main is not None:
        return found.main.path.parent
    return first if first.is_dir() else first.parent
