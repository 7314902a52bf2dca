"""`c10k bench --check`: the CI smoke run fails when any run did not end ok."""

from __future__ import annotations

from bench.harness.cli import check_runs


def test_check_passes_when_every_run_ended_ok() -> None:
    assert check_runs({"runs": [{"id": "a", "status": "ok", "reason": ""}]}) == 0


def test_check_fails_when_a_run_did_not_end_ok() -> None:
    ok = {"id": "a", "status": "ok", "reason": ""}
    bad = {"id": "b", "status": "failed-verification", "reason": "fetched != manifest"}
    assert check_runs({"runs": [ok, bad]}) == 1
