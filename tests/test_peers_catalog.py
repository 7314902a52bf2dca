"""A peer is not a model: kept out of every loop over models, run where it holds, and
reported as not installed without its extra (no Scrapy needed here)."""

from __future__ import annotations

import importlib.util
from typing import Any, cast

import pytest

from bench import interpreter
from bench.analysis import derive as derive_module
from bench.harness import cli as bench_cli
from bench.harness import plan as sc
from bench.harness.profiles import PROFILE_TABLE
from bench.harness.session import harness_runtime
from bench.harness.verify import verification_failures, verify
from bench.regress.suites import support
from bench.report.tables import peer_rows
from bench.results import Results
from c10k import catalog
from impls.cli.crawl import crawl_main
from tests.recorded import derive, runs_of

PEER = catalog.SCRAPY.name
real_find_spec = importlib.util.find_spec


@pytest.fixture
def without_scrapy(monkeypatch: pytest.MonkeyPatch) -> None:
    """find_spec answers None for scrapy, as where the [peers] extra is not installed."""

    def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        return None if name.partition(".")[0] == "scrapy" else real_find_spec(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


def test_a_peer_is_in_no_loop_over_models() -> None:
    assert PEER not in catalog.MODELS
    assert PEER not in sc.ALL_MODELS
    assert PEER in catalog.CRAWLERS and PEER in sc.ALL_CRAWLERS
    assert all(PEER not in pair for pair in ((a.name, b.name) for a, b in catalog.LOOP_PAIRS))


def test_the_plan_runs_a_peer_only_in_its_scenarios_and_up_to_its_ceiling() -> None:
    profile = PROFILE_TABLE["default"]
    plan = sc.build_plan(profile, [catalog.ASYNCIO.name, PEER], sc.SCENARIOS)
    mine = [r for r in plan if r.model == PEER]
    assert {r.scenario for r in mine} == set(catalog.SCRAPY.scenarios)
    assert all(r.point is not None for r in mine)
    assert max(r.point.concurrency for r in mine if r.point) <= catalog.SCRAPY.max_concurrency
    sleepy = profile.scenario(catalog.SLEEPY.name)
    assert any(p.concurrency > catalog.SCRAPY.max_concurrency for p in sleepy.points)
    assert all(r.kind == "measured" and r.repetition < catalog.SCRAPY.repetitions for r in mine)


def test_the_default_run_with_the_peer_fits_its_budget() -> None:
    profile = PROFILE_TABLE["default"]
    here = harness_runtime()
    models, _ = bench_cli.plan_models(sc.ALL_CRAWLERS, {here["tag"]: here["version"]})
    plan = sc.build_plan(profile, models, sc.SCENARIOS)
    skipped = bench_cli.unavailable_here(models) - {catalog.SCRAPY.name}
    assert sc.plan_estimate_s(plan, conditional=False, skipped=skipped) <= profile.budget_s


def test_crawl_without_the_extra_is_one_line_and_exit_2(
    without_scrapy: None, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        crawl_main(["http://127.0.0.1:9/", "--model", PEER])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "c10k crawl: error: scrapy is not installed: pip install 'c10k-bench[peers]'"
    ]


def test_bench_and_report_show_a_peer_not_installed(
    without_scrapy: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [
        {"name": m.name, "missing": m.missing(), "peer": m.name in catalog.PEERS}
        for m in catalog.CRAWLERS.values()
    ]
    monkeypatch.setattr(interpreter, "listed_models", lambda python: rows)
    skip = interpreter.missing_models([catalog.ASYNCIO.name, PEER])
    assert skip == {PEER: "scrapy is not installed: pip install 'c10k-bench[peers]'"}
    runs = [
        {
            "model": PEER,
            "scenario": s,
            "kind": "measured",
            "status": "skipped",
            "reason": skip[PEER],
        }
        | {"id": f"{s}/{PEER}", "params": {}}
        for s in catalog.SCRAPY.scenarios
    ]
    document = {"derived": {"peers": derive_module.derive_peers(runs_of(runs), {})}}
    [row] = peer_rows(cast(Results, document))
    assert "not installed" in row[8] and "scrapy" in row[0]


def test_a_peers_runs_stay_out_of_the_models_tables() -> None:
    run = {
        "model": PEER,
        "scenario": catalog.FEW_ACTIVE.name,
        "kind": "measured",
        "status": "failed-verification",
        "reason": "x",
        "id": "few-active/scrapy/c1",
        "round": 0,
        "params": {
            "concurrency": 1,
            "processes": 1,
            "server": {"latency": "0", "pages": 10, "shape": "deep"},
        },
        "verification": {"deviations": {"counted": {"base-href": 2}, "differences": {}}},
    }
    derived = derive([run], {})
    assert PEER not in derived.get(catalog.FEW_ACTIVE.name, {})
    [point] = derived["peers"][PEER]["scenarios"][catalog.FEW_ACTIVE.name]["by_point"]
    assert point["deviations"]["counted"] == {"base-href": 2}
    assert point["runs_by_status"] == {"failed-verification": 1}


def test_verification_says_why_a_peer_differs() -> None:
    root = "http://127.0.0.1:1"
    manifest = {"urls": {f"{root}/": 200, f"{root}/café": 200, f"{root}/gone": 404}}
    fetched = {f"{root}/": 500, f"{root}/caf%C3%A9": 200, f"{root}/more": 200}
    found = verify(fetched, manifest, 1, None, False, {"merged-by-fingerprint": 1})
    assert not found["ok"]
    assert found["deviations"] == {
        "counted": {"merged-by-fingerprint": 1},
        "differences": {"percent-encoded": 1, "missing": 1, "extra": 1, "other-outcome": 1},
    }
    assert "merged-by-fingerprint 1" in verification_failures(found)
    assert "deviations" not in verify(fetched, manifest, 1, None, False)


def test_the_regression_suite_never_runs_a_peer(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [
        {"name": m.name, "missing": [], "peer": m.name in catalog.PEERS}
        for m in catalog.CRAWLERS.values()
    ]
    monkeypatch.setattr(support, "listed_models", lambda: rows)
    assert support.available_models() == list(catalog.MODELS)
