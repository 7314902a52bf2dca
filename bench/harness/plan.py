"""A scenario's runs as data (crawl points, idle specs, profiles) and the plan of runs they make."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Literal, cast

from bench.analysis.points import mean_latency
from bench.harness.costs import (
    CALLGRIND_SLOWDOWN,
    CONNECT_S,
    CPU_LOOP_S,
    IDLE_START_S,
    RUN_OVERHEAD_S,
    SERVER_RATE,
    SERVER_START_S,
    THREAD_CEILING_S_PER_THREAD,
    native_costs,
)
from bench.harness.site import ServeOptions
from bench.results import ProfileDefinition, RunParams, SiteParams
from c10k import catalog

ALL_MODELS: tuple[str, ...] = tuple(catalog.MODELS)
# What `c10k bench --models` accepts and runs by default: the models, then the peers (each
# only in its own scenarios, up to its concurrency ceiling: runs_at).
ALL_CRAWLERS: tuple[str, ...] = tuple(catalog.CRAWLERS)
SCENARIOS: tuple[str, ...] = tuple(catalog.SCENARIOS)


@dataclass(frozen=True)
class CrawlPoint:
    """One crawl configuration of a scenario: a site, a concurrency and crawl options."""

    server: ServeOptions
    concurrency: int
    timeout_s: float = 10.0  # the crawler's --timeout for one fetch
    max_tries: int = 4
    check_peak: bool = False  # verify the server's peak in flight reaches the concurrency
    # Runs of every model at this point; None: the scenario's repetitions. The sleepy
    # memory fit repeats its points so that its interval holds the spread between runs.
    repetitions: int | None = None
    # `c10k crawl --processes P`: P worker processes share the crawl (and the concurrency),
    # worker i connecting to the server's address i mod (its addresses).
    processes: int = 1

    def __post_init__(self) -> None:
        if not 1 <= self.processes <= self.concurrency:
            # The crawler refuses it too (each process needs one unit of the concurrency).
            raise ValueError(f"processes must be 1..concurrency, got {self.processes}")

    def estimate_s(self, model: str) -> float:
        """Expected seconds for one run: start, then the slower of waiting and computing."""
        urls = self.server.urls_estimate
        latency = mean_latency(self.server.latency)
        if self.server.shape == "wide":
            generations = 1 + math.ceil((urls - 1) / self.concurrency)
        else:  # a random recursive tree: depth grows with log(pages), then waves of C
            generations = math.ceil(urls / self.concurrency) + math.ceil(math.log(urls + 1, 3))
        waiting = generations * latency
        startup, cpu_per_page = native_costs(model)
        if self.processes > 1:
            # The coordinator, then P workers, each a fresh interpreter with its imports; on
            # the crawler's few CPUs their starts mostly queue, so count them one after another.
            startup *= 1 + self.processes
        computing = urls * cpu_per_page + urls / SERVER_RATE / 2
        model_entry = catalog.CRAWLERS.get(model)
        per_worker = (
            THREAD_CEILING_S_PER_THREAD
            if model_entry is not None and model_entry.thread_per_worker
            else CONNECT_S
        )
        # The workers open their shares of the connections (or start their threads) side
        # by side, each in its own process.
        ramp = math.ceil(min(self.concurrency, urls) / self.processes) * per_worker
        # The fault kinds that hang cost whole timeouts at the end of the crawl.
        hang_tail = (
            self.timeout_s * self.max_tries
            if self.server.faults and "hang" in (self.server.faults)
            else 0.0
        )
        return startup + max(waiting, computing) + ramp + hang_tail + RUN_OVERHEAD_S

    def counted_estimate_s(self, model: str) -> float:
        """Expected seconds for one run under callgrind: its start-up and CPU, slowed down."""
        startup, cpu_per_page = native_costs(model)
        native = startup + self.server.urls_estimate * cpu_per_page
        return native * CALLGRIND_SLOWDOWN + RUN_OVERHEAD_S


@dataclass(frozen=True)
class IdleSpec:
    """One `python -m impls.tools.idle` run."""

    kind: str
    count: int
    mode: Literal["slope", "tracemalloc", "until-failure"] = "slope"
    steps: int = 5
    cap: int = 0  # until-failure: never start more than this many threads
    # until-failure: in this many processes at once, each holding its threads until all have
    # stopped: the machine's ceiling (kernel.pid_max), not one process's (C5)
    processes: int = 1

    def argv(self) -> list[str]:
        args = ["--kind", self.kind, "--count", str(self.count), "--steps", str(self.steps)]
        if self.mode == "tracemalloc":
            args.append("--tracemalloc")
        if self.mode == "until-failure":
            args += ["--until-failure", "--cap", str(self.cap)]
            if self.processes > 1:
                args += ["--processes", str(self.processes)]
        return args

    def estimate_s(self) -> float:
        per_unit = IDLE_START_S[self.kind]  # start, measure and release one
        if self.mode == "until-failure" and self.processes > 1:
            # kernel.pid_max (32,768 here) stops them, and ending 31,000 threads in four
            # processes took as long again as starting them (65 s in all, measured)
            started = min(self.cap, 32_768)
            return 0.3 + 2 * started * THREAD_CEILING_S_PER_THREAD + RUN_OVERHEAD_S
        if self.mode == "until-failure":  # vm.max_map_count stops threads near 22,000 here
            started = min(self.cap, 25_000)
            return 0.3 + started * THREAD_CEILING_S_PER_THREAD + RUN_OVERHEAD_S / 2
        count = self.count
        slowdown = 4.0 if self.mode == "tracemalloc" else 1.0
        return 0.3 + count * per_unit * slowdown + RUN_OVERHEAD_S / 2


@dataclass(frozen=True)
class Scenario:
    """A catalog scenario in one profile: crawl points (or idle runs), repetitions, warm-ups."""

    about: catalog.Scenario
    points: tuple[CrawlPoint, ...] = ()
    idle: tuple[IdleSpec, ...] = ()
    repetitions: int = 1
    warmups: int = 0  # per model, at the scenario's first point, not counted
    counted: bool = False  # each run under callgrind (instructions), the core replay beside
    fit_min_concurrency: int = 0  # sleepy: fit memory per connection from this C up
    loops: int = 0  # noise-floor: runs of the fixed CPU loop, each in a fresh process
    # sleepy: crawls under bench.harness.heap's conditions (glibc's thresholds pinned, the
    # heap's layout varied), so that memory per connection holds still between sessions.
    steady_heap: bool = False

    @property
    def name(self) -> str:
        return self.about.name


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    budget_s: float  # what the plan must fit in (checked by the tests)
    sample_interval_s: float
    scenarios: tuple[Scenario, ...]
    pin: str = "on"  # `c10k bench --pin` when the user gives none

    def scenario(self, name: str) -> Scenario:
        for scenario in self.scenarios:
            if scenario.name == name:
                return scenario
        raise KeyError(name)

    def definition(self) -> ProfileDefinition:
        """The profile as results.json records it: each scenario's catalog entry (name,
        claims, description) flattened beside its points, as derive's fit_thresholds reads it."""
        recorded = asdict(self)
        recorded["scenarios"] = [
            s.pop("about") | s for s in (dict(scenario) for scenario in recorded["scenarios"])
        ]
        return cast(ProfileDefinition, recorded)


