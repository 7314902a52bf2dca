"""Build CPython 3.14 from Debian's python3.14 source twice: free-threaded (3.14t) and GIL."""

from __future__ import annotations

import argparse
import os
import re
import sys
import tarfile
from collections.abc import Sequence
from pathlib import Path

from bench.arguments import OneLineParser
from bench.runtimes.discover import cache_dir
from bench.runtimes.fetch import PACKAGE, SERIES, BuildFailed, Fetcher, Layout, Progress, extract
from bench.runtimes.install import (
    build_one,
    check_build_dependencies,
    configure_flags,
    read_record,
    usable_build,
)

TAGS = ("3.14t", "3.14")
DEFAULT_MIRROR = "http://deb.debian.org/debian"
DEFAULT_SUITE = "unstable"


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="python -m bench.runtimes.build",
        description=f"Build CPython {SERIES} from Debian's {PACKAGE} source package twice, "
        "from one upstream tarball and the same configure flags: free-threaded (3.14t, "
        "--disable-gil) and with the GIL (3.14). Each installs into CACHE/cpython/TAG, "
        "CACHE being $XDG_CACHE_HOME/c10k-bench (default ~/.cache/c10k-bench), once: a build "
        "whose install and record (c10k-build.json) exist is skipped. Debian's patches are "
        "not applied. Takes minutes per build on 2 cores; run it under the exclusive lock: "
        "flock -x /tmp/c10k-bench.lock python -m bench.runtimes.build",
        epilog="exit 0: built or already there; 1: a step failed (the line names it and its "
        "log); 2: bad input",
    )
    p.add_argument(
        "tags",
        nargs="*",
        metavar="TAG",
        help=f"which builds: {' and '.join(TAGS)} (default: both)",
    )
    p.add_argument("--cache-dir", type=Path, help="instead of $XDG_CACHE_HOME/c10k-bench")
    p.add_argument(
        "--version",
        dest="debian_version",
        help="the Debian version to build, such as 3.14.7-4 (default: the newest the mirror's "
        "pool serves; a build already there for the other tag sets it, to keep the pair equal)",
    )
    p.add_argument("--force", action="store_true", help="build again even if already built")
    p.add_argument(
        "--optimizations",
        action="store_true",
        help="add --enable-optimizations --with-lto (PGO and LTO: several times longer)",
    )
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="make -j (default: cores)")
    p.add_argument(
        "--install-deps",
        action="store_true",
        help="apt-get install the missing header packages instead of failing",
    )
    p.add_argument("--mirror", default=DEFAULT_MIRROR, help=f"default {DEFAULT_MIRROR}")
    p.add_argument("--suite", default=DEFAULT_SUITE, help=f"default {DEFAULT_SUITE}")
    return p


def validated(p: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.Namespace:
    """The options checked (an option that cannot work: one line, exit code 2)."""
    unknown = [tag for tag in args.tags if tag not in TAGS]
    if unknown:
        p.error(f"unknown build {', '.join(unknown)}; choose from {', '.join(TAGS)}")
    args.tags = [tag for tag in TAGS if tag in args.tags] if args.tags else list(TAGS)
    if args.debian_version is not None and not re.fullmatch(
        r"3\.14\.\d+(?:~?[a-z]+\d+)?-[0-9A-Za-z.+~]+", args.debian_version
    ):
        p.error(f"--version {args.debian_version}: not a {PACKAGE} version like 3.14.7-4")
    if args.jobs < 1:
        p.error("--jobs must be at least 1")
    cache = args.cache_dir if args.cache_dir is not None else cache_dir()
    if cache.exists() and not cache.is_dir():
        p.error(f"--cache-dir {cache}: not a directory")
    args.layout = Layout(cache.absolute())
    return args


def main(argv: Sequence[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    args = validated(p, args)
    layout: Layout = args.layout
    progress = Progress()
    flags = {tag: configure_flags(layout.prefix(tag), tag, args.optimizations) for tag in TAGS}
    version: str | None = args.debian_version
    todo = []
    for tag in args.tags:
        if not args.force and usable_build(layout, tag, flags[tag], version):
            record = read_record(layout.prefix(tag)) or {}
            progress.say(
                f"{tag}: already built from {PACKAGE} {record.get('debian_version')} on "
                f"{record.get('built_at')} ({layout.interpreter(tag)}); --force builds again"
            )
        else:
            todo.append(tag)
    if not todo:
        return 0
    if version is None:
        # The pair must differ only in the GIL: the sibling's version wins if it is there.
        for tag in TAGS:
            sibling = read_record(layout.prefix(tag))
            if tag not in todo and sibling is not None:
                version = str(sibling["debian_version"])
                progress.say(f"fetch: {tag} was built from {version}; the same version for both")
    step = "build dependencies"
    try:
        check_build_dependencies(args.install_deps, progress)
        step = "fetch"
        source = Fetcher(layout, args.mirror, args.suite, progress).fetch(version)
        step = "extract"
        tree = extract(source, layout, progress)
        for tag in todo:
            step = f"{tag} build"
            build_one(tag, tree, source, layout, flags[tag], args.jobs, progress)
    except BuildFailed as failed:
        print(f"build failed: {failed}", file=sys.stderr)
        return 1
    except (OSError, tarfile.TarError) as failed:  # URLError is an OSError
        print(f"build failed: {step}: {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
