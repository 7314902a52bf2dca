"""`c10k bench --check`: whether every run ended ok, for CI's smoke runs."""

from __future__ import annotations

import sys

from bench.results import Deviations, Results, Run
from c10k import catalog


def _peer_known(run: Run) -> bool:
    """A peer's run that --check lets pass: skipped as not installed (CI runs without the
    [peers] extra), or failed verification where the peer counted a deviation that changes
    which URLs it fetches (docs/contract.md, "The Scrapy peer"). It stays in the report."""
    if run.get("model") not in catalog.PEERS:
        return False
    if run["status"] == "skipped":
        return True
    verification = run.get("verification")
    none: Deviations = {"counted": {}, "differences": {}}
    deviations = (verification.get("deviations") if verification else None) or none
    counted = set(deviations["counted"]) - {"keep-alive-not-close"}
    explained = counted or "percent-encoded" in deviations["differences"]
    return run["status"] == "failed-verification" and bool(explained)


def _a_finding(run: Run) -> bool:
    """A failed verification of a model whose catalog entry holds a finding (a loop of the
    league that the contract tests found wrong): the report's row for it, not an error."""
    model = catalog.CRAWLERS.get(run.get("model", ""))
    return run["status"] == "failed-verification" and model is not None and bool(model.finding)


def _unavailable(run: Run) -> bool:
    """A run of a model or idle kind that the catalog's runtime column says its runtime
    cannot run (the interpreters model on 3.11, gevent on 3.14t): skipped or unavailable,
    as it must be."""
    name = run.get("model", "")
    entry = catalog.CRAWLERS.get(name) or catalog.IDLE_KINDS.get(name)
    runtime = run.get("runtime")
    if entry is None or runtime is None or run["status"] not in ("skipped", "unavailable"):
        return False
    return entry.runtimes.needs(runtime["tag"], runtime["version"]) is not None


def check_runs(document: Results) -> int:
    """For --check: 0 when every run ended ok (or is a peer's known absence or deviation,
    _peer_known; a contender its runtime cannot run, _unavailable; or a finding, _a_finding),
    else 1 with one line per run that did not."""
    bad = [
        run
        for run in document["runs"]
        if run["status"] != "ok" and not (_peer_known(run) or _unavailable(run) or _a_finding(run))
    ]
    for run in bad:
        sys.stderr.write(f"c10k bench --check: {run['id']}: {run['status']}: {run['reason']}\n")
    if bad:
        sys.stderr.write(f"c10k bench --check: {len(bad)} of {len(document['runs'])} runs not ok\n")
    return 1 if bad else 0