# -- the plan -----------------------------------------------------------------------------


@dataclass(frozen=True)
class PlannedRun:
    """One subprocess the harness will start: a crawl, an idle program or the fixed CPU loop."""

    id: str
    scenario: str
    model: str  # the crawler model, or the idle kind
    kind: Literal["warmup", "measured"]
    repetition: int
    point: CrawlPoint | None = None
    idle: IdleSpec | None = None
    estimate_s: float = 0.0
    server_key: int = -1  # runs with the same key share one server process
    counted: bool = False  # run under callgrind for instructions per page, not sampled
    params: RunParams = field(default_factory=lambda: RunParams())
    # Measured crawls: the pass over the models at this point (rep k of every model runs in
    # round k, next to each other), so ratios between models pair by round. None otherwise.
    round: int | None = None
    keep_alive: bool = False  # the crawl runs with --keep-alive (its scenario's mode)
    loop: bool = False  # a run of the fixed CPU loop (`python -m impls.tools.cpu_loop`)
    steady_heap: bool = False  # its scenario's steady_heap

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
        "server": cast(SiteParams, asdict(point.server)),
    }


def build_plan(
    profile: Profile, models: Sequence[str], scenarios: Sequence[str]
) -> list[PlannedRun]:
    """Every run in order: per scenario, per point, warm-ups (the first point only), then
    round-robin rounds: rep 1 of every model, then rep 2 of every model, and so on.

    A slow drift of the machine then hits every model alike instead of biasing the last
    one, and rep k of two models ran next to each other: ratios pair by round.
    """
    plan: list[PlannedRun] = []
    server_keys: dict[ServeOptions, int] = {}
    for scenario in profile.scenarios:
        if scenario.name not in scenarios:
            continue
        plan += _loop_runs(scenario)
        if scenario.idle:
            plan += _idle_runs(scenario)
            continue
        for index, point in enumerate(scenario.points):
            key = server_keys.setdefault(point.server, len(server_keys))
            plan += _point_runs(scenario, point, key, models, warmups=index == 0)
    return plan


