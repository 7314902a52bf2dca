"""The one migration of an older results document (/1 or /2) to /3."""

from __future__ import annotations

import re
from typing import Any, cast

from bench.results.document import SAMPLE_FIELDS, SCHEMA, SCHEMA_V1, Results
from bench.results.identity import Block, PointKey
from c10k import catalog
from c10k.durations import parse_latency

# A /2 run's id: a crawl's point in it, a round's block, a sentinel's wait after its label.
_POINT = re.compile(r"/c(\d+)(?:/p(\d+))?(?:/([a-z]+))?/s(\d+)/")
_BLOCK = re.compile(r"(.+)/s(\d+)/round(\d+)")
_WAIT = re.compile(r"-wait(\d+)$")


def migrate(document: dict[str, Any]) -> Results:
    """An older results document as /3, changed in place: each field added since is filled
    with what older harnesses did without it, so that no reader needs to know older shapes.
    Each run's id is parsed here, once, into its typed identity, and each latency into
    seconds. The derived section is dropped: `python -m bench.analysis.derive FILE` computes
    it afresh from the runs, and `c10k report` asks for that."""
    if document["schema"] == SCHEMA_V1:
        _v1_to_v2(document)
    document["schema"] = SCHEMA
    document.pop("derived", None)
    for run in document["runs"]:
        params = run.setdefault("params", {})
        _identity(run)
        server = params.get("server")
        if server is not None:
            server["latency"] = parse_latency(server.get("latency", "0"))
            server.setdefault("parts", 1)  # before `c10k serve --parts`: one part
            params.setdefault("core", catalog.CORE_C)  # before `--core`: the C core
    chosen = document.get("profile", {}).get("latencies")
    if chosen:
        for point in chosen["points"]:
            point["written"] = parse_latency(point["written"])
            point["latency"] = parse_latency(point["latency"])
        if chosen["cost"]:
            chosen["cost"]["latency"] = parse_latency(chosen["cost"]["latency"])
    return cast(Results, document)


def _identity(run: dict[str, Any]) -> None:
    """A /2 run's point, block and wait from its id and block labels."""
    point = _POINT.search(run["id"]) if "concurrency" in run["params"] else None
    run["point"] = point and PointKey(
        int(point[1]), int(point[2] or 1), point[3] or catalog.CORE_C, int(point[4])
    )
    wait = _WAIT.search(run["id"])
    run["wait"] = int(wait[1]) if wait else 0
    # A sentinel kept as a wait had no block in /2: it keeps its round's in /3.
    block = run["block"] or (run["id"].rsplit("/", 1)[0] if wait else None)
    found = _BLOCK.fullmatch(block) if block else None
    run["block"] = found and Block(found[1], int(found[2]), int(found[3]))


def _v1_to_v2(document: dict[str, Any]) -> None:
    """A /1 document as /2 (its derived section aside, which /3 drops)."""
    if "profile" in document:  # rounds ran in the catalog's order
        document["profile"].setdefault("order_seed", 0)
    document["environment"]["server"] = _server_place(document["environment"].get("server"))
    for run in document["runs"]:
        _migrate_run(run)


def _server_place(found: dict[str, Any] | None) -> dict[str, Any]:
    """environment.server in /2's shape: /1 harnesses ran remote sites through an agent, which
    /2 has no field for, and local ones with no record or `agent: null`."""
    if not found or not found.get("remote"):
        return {"remote": False, "ssh": None, "host": None}
    return {"remote": True, "ssh": None, "host": found.get("host")}


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
