"""`c10k runtimes`: the interpreters found (pyenv, PATH, built), or build one with --build."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence

from bench.harness.cli import OneLineParser
from bench.runtimes.discover import Runtime, cache_dir, find_runtimes

BUILD_MODULE = "bench.runtimes.build"


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="c10k runtimes",
        description="List the CPython interpreters found: pyenv's versions, python3.X and "
        f"python3.Xt on PATH, and the ones built into {cache_dir() / 'cpython'}. "
        "`c10k bench --python TAG` runs the crawlers under one of them.",
    )
    p.add_argument("--json", action="store_true", help="print a JSON list, old ones included")
    p.add_argument(
        "--build",
        metavar="TAG",
        help="build CPython TAG (3.14 or 3.14t) into the cache with bench/runtimes/build.py",
    )
    return p


def gil_status(runtime: Runtime) -> str:
    return "free-threaded" if runtime.gil_disabled else "GIL"


def runtimes_table(runtimes: Sequence[Runtime]) -> str:
    """One line per interpreter: tag, version, GIL status, origin, path; old ones marked."""
    header = ("tag", "version", "GIL", "origin", "path")
    rows = [
        (
            r.tag,
            r.version,
            gil_status(r),
            r.origin,
            str(r.executable) + ("" if r.supported else "  (too old: the project needs 3.11+)"),
        )
        for r in runtimes
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(row[:-1], widths, strict=True)) + "  " + row[-1]
        for row in [header, *rows]
    )


def build(tag: str) -> int:
    """Hand --build to bench/runtimes/build.py, imported only now (it may not be here)."""
    try:
        module = importlib.import_module(BUILD_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name != BUILD_MODULE:
            raise
        sys.stderr.write(
            "c10k runtimes: error: the build script is missing (bench/runtimes/build.py)\n"
        )
        return 2
    code: int = module.main([tag])
    return code


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.build:
        return build(args.build)
    runtimes = find_runtimes()
    if args.json:
        print(json.dumps([r.as_dict() | {"supported": r.supported} for r in runtimes], indent=1))
        return 0
    if not runtimes:
        print("no CPython interpreter found")
        return 0
    print(runtimes_table(runtimes))
    return 0
