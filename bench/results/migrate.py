"""The one migration of an older results document: /1 in, /2 out."""

from __future__ import annotations

from typing import Any, cast

from bench.results.document import SAMPLE_FIELDS, SCHEMA, Results
from c10k import catalog


def migrate_v1(document: dict[str, Any]) -> Results:
    """A c10k-bench-results/1 document as /2, changed in place. /1 files were written by
    harnesses of every age; each field added since is filled with what those harnesses
    did without it, so that no reader needs to know older shapes. The derived section is
    kept as it was written (`python -m bench.analysis.derive` computes it afresh)."""
    document["schema"] = SCHEMA
    if "profile" in document:  # rounds ran in the catalog's order
        document["profile"].setdefault("order_seed", 0)
    document["environment"]["server"] = _server_place(document["environment"].get("server"))
    for run in document["runs"]:
        _migrate_run(run)
    highlights = document["derived"].get("highlights") or {}
    for name in (catalog.SLEEPY.name, catalog.SLEEPY_KEEP_ALIVE.name):
        if name in highlights:  # the median latency came with the keep-alive scenarios
            highlights[name].setdefault("latency_p50_ms", None)
    return cast(Results, document)


def _server_place(found: dict[str, Any] | None) -> dict[str, Any]:
    """environment.server in /2's shape: /1 harnesses ran remote sites through an agent (its
    URL kept as `agent`) and local ones with no record or `agent: null`."""
    if not found or not found.get("remote"):
        return {"remote": False, "ssh": None, "host": None}
    return {"remote": True, "ssh": None, "host": found.get("host"), "agent": found.get("agent")}


def _migrate_run(run: dict[str, Any]) -> None:
    params = run["params"]
    crawl = "concurrency" in params
    if crawl:
        params.setdefault("processes", 1)  # before `c10k crawl --processes`: one process
        params["server"].setdefault("addresses", 1)  # before `c10k serve --listen`: one
        params["server"].setdefault("root_latency", True)  # before `--root-now`: every page
    elif run["scenario"] == catalog.IDLE.name:
        params.setdefault("processes", 1)  # before the machine's thread ceiling (C5)
    run.setdefault("block", None)  # before paired rounds: no round blocks, no noisy rounds
    run.setdefault("again", 0)
    run.setdefault("noisy", False)
    if "round" not in run:
        # Before rounds were recorded the plan ran the repetitions round-robin all the same.
        run["round"] = run["repetition"] if crawl and run["kind"] == "measured" else None
    samples = run.get("samples")
    if samples:
        rows = len(samples["t"])
        for column in SAMPLE_FIELDS:
            if column not in samples:  # one process before `--processes`; others not read
                samples[column] = [1 if column == "processes" else None] * rows
