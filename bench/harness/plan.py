"""The plan of runs a profile makes: warm-ups, paired rounds with their sentinels, estimates."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Literal, cast

from bench.analysis.paired import compared_models
from bench.harness.costs import CPU_LOOP_S, SERVER_START_S
from bench.harness.points import CrawlPoint, IdleSpec, Profile, Scenario
from bench.harness.site import ServeOptions
from bench.results import (
    Block,
    PointKey,
    Run,
    RunParams,
    RunStatus,
    SiteParams,
    utc_now,
)
from c10k import catalog

ALL_MODELS: tuple[str, ...] = tuple(catalog.MODELS)
# What `c10k bench --models` accepts and runs by default: the models, then the peers (each
# only in its own scenarios, up to its concurrency ceiling: runs_at).
ALL_CRAWLERS: tuple[str, ...] = tuple(catalog.CRAWLERS)
SCENARIOS: tuple[str, ...] = tuple(catalog.SCENARIOS)


@dataclass(frozen=True)
class PlannedRun:
    """One subprocess the harness will start: a crawl, an idle program or the fixed CPU loop."""

    id: str
    scenario: str
    model: str  # the crawler model, or the idle kind
    kind: Literal["warmup", "measured", "sentinel"]
    repetition: int
    point: CrawlPoint | None = None
    idle: IdleSpec | None = None
    estimate_s: float = 0.0
    server_key: int = -1  # runs with the same key share one server process
    counted: bool = False  # run under callgrind for instructions per page, not sampled
    params: RunParams = field(default_factory=lambda: RunParams())
    steady_heap: bool = False  # its scenario's steady_heap
    # The paired round the run belongs to (build_plan), after its sentinel: the fixed CPU
    # loop, which says whether the machine was quiet.
    block: Block | None = None
    conditional: bool = False  # a round past the minimum: run while a comparison is open

    @property
    def round(self) -> int | None:
        """Its block's round: rep k of every model at a point runs in round k, so ratios pair
        by it; None outside a paired round."""
        return self.block.round if self.block is not None else None

    @property
    def key(self) -> PointKey | None:
        """A crawl's point, as its record names it; None for other runs."""
        point = self.point
        if point is None:
            return None
        return PointKey(point.concurrency, point.processes, point.core, self.server_key)

    @property
    def timeout_s(self) -> float:
        """The hard limit after which the harness kills the run."""
        return 3 * self.estimate_s + 30


def run_params(point: CrawlPoint, keep_alive: bool = False) -> RunParams:
    return {
        "concurrency": point.concurrency,
        "keep_alive": keep_alive,
        "timeout_s": point.timeout_s,
        "max_tries": point.max_tries,
        "check_peak": point.check_peak,
        "processes": point.processes,
        "core": point.core,
        "interpreters": point.interpreters,
        "server": cast(SiteParams, dict(vars(point.server))),
    }


def base_record(run: PlannedRun) -> Run:
    """A run's record before it runs: what the plan says, and 'crashed' until it ends."""
    return {
        "id": run.id,
        "scenario": run.scenario,
        "model": run.model,
        "kind": run.kind,
        "repetition": run.repetition,
        "point": run.key,
        "round": run.round,
        "params": run.params,
        "estimate_s": run.estimate_s,
        "started_at": utc_now(),
        "status": "crashed",
        "reason": "no result",
        "block": run.block,
        "again": 0,
        "wait": 0,
        "noisy": False,
    }


def ended(record: Run, status: RunStatus, reason: str | None) -> Run:
    record["status"], record["reason"] = status, reason
    return record


