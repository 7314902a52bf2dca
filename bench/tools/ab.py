"""`python -m bench.tools.ab OLD NEW`: one site crawled by two source trees' models, interleaved.

A change's speed-up, measured in one run: the same `c10k serve` site, each model of each
tree crawling it in turn (OLD, NEW, OLD, NEW...), every crawl verified against the
manifest. A tree is a checkout of this project (e.g. `git worktree add /tmp/old HEAD~3`);
both run under this interpreter, so they share its packages.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.harness.commands import crawl_argv
from bench.harness.site import ServeOptions, Server
from bench.interpreter import listed_models
from c10k.stats import median

CRAWL_TIMEOUT_S = 600.0


def crawl(tree: Path, root: str, model: str, concurrency: int) -> dict[str, Any]:
    """One `c10k crawl --json` run from a source tree, as a subprocess in that tree."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        crawl_argv(root, model, concurrency),
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=CRAWL_TIMEOUT_S,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no stderr"])[-1]
        raise RuntimeError(f"{tree} {model}: exit {done.returncode}: {last}")
    document: dict[str, Any] = json.loads(done.stdout)
    return document


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.tools.ab", description=__doc__)
    p.add_argument("old", type=Path, help="the source tree before the change")
    p.add_argument("new", type=Path, help="the source tree after it")
    p.add_argument("--preset", default="docs", help="c10k serve --preset (default docs)")
    p.add_argument("--pages", type=int, default=500, help="pages of the site (default 500)")
    p.add_argument("--links", type=int, default=300, help="links a page (default 300)")
    p.add_argument("--concurrency", type=int, default=16, help="crawl concurrency (default 16)")
    p.add_argument("--reps", type=int, default=3, help="crawls per model and tree (default 3)")
    p.add_argument("--models", help="comma-separated models (default: all installed)")
    args = p.parse_args(argv)
    for tree in (args.old, args.new):
        if not (tree / "c10k" / "cli.py").is_file():
            p.error(f"{tree} is not a source tree of this project (no c10k/cli.py)")
    installed = [m["name"] for m in listed_models() if not m["missing"]]
    models = args.models.split(",") if args.models else installed
    unknown = sorted(set(models) - set(installed))
    if unknown:
        p.error(f"not an installed model: {', '.join(unknown)} (installed: {', '.join(installed)})")
    options = ServeOptions(args.pages, args.links, "docs", seed=0, preset=args.preset)
    server = Server(options)
    server.start()
    try:
        rows = measure(server, models, args)
    except (RuntimeError, subprocess.TimeoutExpired) as exc:
        print(f"python -m bench.tools.ab: error: {exc}", file=sys.stderr)
        return 1
    finally:
        server.stop()
    print(
        f"{'model':<16} {'old pages/s':>12} {'new pages/s':>12} {'speed-up':>9} "
        f"{'old CPU ms/page':>16} {'new CPU ms/page':>16}"
    )
    for model, old, new in rows:
        print(
            f"{model:<16} {old['pages_per_s']:12.1f} {new['pages_per_s']:12.1f} "
            f"{new['pages_per_s'] / old['pages_per_s']:8.2f}x "
            f"{old['cpu_ms_per_page']:16.2f} {new['cpu_ms_per_page']:16.2f}"
        )
    return 0


def measure(
    server: Server, models: list[str], args: argparse.Namespace
) -> list[tuple[str, dict[str, float], dict[str, float]]]:
    manifest = server.manifest["urls"]
    samples: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for rep in range(args.reps):
        for model in models:
            for side, tree in (("old", args.old), ("new", args.new)):
                document = crawl(tree, server.root, model, args.concurrency)
                if document["fetched"] != manifest:
                    raise RuntimeError(f"{side} {model}: the crawl differs from the manifest")
                samples.setdefault((model, side), []).append(document)
                print(
                    f"[{rep + 1}/{args.reps}] {model} {side}: {document['pages_per_s']:.1f} "
                    f"pages/s, {document['cpu_us_per_page'] / 1000:.2f} ms CPU/page",
                    file=sys.stderr,
                )

    def figures(documents: list[dict[str, Any]]) -> dict[str, float]:
        return {
            "pages_per_s": median([d["pages_per_s"] for d in documents]),
            "cpu_ms_per_page": median([d["cpu_us_per_page"] / 1000 for d in documents]),
        }

    return [(m, figures(samples[(m, "old")]), figures(samples[(m, "new")])) for m in models]


if __name__ == "__main__":
    sys.exit(main())
