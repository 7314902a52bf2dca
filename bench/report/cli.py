"""`c10k report [RESULTS.json] [--out DIR]`: charts, verdicts, report.md and index.html."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench import results


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="c10k report",
        description="Draw the charts and the verdict table from a results.json written by "
        "`c10k bench`; nothing is measured again.",
    )
    p.add_argument(
        "results",
        nargs="?",
        type=Path,
        default=Path("reports") / results.FILENAME,
        help="the results file (default: reports/results.json)",
    )
    p.add_argument(
        "--out", type=Path, default=None, help="directory to write to (default: the results' own)"
    )
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        document = results.load(args.results)
    except ValueError as exc:
        sys.stderr.write(f"c10k report: error: {exc}\n")
        return 2
    # Imported here so that a bad path fails fast, before matplotlib loads.
    from bench.report.page import write_report

    out_dir = args.out if args.out is not None else args.results.parent
    written = write_report(dict(document), out_dir)
    print(f"report: {written.html}")
    print(f"        {written.markdown} and {len(written.charts)} chart files in {out_dir}")
    return 0
