"""The `c10k` command: one entry point that hands each subcommand to its own module."""

from __future__ import annotations

import importlib
import os
import select
import signal
import sys

# Subcommand -> "module:function(argv) -> exit code". Imported only when used, so that
# `c10k serve` never loads a crawler and the harness never imports one.
COMMANDS = {
    "serve": ("server.cli:main", "run the test website"),
    "crawl": ("impls.cli.crawl:crawl_main", "crawl a site with one concurrency model"),
    "models": ("impls.cli.models:models_main", "list the crawler models"),
    "bench": ("bench.harness.cli:main", "run the benchmark scenarios"),
    "compare": ("bench.regress.cli:main", "compare two benchmark runs and gate regressions"),
    "report": ("bench.report.cli:main", "draw the charts and the verdict table from results.json"),
    "runtimes": ("bench.runtimes.cli:main", "list the Python interpreters found, or build one"),
}

USAGE = (
    "usage: c10k COMMAND [options]  (c10k COMMAND --help for each)\n"
    "       c10k --version  (the version and the git commit of this copy)\n\ncommands:\n"
) + "".join(f"  {name:<9} {help_text}\n" for name, (_, help_text) in COMMANDS.items())


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand; when its output is closed early (`c10k ... | head -1`), end quietly
    with 128 + SIGPIPE, as a command-line tool does, instead of a traceback."""
    try:
        code = _run(sys.argv[1:] if argv is None else argv)
        sys.stdout.flush()  # a closed pipe shows here rather than at exit
    except BrokenPipeError:
        if not _stdout_closed():
            raise  # a pipe of our own broke (a child's): a failure, not the reader leaving
        # Python flushes stdout once more at exit: let that flush go nowhere.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    return code


def _stdout_closed() -> bool:
    """True when nobody reads stdout any more (a pipe whose reader has gone)."""
    try:
        poll = select.poll()
        poll.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & (select.POLLERR | select.POLLHUP) for _, events in poll.poll(0))
    except (OSError, ValueError):
        return False


def _run(args: list[str]) -> int:
    if not args or args[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0
    if args[0] in ("-V", "--version"):
        from c10k.version import version_line

        print(version_line())
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        sys.stderr.write(f"c10k: error: unknown command {name!r}\n{USAGE}")
        return 2
    module_name, _, function = COMMANDS[name][0].partition(":")
    command = getattr(importlib.import_module(module_name), function)
    code: int = command(rest)
    return code


if __name__ == "__main__":
    sys.exit(main())
