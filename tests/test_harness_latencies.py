"""The sleepy points' latencies, chosen at a session's start from the server's measured cost:
the rule (pure), the profile and plan it makes, and the probe that measures the cost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.harness import cli as bench_cli
from bench.harness import latencies, server_cost
from bench.harness import session as harness_session
from bench.harness.cores import plan_pinning
from bench.harness.latencies import choose_latency, cpu_between, with_latencies
from bench.harness.plan import SCENARIOS, build_plan
from bench.harness.points import LatencyRule
from bench.harness.profiles import PROFILE_TABLE, THROUGHPUT_POINT
from bench.harness.shapes import sleepy_timeout_s
from bench.report.conditions import cores_section
from bench.report.layout import Paragraph, plain
from bench.results import ServerCost, ServerProbe
from c10k import catalog
from c10k.durations import Latency

MEMORY = LatencyRule()
# The dev VM's cost (µs): a connection as a wave of 10,000 opens, a request at its core.
HERE = (160e-6, 225e-6)


def slower(factor: float) -> tuple[float, float]:
    return HERE[0] * factor, HERE[1] * factor


@pytest.mark.parametrize(
    ("cost", "concurrency", "rule", "expected_s"),
    [
        # The dev VM picks today's latencies: 2 s for every memory point, 10 s for C10K.
        (HERE, 1000, MEMORY, 2.0),
        (HERE, 10_000, MEMORY, 2.0),
        (HERE, 10_000, THROUGHPUT_POINT, 10.0),
        # A server 2.5x slower: 10,000 connections open in 4 s, C/L at 10 s asks 56%.
        (slower(2.5), 3000, MEMORY, 2.0),
        (slower(2.5), 10_000, MEMORY, 5.0),
        (slower(2.5), 10_000, THROUGHPUT_POINT, 20.0),
        # 3x slower: 4.8 s to open them, 5 s would leave no room.
        (slower(3.0), 10_000, MEMORY, 10.0),
        (slower(3.0), 10_000, THROUGHPUT_POINT, 30.0),
        # A rule may start past the ladder's first rung (c100k's written latencies).
        (HERE, 10_000, LatencyRule(least_s=10.0), 10.0),
    ],
)
def test_the_rule_picks_the_shortest_rung_that_meets_the_points_condition(
    cost: tuple[float, float], concurrency: int, rule: LatencyRule, expected_s: float
) -> None:
    found = choose_latency(concurrency, *cost, rule)
    assert found.latency_s == expected_s and found.met
    assert found.ramp_share <= latencies.PEAK_SHARE
    assert found.load <= latencies.LOAD_SHARE or not rule.judges_throughput


def test_past_the_ladder_the_last_rung_runs_and_says_the_rule_was_not_met() -> None:
    found = choose_latency(100_000, 1e-3, 1e-3, MEMORY)
    assert found.latency_s == latencies.LADDER_S[-1] and not found.met
    assert found.ramp_share == pytest.approx(100_000 * 1e-3 / latencies.LADDER_S[-1])


def probe(ramp_s: float, ramp_cpu_s: float | None, cpu_s: float) -> ServerProbe:
    return {
        "ramp_s": ramp_s,
        "ramp_cpu_s": ramp_cpu_s,
        "cpu_s": cpu_s,
        "requests": 10_001,
        "peak_in_flight": 10_000,
    }


def test_the_cost_is_each_probes_ramp_and_cpu_over_the_share_of_a_core_it_had() -> None:
    # A server held to 35% of a core: the same CPU a request, three times the wall time.
    probes = [probe(4.9, 1.7, 2.3), probe(4.7, 1.65, 2.2), probe(5.0, 1.75, 2.4)]
    cost = latencies.server_cost(probes, 10_000, Latency("fixed", 2.0), "callbacks")
    assert cost["connect_us"] == pytest.approx(490.0)
    assert cost["connect_us_range"] == pytest.approx([470.0, 500.0])
    assert cost["share"] == pytest.approx(0.35, abs=0.01)
    assert cost["request_us"] == pytest.approx(2.3 / 10_001 / (1.7 / 4.9) * 1e6)
    # Its CPU not sampled (a server on another host): a whole core assumed.
    remote = latencies.server_cost(
        [probe(1.6, None, 2.2)], 10_000, Latency("fixed", 2.0), "callbacks"
    )
    assert remote["share"] == 1.0 and remote["request_us"] == pytest.approx(2.2 / 10_001 * 1e6)


def test_the_cpu_between_two_times_is_read_off_the_samples() -> None:
    samples = [(10.0, 1.0), (10.1, 1.1), (10.2, 1.15), (10.3, 1.25)]
    assert cpu_between(samples, 10.05, 10.25) == pytest.approx(1.2 - 1.05)
    assert cpu_between(samples, 9.0, 10.2) is None  # before the first sample


def cost(connect_us: float, request_us: float) -> ServerCost:
    return {
        "connections": 10_000,
        "latency": Latency("fixed", 2.0),
        "model": "callbacks",
        "probes": [],
        "connect_us": connect_us,
        "connect_us_range": [connect_us, connect_us],
        "share": 1.0,
        "share_range": [1.0, 1.0],
        "request_us": request_us,
        "request_us_range": [request_us, request_us],
    }


def latency_of(plan: list[Any], scenario: str, concurrency: int) -> set[tuple[str, float]]:
    return {
        (r.point.server.latency.text, r.params["timeout_s"])
        for r in plan
        if r.scenario == scenario and r.point and r.point.concurrency == concurrency
    }


def test_the_plan_runs_each_point_at_its_chosen_latency_and_scales_its_timeout() -> None:
    default = PROFILE_TABLE[catalog.DEFAULT.name]
    slow, record = with_latencies(default, list(SCENARIOS), cost(480.0, 675.0))
    plan = build_plan(slow, ["asyncio"], list(SCENARIOS))
    keep_alive = catalog.SLEEPY_KEEP_ALIVE.name
    assert latency_of(plan, catalog.SLEEPY.name, 1000) == {("2s", 30.0)}
    assert latency_of(plan, catalog.SLEEPY.name, 10_000) == {("10s", sleepy_timeout_s(10.0))}
    assert latency_of(plan, keep_alive, 10_000) == {("10s", 100.0), ("30s", 300.0)}
    judged = [p for p in record["points"] if p["judges_throughput"]]
    assert [(p["scenario"], p["written"].text, p["latency"].text) for p in judged] == [
        (keep_alive, "10s", "30s")
    ]
    assert record["cost"] is not None and record["error"] is None
    # The rest of the profile is as written; without a cost, all of it.
    assert latency_of(plan, catalog.LATENCY_SWEEP.name, 100) == latency_of(
        build_plan(default, ["asyncio"], list(SCENARIOS)), catalog.LATENCY_SWEEP.name, 100
    )
    same, unmeasured = with_latencies(default, list(SCENARIOS), None, "no probe")
    assert same == default and unmeasured["points"] == [] and unmeasured["error"] == "no probe"


@pytest.fixture
def measured(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The probe, replaced by a server three times slower than the dev VM's (no crawl)."""
    asked: list[int] = []

    def measure(connections: int, pinning: Any, host: Any) -> tuple[ServerCost, None]:
        asked.append(connections)
        return cost(480.0, 675.0), None

    monkeypatch.setattr(harness_session, "measure_server_cost", measure)
    monkeypatch.setattr(harness_session, "missing_models", lambda models, python: {})
    return asked