def build_plan(
    profile: Profile, models: Sequence[str], scenarios: Sequence[str], order_seed: int = 0
) -> list[PlannedRun]:
    """Every run in order: per scenario its CPU loops and idle runs, then, per server (the
    points that share one site), warm-ups at the scenario's first point, then paired rounds:
    every model at each of those points once, back to back, in an order shuffled afresh for
    each round from order_seed, after a sentinel run of the fixed CPU loop. A drift of the
    machine then hits every model alike, and ratios pair by round. Rounds past a point's
    repetitions, up to its cap, are conditional (run while a comparison judged there is open).
    """
    plan: list[PlannedRun] = []
    server_keys: dict[ServeOptions, int] = {}
    for scenario in profile.scenarios:
        if scenario.name not in scenarios:
            continue
        plan += [
            _cpu_loop(scenario, f"{scenario.name}/{catalog.CPU_LOOP}/{n}", "measured", n)
            for n in range(scenario.loops)
        ]
        if scenario.idle:
            plan += _idle_runs(scenario)
            continue
        groups: dict[int, list[CrawlPoint]] = {}
        for point in scenario.points:
            key = server_keys.setdefault(point.server, len(server_keys))
            groups.setdefault(key, []).append(point)
        for index, (key, points) in enumerate(groups.items()):
            plan += _warmup_runs(scenario, points[0], key, models) if index == 0 else []
            plan += _round_runs(scenario, points, key, models, order_seed)
    return plan


def _cpu_loop(
    scenario: Scenario,
    run_id: str,
    kind: Literal["measured", "sentinel"],
    repetition: int,
    block: Block | None = None,
    conditional: bool = False,
) -> PlannedRun:
    """A run of the fixed CPU loop; in a block, its sentinel (of the round `repetition`)."""
    return PlannedRun(
        id=run_id,
        scenario=scenario.name,
        model=catalog.CPU_LOOP,
        kind=kind,
        repetition=repetition,
        estimate_s=CPU_LOOP_S,
        block=block,
        conditional=conditional,
    )


def _idle_runs(scenario: Scenario) -> list[PlannedRun]:
    return [
        PlannedRun(
            id=f"idle/{spec.kind}/{spec.mode}/{spec.count}/{n}",
            scenario=scenario.name,
            model=spec.kind,
            kind="measured",
            repetition=0,
            idle=spec,
            estimate_s=spec.estimate_s(),
            params=cast(RunParams, asdict(spec)),
        )
        for n, spec in enumerate(scenario.idle)
    ]


def _warmup_runs(
    scenario: Scenario, point: CrawlPoint, key: int, models: Sequence[str]
) -> list[PlannedRun]:
    """The scenario's warm-ups of every model (peers have none), at its first point."""
    here = [m for m in _models_at(scenario, point, models) if m not in catalog.PEERS]
    return [
        _crawl_run(scenario, model, "warmup", w, point, key)
        for w in range(scenario.warmups)
        for model in here
    ]


def rounds_at(scenario: Scenario, point: CrawlPoint) -> tuple[int, int]:
    """The rounds a point always runs, and the most it runs (its cap)."""
    minimum = point.repetitions or scenario.repetitions
    return minimum, max(minimum, point.cap or scenario.cap or 0)


def _round_runs(
    scenario: Scenario,
    points: list[CrawlPoint],
    key: int,
    models: Sequence[str],
    order_seed: int,
) -> list[PlannedRun]:
    """The paired rounds at the points of one server, each after its sentinel. A round past
    a point's repetitions is conditional, and holds only the models a comparison needs."""
    plan: list[PlannedRun] = []
    compared = compared_models(scenario.name)
    for r in range(max(rounds_at(scenario, p)[1] for p in points)):
        block = Block(scenario.name, key, r)
        runs = [
            _crawl_run(scenario, model, "measured", r, point, key, block, r >= minimum)
            for point in points
            for minimum, cap in [rounds_at(scenario, point)]
            if r < cap
            for model in _round_order(scenario, point, models, f"{order_seed}:{block.label}")
            if r < repetitions_of(model, cap) and (r < minimum or model in compared)
        ]
        if runs and not scenario.counted:  # a count under callgrind does not feel the noise
            conditional = all(run.conditional for run in runs)
            # The fixed CPU loop before the round, on the crawler's CPUs: was the machine quiet?
            label = f"{block.label}/{catalog.CPU_LOOP}"
            runs.insert(0, _cpu_loop(scenario, label, "sentinel", r, block, conditional))
        plan += runs
    return plan


