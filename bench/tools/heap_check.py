"""`python -m bench.tools.heap_check`: one sleepy point, N runs under each allocator condition."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from typing import Any

from bench.analysis.plateau import run_plateau
from bench.arguments import OneLineParser
from bench.harness.cores import split_cpus
from bench.harness.heap import HASH_SEED_MAX, memory_env
from bench.harness.plan import PlannedRun
from bench.harness.recipes import run_crawl
from bench.harness.shapes import sleepy_points
from bench.harness.site import Server
from bench.results import Heap
from c10k.catalog import MODELS

# Each condition: (pin glibc's thresholds, pad the environment by a random length).
CONDITIONS = {
    "as-is": (False, False),  # the harness's own environment: no pinned thresholds, no padding
    "padded": (False, True),
    "pinned": (True, False),
    "steady": (True, True),  # what the sleepy scenario uses (bench/harness/heap.py)
}
SAMPLE_INTERVAL_S = 0.1


def condition_env(
    name: str, hash_seed: int | None = None
) -> tuple[dict[str, str] | None, Heap | dict[str, Any]]:
    """The crawler's environment under one condition (None: the harness's own), with this
    hash seed (None: one drawn for the run)."""
    pinned, padded = CONDITIONS[name]
    if not pinned and not padded:
        return None, {}
    return memory_env(pad=None if padded else 0, pinned=pinned, hash_seed=hash_seed)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = OneLineParser(
        prog="python -m bench.tools.heap_check",
        description="Run one sleepy point (L = 2 s, pinned like the benchmark) several times "
        "per allocator condition and print each run's plateau RSS and the spread per "
        "condition: the conditions under which the memory fit holds still between sessions "
        "(docs/notes/2026-11-25-heap-layout-and-glibc-thresholds.md). About 5-30 s a run.",
    )
    parser.add_argument(
        "--model", required=True, choices=list(MODELS), metavar="MODEL", help=", ".join(MODELS)
    )
    parser.add_argument("--concurrency", type=int, default=3000, help="C (default 3000)")
    parser.add_argument(
        "--waves", type=int, default=2, help="pages per connection (default 2; 4: per URL)"
    )
    parser.add_argument("--runs", type=int, default=4, help="runs per condition (default 4)")
    parser.add_argument(
        "--hash-seed",
        type=int,
        default=None,
        metavar="N",
        help="every run's PYTHONHASHSEED (default: one drawn per run, as the benchmark does; "
        "as-is keeps the harness's own)",
    )
    parser.add_argument(
        "--conditions",
        default="as-is,steady",
        help="comma-separated, from: " + ", ".join(CONDITIONS) + " (default as-is,steady)",
    )
    parser.add_argument(
        "--python", default=sys.executable, help="the crawler's interpreter (another install)"
    )
    parser.add_argument("--json", action="store_true", help="print the runs as JSON at the end")
    args = parser.parse_args(argv)
    args.conditions = [c.strip() for c in args.conditions.split(",") if c.strip()]
    unknown = [c for c in args.conditions if c not in CONDITIONS]
    if unknown or not args.conditions:
        parser.error(f"unknown condition: {', '.join(unknown) or '(none)'}")
    if not 1 <= args.concurrency <= 10_000 or not 1 <= args.waves <= 10 or args.runs < 1:
        parser.error("need 1 <= --concurrency <= 10000, 1 <= --waves <= 10 and --runs >= 1")
    if args.hash_seed is not None and not 0 <= args.hash_seed < HASH_SEED_MAX:
        parser.error(f"--hash-seed must be 0 to {HASH_SEED_MAX - 1}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    cpus = split_cpus(os.sched_getaffinity(0))
    if cpus is not None:
        os.sched_setaffinity(0, cpus.server)
    point = sleepy_points((args.concurrency,), 2.0, args.waves)[0]
    server = Server(point.server, cpus.server if cpus else None)
    server.start()
    runs: list[dict[str, Any]] = []
    try:
        for condition in args.conditions:
            held = []
            for n in range(args.runs):
                env, heap = condition_env(condition, args.hash_seed)
                run = PlannedRun(
                    id=f"heap-check/{args.model}/{condition}/{n}",
                    scenario="sleepy",
                    model=args.model,
                    kind="measured",
                    repetition=n,
                    point=point,
                    estimate_s=point.estimate_s(args.model),
                    params={"concurrency": args.concurrency},
                )
                record = run_crawl(run, server, SAMPLE_INTERVAL_S, cpus, args.python, env)
                plateau = run_plateau(record)
                rss = plateau.get("rss_kib")
                runs.append(
                    {"condition": condition, "status": record["status"], "heap": heap}
                    | {"rss_kib": rss, "anon_kib": plateau.get("anon_kib")}
                )
                print(
                    f"{condition:7} run {n + 1}/{args.runs}: {record['status']}, plateau RSS "
                    f"{rss} KiB, padding {heap.get('layout_pad_bytes', 0)} B, "
                    f"hash seed {heap.get('hash_seed', '-')}",
                    flush=True,
                )
                if record["status"] == "ok" and rss is not None:
                    held.append(rss)
            if len(held) > 1:
                print(
                    f"{condition:7} spread {max(held) - min(held)} KiB, "
                    f"sd {statistics.stdev(held):.0f} KiB over {len(held)} runs",
                    flush=True,
                )
    except KeyboardInterrupt:
        return 130
    finally:
        server.stop()
    if args.json:
        print(json.dumps(runs, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
