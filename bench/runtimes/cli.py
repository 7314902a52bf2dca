"""`c10k runtimes`: the interpreters found (pyenv, PATH, built), or build one with --build."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from bench.arguments import OneLineParser
from bench.runtimes.discover import Runtime, cache_dir, find_runtimes


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
        metavar="TAGS",
        type=lambda text: [tag.strip() for tag in text.split(",") if tag.strip()],
        help="build CPython 3.14t and/or 3.14 (comma-separated) into the cache: "
        "python -m bench.runtimes.build, whose --help lists its options",
    )
    p.add_argument(
        "--env",
        action="store_true",
        help="print `export C10K_PYTHON_3_12=PATH` lines, one per tag found, for the tox envs "
        'py311 ... py314t: eval "$(c10k runtimes --env)"',
    )
    return p


def runtimes_table(runtimes: Sequence[Runtime]) -> str:
    """One line per interpreter: tag, version, GIL status, origin, path; old ones marked."""
    header = ("tag", "version", "GIL", "origin", "path")
    rows = [
        (
            r.tag,
            r.version,
            "free-threaded" if r.gil_disabled else "GIL",
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


def env_lines(runtimes: Sequence[Runtime]) -> list[str]:
    """The variables tox.ini's py311 ... py314t envs read: the first interpreter found per tag
    (the one `--python TAG` would pick), the project's supported ones only."""
    chosen: dict[str, Runtime] = {}
    for runtime in runtimes:
        if runtime.supported:
            chosen.setdefault(runtime.tag, runtime)
    return [
        f"export C10K_PYTHON_{tag.replace('.', '_').upper()}={runtime.executable}"
        for tag, runtime in chosen.items()
    ]


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.build:
        from bench.runtimes import build  # the build's own imports, only when asked

        return build.main(args.build)
    runtimes = find_runtimes()
    if args.env:
        print("\n".join(env_lines(runtimes)))
        return 0
    if args.json:
        print(json.dumps([r.as_dict() | {"supported": r.supported} for r in runtimes], indent=1))
        return 0
    if not runtimes:
        print("no CPython interpreter found")
        return 0
    print(runtimes_table(runtimes))
    return 0
