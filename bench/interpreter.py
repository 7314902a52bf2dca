"""A `c10k` subcommand under an interpreter, and the models it can run there (asked, not imported).

The interpreter is this one unless told: a runtime's venv python (bench/runtimes). Every
stage of the benchmark starts its `c10k` processes through python_command.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

from c10k import catalog


def python_command(*args: str, python: str = sys.executable, module: str = "c10k.cli") -> list[str]:
    """Run a c10k subcommand (or another program of the project's, `python -m module`) with
    an interpreter (this one unless told: a runtime's venv python), never a crawler import
    in this process."""
    return [python, "-m", module, *args]


def listed_models(python: str = sys.executable) -> list[dict[str, Any]]:
    """`c10k models --json` under an interpreter: every model and the dependencies it misses
    there (asked, not imported).

    Raises subprocess.SubprocessError, OSError or ValueError when the listing fails."""
    done = subprocess.run(
        python_command("models", "--json", python=python),
        capture_output=True,
        timeout=60,
        check=True,
    )
    rows: list[dict[str, Any]] = json.loads(done.stdout)
    return rows


def missing_models(models: Sequence[str] | None, python: str = sys.executable) -> dict[str, str]:
    """Models (None: every one listed) that cannot run under an interpreter, too old for
    them or missing their dependencies, asked of its `c10k models --json` (no import here)."""
    try:
        rows = listed_models(python)
    except (subprocess.SubprocessError, OSError, ValueError) as exc:
        return {m: f"`c10k models` failed: {exc}" for m in models or catalog.CRAWLERS}
    known = {row["name"]: row["missing"] for row in rows}
    # Why the interpreter cannot run it whatever is installed (too old); not listed by a
    # checkout older than the field.
    refused = {row["name"]: row.get("unavailable") for row in rows}
    problems = {}
    for model in known if models is None else models:
        if model not in known:
            problems[model] = "not listed by `c10k models`"
        elif why := refused[model]:
            problems[model] = why
        elif peer := catalog.PEERS.get(model):
            if known[model]:
                problems[model] = peer.install_hint()
        elif known[model]:
            problems[model] = "missing " + ", ".join(known[model])
    return problems
