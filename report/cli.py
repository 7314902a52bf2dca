"""`c10k report [RESULTS.json] [--out DIR]`: charts, verdicts, report.md and index.html."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from harness.results import FILENAME, SCHEMA


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
        default=Path("reports") / FILENAME,
        help="the results file (default: reports/results.json)",
    )
    p.add_argument(
        "--out", type=Path, default=None, help="directory to write to (default: the results' own)"
    )
    return p


def read_results(path: Path) -> dict[str, Any]:
    """The results document, or ValueError with a one-line reason."""
    if not path.is_file():
        raise ValueError(f"no results file at {path} (run `c10k bench` first)")
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is not readable JSON: {exc}") from None
    if not isinstance(document, dict) or document.get("schema") != SCHEMA:
        found = document.get("schema") if isinstance(document, dict) else type(document).__name__
        raise ValueError(f"{path} is not a {SCHEMA} results file (schema {found!r})")
    if not isinstance(document.get("runs"), list) or not isinstance(document.get("derived"), dict):
        raise ValueError(f"{path} has no runs list or derived section")
    return document


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        document = read_results(args.results)
    except ValueError as exc:
        sys.stderr.write(f"c10k report: error: {exc}\n")
        return 2
    # Imported here so that a bad path fails fast, before matplotlib loads.
    from report.page import write_report

    out_dir = args.out if args.out is not None else args.results.parent
    written = write_report(document, out_dir)
    print(f"report: {written.html}")
    print(f"        {written.markdown} and {len(written.charts)} chart files in {out_dir}")
    return 0
