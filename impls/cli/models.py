"""`c10k models`: list the crawler models, and what each needs that is not here."""

from __future__ import annotations

import argparse
import json
from typing import Any

from c10k.catalog import CRAWLERS, PEERS


def models_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="c10k models", description="List the crawler models.")
    parser.add_argument("--json", action="store_true", help="print a JSON list")
    args = parser.parse_args(argv)
    # "missing": modules not installed; "unavailable": why this interpreter cannot run it
    # whatever is installed (the catalog's runtime column), or None.
    rows: list[dict[str, Any]] = [
        {
            "name": m.name,
            "style": m.description,
            "missing": m.missing(),
            "peer": m.name in PEERS,
            "unavailable": m.unavailable(),
            "runs_on": m.runtimes.words(),
        }
        for m in CRAWLERS.values()
    ]
    if args.json:
        print(json.dumps(rows))
        return 0
    width = max(len(m) for m in CRAWLERS)
    for row in rows:
        note = f"  [missing: {', '.join(row['missing'])}]" if row["missing"] else ""
        if row["peer"] and row["missing"]:
            note = f"  [{PEERS[row['name']].install_hint()}]"
        if row["unavailable"]:
            note = f"  [{row['unavailable']}]"
        print(f"{row['name']:<{width}}  {row['style']} (CPython {row['runs_on']}){note}")
    return 0
