"""`c10k bench --check`: the CI smoke run fails when any run did not end ok (a peer's known
absence or counted deviation aside)."""

from __future__ import annotations

from typing import cast

from bench.harness.runner import check_runs
from bench.results import Results
from c10k import catalog


def document(*runs: object) -> Results:
    """A results document reduced to the runs --check reads."""
    return cast(Results, {"runs": list(runs)})


def test_check_passes_when_every_run_ended_ok() -> None:
    assert check_runs(document({"id": "a", "status": "ok", "reason": ""})) == 0


def test_check_fails_when_a_run_did_not_end_ok() -> None:
    ok = {"id": "a", "status": "ok", "reason": ""}
    bad = {"id": "b", "status": "failed-verification", "reason": "fetched != manifest"}
    assert check_runs(document(ok, bad)) == 1


def peer_run(status: str, counted: dict[str, int]) -> dict[str, object]:
    return {
        "id": "realistic/scrapy/c16/s6/measured0",
        "model": "scrapy",
        "status": status,
        "reason": "fetched != manifest (missing 1)",
        "verification": {"deviations": {"counted": counted, "differences": {"missing": 1}}},
    }


def test_check_lets_a_peer_pass_only_where_its_absence_or_deviation_is_known() -> None:
    ok = {"id": "a", "model": "asyncio", "status": "ok", "reason": ""}
    not_installed = {"id": "p", "model": "scrapy", "status": "skipped", "reason": "pip install"}
    assert check_runs(document(ok, not_installed)) == 0
    merged = peer_run("failed-verification", {"merged-by-fingerprint": 1})
    assert check_runs(document(ok, merged)) == 0
    # A difference the peer did not count, or a model's failure, still fails the check.
    unexplained = peer_run("failed-verification", {"keep-alive-not-close": 54})
    assert check_runs(document(ok, unexplained)) == 1
    crashed = peer_run("crashed", {"merged-by-fingerprint": 1})
    assert check_runs(document(ok, crashed)) == 1
    model = {**merged, "model": "asyncio"}
    assert check_runs(document(ok, model)) == 1


def test_check_lets_a_models_failed_verification_pass_only_where_its_catalog_has_a_finding() -> (
    None
):
    ok = {"id": "a", "model": "asyncio", "status": "ok", "reason": ""}
    found = [m.name for m in catalog.MODELS.values() if m.finding]
    assert found  # a loop of the league with a finding (veloxloop's)
    wrong = {"id": "b", "model": found[0], "status": "failed-verification", "reason": "differ"}
    assert check_runs(document(ok, wrong)) == 0
    assert check_runs(document(ok, {**wrong, "status": "crashed"})) == 1
    assert check_runs(document(ok, {**wrong, "model": "asyncio-uvloop"})) == 1


def test_check_lets_a_run_pass_that_its_runtime_cannot_make_by_the_catalog() -> None:
    gevent = {
        "id": "g",
        "model": catalog.GEVENT.name,
        "status": "skipped",
        "reason": "unavailable on 3.14t",
        "runtime": {"tag": "3.14t", "version": "3.14.7"},
    }
    assert check_runs(document(gevent)) == 0
    assert check_runs(document({**gevent, "runtime": {"tag": "3.14", "version": "3.14.7"}})) == 1