def test_the_probes_cost_feeds_the_plan_and_the_results_record_the_choice(
    tmp_path: Path, measured: list[int]
) -> None:
    args = bench_cli.parser().parse_args(
        ["--profile", "default", "--models", "asyncio", "--scenarios", "sleepy", "--pin", "off"]
    )
    args.seed = 0
    default = PROFILE_TABLE[catalog.DEFAULT.name]
    plan = build_plan(default, args.models, args.scenarios)
    harness = harness_session.harness_runtime()
    session = harness_session.start_session(args, default, plan, [harness])
    assert measured == [10_000]  # sleepy's largest point
    assert latency_of(session.plan, catalog.SLEEPY.name, 10_000) == {("10s", 100.0)}
    assert session.profile.budget_s > default.budget_s  # the longer waits added to it
    lane = harness_session.new_lane(args, session, tmp_path, harness, ["c10k"])
    recorded = lane.store.document["profile"]["latencies"]
    assert {(p["concurrency"], p["latency"].text) for p in recorded["points"]} == {
        (1000, "2s"),
        (3000, "2s"),
        (10_000, "10s"),
    }
    # What depends on L follows it: the runs' estimates, and so the kill time of each.
    planned = {e["id"]: e["estimate_s"] for e in lane.store.document["plan"]}
    longer = [r for r in plan if "/c10000/" in r.id]
    assert longer and all(planned[r.id] > r.estimate_s for r in longer)
    # The report says it where it describes the points.
    text = [plain(b.spans) for b in cores_section(lane.store.document) if isinstance(b, Paragraph)]
    assert any(t.startswith("Sleepy latencies chosen") and "sleepy 10s" in t for t in text)


def test_no_probe_runs_when_no_planned_point_chooses(measured: list[int]) -> None:
    args = bench_cli.parser().parse_args(["--profile", "default", "--scenarios", "few-active"])
    args.seed, args.pin = 0, "off"
    default = PROFILE_TABLE[catalog.DEFAULT.name]
    plan = build_plan(default, args.models, args.scenarios)
    session = harness_session.start_session(
        args, default, plan, [harness_session.harness_runtime()]
    )
    assert measured == [] and session.plan == plan and args.latencies is None
    quick = PROFILE_TABLE[catalog.QUICK.name]
    assert latencies.chooses(quick, list(SCENARIOS)) == 0  # CI's smoke run probes nothing


def test_a_probe_against_the_real_server_measures_its_ramp_and_its_cost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(server_cost, "PROBE_REPEATS", 1)
    found, error = server_cost.measure_server_cost(200, plan_pinning("off"))
    assert error is None and found is not None
    (one,) = found["probes"]
    assert one["requests"] == 201 and one["peak_in_flight"] == 200
    assert one["ramp_s"] > 0 and one["ramp_cpu_s"] is not None
    assert found["connect_us"] > 0 and found["request_us"] > 0 and 0 < found["share"] <= 1


def test_the_dry_run_says_the_latencies_are_chosen_at_the_start(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert bench_cli.main(["--profile", "default", "--dry-run"]) == 0
    assert "from which the sleepy points' latencies are chosen" in capsys.readouterr().out
    assert bench_cli.main(["--profile", "quick", "--dry-run"]) == 0
    assert "latencies are chosen" not in capsys.readouterr().out
