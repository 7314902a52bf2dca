"""The noise floor: a fixed CPU-bound loop, timed in its own process."""

# The work never changes, so every difference between two runs is the machine's: the host's
# other tenants, the CPU's clock, caches, where the kernel placed the pages. The harness runs
# it in several fresh processes on the crawler's CPUs; the spread of their CPU seconds is the
# least that any CPU figure of a crawl can vary on this machine (docs/results.md, noise floor).

from __future__ import annotations

import argparse
import json
import resource
import sys
import time

DEFAULT_ROUNDS = 300


def parse_links(rounds: int) -> int:
    """A crawler's kind of work, with no I/O: bytes split and decoded, dicts and sets filled."""
    page = b"".join(b'<p>text <a href="/p/%d/">link %d</a></p>\n' % (n, n) for n in range(200))
    seen: set[str] = set()
    found = 0
    for round_ in range(rounds):
        for chunk in page.split(b"<a href="):
            href = chunk.partition(b">")[0].strip(b'"').decode()
            seen.add(f"{href}?r={round_ % 7}")
            found += 1
        counts: dict[str, int] = {}
        for url in seen:
            counts[url[:6]] = counts.get(url[:6], 0) + 1
        found += len(counts)
    return found


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog=f"python -m {__spec__.name}",
        description="Run a fixed CPU-bound loop once; print its CPU and wall seconds as JSON.",
    )
    p.add_argument(
        "--rounds",
        type=int,
        default=DEFAULT_ROUNDS,
        help=f"how much work (default {DEFAULT_ROUNDS}: about 0.2 s on the dev VM)",
    )
    args = p.parse_args(argv)
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    before, started = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    found = parse_links(args.rounds)
    after, wall_s = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - started
    cpu_s = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    print(json.dumps({"rounds": args.rounds, "found": found, "cpu_s": cpu_s, "wall_s": wall_s}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