def _loop_runs(scenario: Scenario) -> list[PlannedRun]:
    """The scenario's runs of the fixed CPU loop (the noise floor's)."""
    return [
        PlannedRun(
            id=f"{scenario.name}/{catalog.CPU_LOOP}/{n}",
            scenario=scenario.name,
            model=catalog.CPU_LOOP,
            kind="measured",
            repetition=n,
            estimate_s=CPU_LOOP_S,
            loop=True,
        )
        for n in range(scenario.loops)
    ]


def _idle_runs(scenario: Scenario) -> list[PlannedRun]:
    """One run per idle spec, in the profile's order."""
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


def _point_runs(
    scenario: Scenario, point: CrawlPoint, key: int, models: Sequence[str], warmups: bool
) -> list[PlannedRun]:
    """A crawl point's runs: the warm-ups when asked (the scenario's first point), then
    its rounds of every model that runs there."""
    plan: list[PlannedRun] = []
    here = [m for m in models if runs_at(m, scenario.name, point.concurrency, point.processes)]
    if warmups:
        for w in range(scenario.warmups):
            plan += [
                _crawl_run(scenario, model, "warmup", w, point, key)
                for model in here
                if model not in catalog.PEERS
            ]
    # A counted scenario adds the core alone (a replay, no I/O) beside the models.
    counted_models = [*here, catalog.CORE_REPLAY] if scenario.counted else here
    repetitions = point.repetitions or scenario.repetitions
    for rep in range(repetitions):
        plan += [
            _crawl_run(scenario, model, "measured", rep, point, key)
            for model in counted_models
            if rep < repetitions_of(model, repetitions)
        ]
    return plan


def runs_at(crawler: str, scenario: str, concurrency: int, processes: int = 1) -> bool:
    """A model runs everywhere but where its scenario leaves out threads (a thread per worker)
    and at points of several processes if it cannot run as several (the interpreters model);
    a peer only in its scenarios and up to its ceiling."""
    about = catalog.SCENARIOS.get(scenario)
    model = catalog.MODELS.get(crawler)
    if model is not None:
        if processes > 1 and not model.processes:
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
) -> PlannedRun:
    """One crawl run of the plan, in its scenario's connection mode; a measured one is round
    `rep` at its point."""
    counted, keep_alive = scenario.counted, scenario.about.keep_alive
    # Two points may differ only in their processes: the id tells them apart (a plain crawl's
    # id is as it always was).
    processes = f"/p{point.processes}" if point.processes > 1 else ""
    return PlannedRun(
        id=f"{scenario.name}/{model}/c{point.concurrency}{processes}/s{key}/{kind}{rep}",
        scenario=scenario.name,
        model=model,
        kind=kind,
        repetition=rep,
        point=point,
        estimate_s=point.counted_estimate_s(model) if counted else point.estimate_s(model),
        server_key=key,
        params=run_params(point, keep_alive),
        counted=counted,
        round=rep if kind == "measured" else None,
        keep_alive=keep_alive,
        steady_heap=scenario.steady_heap,
    )


def plan_estimate_s(plan: Sequence[PlannedRun], runtimes: int = 1) -> float:
    """The plan's expected duration: every run once per runtime, plus one server start per
    distinct site (the runtimes share it)."""
    servers = {run.server_key for run in plan if run.point is not None}
    return sum(run.estimate_s for run in plan) * runtimes + SERVER_START_S * len(servers)


def estimate_by_scenario(
    plan: Sequence[PlannedRun], runtimes: int = 1
) -> dict[str, dict[str, float]]:
    """Per scenario: runs (once per runtime), servers and expected seconds."""
    table: dict[str, dict[str, float]] = {}
    for name in SCENARIOS:
        runs = [run for run in plan if run.scenario == name]
        if not runs:
            continue
        servers = {run.server_key for run in runs if run.point is not None}
        table[name] = {
            "runs": len(runs) * runtimes,
            "servers": len(servers),
            "estimate_s": sum(r.estimate_s for r in runs) * runtimes
            + SERVER_START_S * len(servers),
        }
    return table