def _models_at(scenario: Scenario, point: CrawlPoint, models: Sequence[str]) -> list[str]:
    """The run's models (and peers) that run at this point."""
    return [
        m
        for m in models
        if runs_at(m, scenario.name, point.concurrency, point.processes)
        and (point.models is None or m in point.models)
    ]


def _round_order(
    scenario: Scenario, point: CrawlPoint, models: Sequence[str], seed: str
) -> list[str]:
    """The point's models in this round's order; a counted scenario adds the core alone (a
    replay, no I/O) beside them, in the catalog's order (a count does not drift)."""
    here = _models_at(scenario, point, models)
    if scenario.counted:
        return [*here, catalog.CORE_REPLAY]
    random.Random(seed).shuffle(here)
    return here


def runs_at(crawler: str, scenario: str, concurrency: int, processes: int = 1) -> bool:
    """A model runs everywhere but where its scenario leaves out threads (a thread per worker),
    past its ceiling (catalog.Model.max_concurrency), and at points of several processes if
    it cannot run as several (the interpreters model); a peer only in its scenarios and up
    to its ceiling."""
    about = catalog.SCENARIOS.get(scenario)
    model = catalog.MODELS.get(crawler)
    if model is not None:
        if processes > 1 and not model.processes:
            return False
        if model.max_concurrency and concurrency > model.max_concurrency:
            return False
        return about is None or about.thread_workers or not model.thread_per_worker
    peer = catalog.PEERS.get(crawler)
    return peer is None or (scenario in peer.scenarios and concurrency <= peer.max_concurrency)


def repetitions_of(crawler: str, repetitions: int) -> int:
    """A peer is a reference line, not a measured comparison: no warm-up and at most
    Peer.repetitions runs per point (it keeps the default profile within its budget)."""
    peer = catalog.PEERS.get(crawler)
    return repetitions if peer is None else min(repetitions, peer.repetitions)


def _crawl_run(
    scenario: Scenario,
    model: str,
    kind: Literal["warmup", "measured"],
    rep: int,
    point: CrawlPoint,
    key: int,
    block: Block | None = None,
    conditional: bool = False,
) -> PlannedRun:
    """One crawl in its scenario's connection mode; a measured one is round `rep`."""
    counted = scenario.counted
    where = PointKey(point.concurrency, point.processes, point.core, key)
    return PlannedRun(
        id=crawl_label(scenario.name, model, where, kind, rep),
        scenario=scenario.name,
        model=model,
        kind=kind,
        repetition=rep,
        point=point,
        estimate_s=point.counted_estimate_s(model) if counted else point.estimate_s(model),
        server_key=key,
        params=run_params(point, scenario.about.keep_alive),
        counted=counted,
        steady_heap=scenario.steady_heap,
        block=block,
        conditional=conditional,
    )


def crawl_label(scenario: str, model: str, key: PointKey, kind: str, rep: int) -> str:
    """A crawl run's id, for people: 'sleepy/asyncio/c1000/s3/measured2'."""
    return f"{scenario}/{model}/{key.label}/{kind}{rep}"


def plan_estimate_s(
    plan: Sequence[PlannedRun],
    runtimes: int = 1,
    conditional: bool = True,
    skipped: frozenset[str] = frozenset(),
) -> float:
    """The plan's expected duration: every run once per runtime (_times_run), the
    conditional rounds unless left out, a skipped model's runs at no cost, and one server
    start per distinct site."""
    runs = [
        run for run in plan if (conditional or not run.conditional) and run.model not in skipped
    ]
    servers = {run.server_key for run in runs if run.point is not None}
    measured = sum(run.estimate_s * _times_run(run, runtimes) for run in runs)
    return measured + SERVER_START_S * len(servers)


def _times_run(run: PlannedRun, runtimes: int) -> int:
    """How many of `runtimes` run it: all, or one when it is bound to a kind of build."""
    bound = run.point is not None and run.point.free_threaded is not None
    return min(runtimes, 1) if bound else runtimes


def runs_count(plan: Sequence[PlannedRun], runtimes: int = 1) -> int:
    return sum(_times_run(run, runtimes) for run in plan)
