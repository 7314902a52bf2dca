"""The five scenarios and the three profiles as plain data, and the plan of runs they make."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from c10k import catalog
from c10k.catalog import (
    CONNECT_S,
    RUN_OVERHEAD_S,
    SERVER_RATE,
    SERVER_START_S,
    SWEEP_CPU_PER_PAGE_S,
    UNKNOWN_CPU_PER_PAGE_S,
    UNKNOWN_STARTUP_S,
)

ALL_MODELS: tuple[str, ...] = tuple(catalog.MODELS)
SCENARIOS: tuple[str, ...] = tuple(catalog.SCENARIOS)


def parse_duration(spec: str) -> float:
    """'0', '50ms', '2s', '1.5' -> seconds (a bare number is seconds)."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(ms|s|us|µs)?\s*", spec)
    if not m:
        raise ValueError(f"not a duration: {spec!r}")
    scale = {"ms": 1e-3, "s": 1.0, "us": 1e-6, "µs": 1e-6, None: 1.0}[m.group(2)]
    return float(m.group(1)) * scale


def mean_latency(spec: str) -> float:
    """The mean of a server latency SPEC (fixed, uniform:a..b, exp:m, lognormal:median,sigma)."""
    kind, _, rest = spec.partition(":")
    if not rest:
        return parse_duration(spec)
    if kind == "uniform":
        low, _, high = rest.partition("..")
        return (parse_duration(low) + parse_duration(high)) / 2
    if kind == "exp":
        return parse_duration(rest)
    if kind == "lognormal":
        centre, _, sigma = rest.partition(",")
        return parse_duration(centre) * math.exp(float(sigma or 0) ** 2 / 2)
    raise ValueError(f"unknown latency spec: {spec!r}")


@dataclass(frozen=True)
class ServerConfig:
    """The options of one `c10k serve` process: the site and how it is served."""

    pages: int
    links: int = 10
    shape: Literal["deep", "wide"] = "deep"
    seed: int = 1
    latency: str = "0"
    bandwidth: str | None = None
    faults: str | None = None
    workers: int = 1

    def argv(self) -> list[str]:
        args = ["--pages", str(self.pages), "--links", str(self.links), "--shape", self.shape]
        args += ["--seed", str(self.seed), "--latency", self.latency]
        args += ["--workers", str(self.workers)]
        if self.bandwidth is not None:
            args += ["--bandwidth", self.bandwidth]
        if self.faults is not None:
            args += ["--faults", self.faults]
        return args

    @property
    def urls_estimate(self) -> int:
        # Wide sites without links have exactly the root plus the pages; other sites add
        # about 15% redirects, 404s, files and queries (server/site.py defaults).
        if self.shape == "wide" and self.links == 0:
            return self.pages + 1
        return int(self.pages * 1.15) + 1


@dataclass(frozen=True)
class CrawlPoint:
    """One crawl configuration of a scenario: a site, a concurrency and crawl options."""

    server: ServerConfig
    concurrency: int
    timeout_s: float = 10.0  # the crawler's --timeout for one fetch
    max_tries: int = 4
    check_peak: bool = False  # verify the server's peak in flight reaches the concurrency

    def estimate_s(self, model: str) -> float:
        """Expected seconds for one run: start, then the slower of waiting and computing."""
        urls = self.server.urls_estimate
        latency = mean_latency(self.server.latency)
        if self.server.shape == "wide":
            generations = 1 + math.ceil((urls - 1) / self.concurrency)
        else:  # a random recursive tree: depth grows with log(pages), then waves of C
            generations = math.ceil(urls / self.concurrency) + math.ceil(math.log(urls + 1, 3))
        waiting = generations * latency
        model_entry = catalog.MODELS.get(model)
        cpu_per_page = model_entry.cpu_per_page_s if model_entry else UNKNOWN_CPU_PER_PAGE_S
        startup = model_entry.startup_s if model_entry else UNKNOWN_STARTUP_S
        computing = urls * cpu_per_page + urls / SERVER_RATE / 2
        ramp = min(self.concurrency, urls) * CONNECT_S
        # The fault kinds that hang cost whole timeouts at the end of the crawl.
        hang_tail = (
            self.timeout_s * self.max_tries
            if self.server.faults and "hang" in (self.server.faults)
            else 0.0
        )
        return startup + max(waiting, computing) + ramp + hang_tail + RUN_OVERHEAD_S


@dataclass(frozen=True)
class IdleSpec:
    """One `python -m impls.idle` run."""

    kind: str
    count: int
    mode: Literal["slope", "tracemalloc", "until-failure"] = "slope"
    steps: int = 5
    cap: int = 0  # until-failure: never start more than this many threads

    def argv(self) -> list[str]:
        args = ["--kind", self.kind, "--count", str(self.count), "--steps", str(self.steps)]
        if self.mode == "tracemalloc":
            args.append("--tracemalloc")
        if self.mode == "until-failure":
            args += ["--until-failure", "--cap", str(self.cap)]
        return args

    def estimate_s(self) -> float:
        per_unit = catalog.IDLE_KINDS[self.kind].start_s  # start, measure and release one
        count = self.cap if self.mode == "until-failure" else self.count
        if self.mode == "until-failure":
            count = min(count, 25_000)  # vm.max_map_count stops threads near 22,000 here
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
    fit_min_concurrency: int = 0  # sleepy: fit memory per connection from this C up

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

    def scenario(self, name: str) -> Scenario:
        for scenario in self.scenarios:
            if scenario.name == name:
                return scenario
        raise KeyError(name)


def sleepy_points(
    concurrencies: Sequence[int], latency: str, waves: int, workers: int = 1
) -> tuple[CrawlPoint, ...]:
    """A wide site of exactly waves*C pages per C: all in flight at once, `waves` times over."""
    return tuple(
        CrawlPoint(
            ServerConfig(pages=waves * c, links=0, shape="wide", latency=latency, workers=workers),
            concurrency=c,
            # Generous: when the machine saturates, fetches wait long in queues (kernel and
            # loop); a timeout would add retries and blur the throughput being measured.
            timeout_s=max(30.0, 10 * mean_latency(latency)),
            check_peak=True,
        )
        for c in concurrencies
    )


def sweep_points(
    concurrency: int, latencies: Sequence[str], target_s: float
) -> tuple[CrawlPoint, ...]:
    """Fixed concurrency, latency varied; pages sized so each run lasts about target_s."""
    points = []
    for latency in latencies:
        mean = mean_latency(latency)
        by_cpu = int(target_s / SWEEP_CPU_PER_PAGE_S)
        by_wait = int(concurrency * target_s / mean) if mean > 0 else by_cpu
        pages = max(3 * concurrency, min(by_cpu, by_wait))
        points.append(
            CrawlPoint(
                ServerConfig(pages=pages, links=0, shape="wide", latency=latency),
                concurrency=concurrency,
            )
        )
    return tuple(points)


def few_active_points(pages: int, concurrencies: Sequence[int]) -> tuple[CrawlPoint, ...]:
    server = ServerConfig(pages=pages, links=10, shape="deep", latency="0")
    return tuple(CrawlPoint(server, concurrency=c) for c in concurrencies)


def idle_specs(
    thread_count: int,
    unit_count: int,
    tracemalloc_threads: int,
    tracemalloc_units: int,
    thread_cap: int,
    other_loop_units: int | None = None,
) -> tuple[IdleSpec, ...]:
    """The idle runs; `other_loop_units` (default unit_count) sizes the uvloop and
    generators-model tasks, whose 1,000,000 cost half a minute each and add no claim:
    C4 is settled by asyncio tasks and bare coroutines at unit_count."""
    thread_kinds = [k.name for k in catalog.IDLE_KINDS.values() if k.thread]
    coroutine_kinds = [k.name for k in catalog.IDLE_KINDS.values() if not k.thread]
    other_loops = (catalog.UVLOOP_TASK.name, catalog.GENERATORS_TASK.name)
    specs = [IdleSpec(kind, thread_count) for kind in thread_kinds]
    specs += [
        IdleSpec(kind, other_loop_units or unit_count if kind in other_loops else unit_count)
        for kind in coroutine_kinds
    ]
    specs += [IdleSpec(kind, tracemalloc_threads, "tracemalloc", steps=1) for kind in thread_kinds]
    specs += [IdleSpec(kind, tracemalloc_units, "tracemalloc", steps=1) for kind in coroutine_kinds]
    specs.append(
        IdleSpec(catalog.THREAD.name, thread_cap, "until-failure", steps=1, cap=thread_cap)
    )
    return tuple(specs)


REALISTIC_FAULTS = "reset=0.01,hang=0.005,500=0.01,truncate=0.005,garbage=0.005"


def realistic_point(pages: int, concurrency: int, timeout_s: float = 1.0) -> CrawlPoint:
    return CrawlPoint(
        ServerConfig(
            pages=pages,
            links=10,
            shape="deep",
            latency="lognormal:50ms,0.5",
            bandwidth="256KiB",
            faults=REALISTIC_FAULTS,
        ),
        concurrency=concurrency,
        timeout_s=timeout_s,  # hangs cost timeout * tries at the end of the crawl: keep small
        max_tries=2,
    )


def _scenarios(
    *,
    idle: tuple[IdleSpec, ...],
    few_active: tuple[CrawlPoint, ...],
    few_reps: int,
    few_warmups: int,
    sleepy: tuple[CrawlPoint, ...],
    sleepy_reps: int,
    sweep: tuple[CrawlPoint, ...],
    sweep_reps: int,
    realistic: tuple[CrawlPoint, ...],
    realistic_reps: int,
) -> tuple[Scenario, ...]:
    return (
        Scenario(catalog.IDLE, idle=idle),
        Scenario(catalog.FEW_ACTIVE, points=few_active, repetitions=few_reps, warmups=few_warmups),
        Scenario(
            catalog.SLEEPY,
            points=sleepy,
            repetitions=sleepy_reps,
            fit_min_concurrency=1000 if max(p.concurrency for p in sleepy) >= 3000 else 0,
        ),
        Scenario(catalog.LATENCY_SWEEP, points=sweep, repetitions=sweep_reps),
        Scenario(catalog.REALISTIC, points=realistic, repetitions=realistic_reps),
    )


PROFILE_TABLE: dict[str, Profile] = {
    "quick": Profile(
        "quick",
        "every model and scenario at tiny scale: a CI smoke test, not a measurement",
        budget_s=90.0,
        sample_interval_s=0.05,
        scenarios=_scenarios(
            idle=idle_specs(300, 20_000, 200, 2_000, thread_cap=500),
            few_active=few_active_points(150, (1, 4)),
            few_reps=1,
            few_warmups=0,
            sleepy=sleepy_points((20, 50, 100), "100ms", waves=2),
            sleepy_reps=1,
            sweep=sweep_points(20, ("0", "50ms"), target_s=0.1),
            sweep_reps=1,
            realistic=(realistic_point(150, 20, timeout_s=0.5),),
            realistic_reps=1,
        ),
    ),
    "default": Profile(
        "default",
        "what `tox -e bench` runs: every claim at 10,000 connections, within 10 minutes",
        budget_s=600.0,
        sample_interval_s=0.1,
        scenarios=_scenarios(
            idle=idle_specs(
                10_000, 1_000_000, 2_000, 20_000, thread_cap=60_000, other_loop_units=300_000
            ),
            few_active=few_active_points(300, (1, 4, 16, 64)),
            few_reps=3,
            few_warmups=1,
            sleepy=sleepy_points((100, 1000, 3000, 10_000), "2s", waves=2),
            sleepy_reps=1,
            sweep=sweep_points(100, ("0", "10ms", "100ms", "1s"), target_s=0.4),
            sweep_reps=1,
            realistic=(realistic_point(2000, 100),),
            realistic_reps=1,
        ),
    ),
    "full": Profile(
        "full",
        "more points, more repetitions, concurrency up to the open-file limit",
        budget_s=7200.0,
        sample_interval_s=0.1,
        scenarios=_scenarios(
            idle=idle_specs(20_000, 2_000_000, 5_000, 100_000, thread_cap=100_000),
            few_active=few_active_points(3000, (1, 2, 4, 8, 16, 32, 64)),
            few_reps=5,
            few_warmups=1,
            sleepy=sleepy_points(
                (100, 1000, 2500, 5000, 7500, 10_000, 15_000, 19_900), "2s", waves=3, workers=2
            ),
            sleepy_reps=3,
            sweep=sweep_points(
                100, ("0", "5ms", "10ms", "20ms", "50ms", "100ms", "300ms", "1s"), target_s=2.0
            ),
            sweep_reps=3,
            realistic=(realistic_point(5000, 100), realistic_point(5000, 1000)),
            realistic_reps=3,
        ),
    ),
}


PROFILES: tuple[str, ...] = tuple(PROFILE_TABLE)


# -- the plan -----------------------------------------------------------------------------


@dataclass(frozen=True)
class PlannedRun:
    """One subprocess the harness will start: a crawl or an idle program."""

    id: str
    scenario: str
    model: str  # the crawler model, or the idle kind
    kind: Literal["warmup", "measured"]
    repetition: int
    point: CrawlPoint | None = None
    idle: IdleSpec | None = None
    estimate_s: float = 0.0
    server_key: int = -1  # runs with the same key share one server process
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def timeout_s(self) -> float:
        """The hard limit after which the harness kills the run."""
        return 3 * self.estimate_s + 30


def run_params(point: CrawlPoint) -> dict[str, Any]:
    return {
        "concurrency": point.concurrency,
        "timeout_s": point.timeout_s,
        "max_tries": point.max_tries,
        "check_peak": point.check_peak,
        "server": asdict(point.server),
    }


def build_plan(
    profile: Profile, models: Sequence[str], scenarios: Sequence[str]
) -> list[PlannedRun]:
    """Every run in order: per scenario, per server, warm-ups, then repetitions x models.

    Models are interleaved inside each repetition so a slow drift of the machine spreads
    over all models instead of biasing the last one.
    """
    plan: list[PlannedRun] = []
    server_keys: dict[ServerConfig, int] = {}
    for scenario in profile.scenarios:
        if scenario.name not in scenarios:
            continue
        if scenario.idle:
            for n, spec in enumerate(scenario.idle):
                plan.append(
                    PlannedRun(
                        id=f"idle/{spec.kind}/{spec.mode}/{spec.count}/{n}",
                        scenario=scenario.name,
                        model=spec.kind,
                        kind="measured",
                        repetition=0,
                        idle=spec,
                        estimate_s=spec.estimate_s(),
                        params=asdict(spec),
                    )
                )
            continue
        for index, point in enumerate(scenario.points):
            key = server_keys.setdefault(point.server, len(server_keys))
            if index == 0:
                for w in range(scenario.warmups):
                    plan += [
                        _crawl_run(scenario.name, model, "warmup", w, point, key)
                        for model in models
                    ]
            for rep in range(scenario.repetitions):
                plan += [
                    _crawl_run(scenario.name, model, "measured", rep, point, key)
                    for model in models
                ]
    return plan


def _crawl_run(
    scenario: str,
    model: str,
    kind: Literal["warmup", "measured"],
    rep: int,
    point: CrawlPoint,
    key: int,
) -> PlannedRun:
    return PlannedRun(
        id=f"{scenario}/{model}/c{point.concurrency}/s{key}/{kind}{rep}",
        scenario=scenario,
        model=model,
        kind=kind,
        repetition=rep,
        point=point,
        estimate_s=point.estimate_s(model),
        server_key=key,
        params=run_params(point),
    )


def plan_estimate_s(plan: Sequence[PlannedRun]) -> float:
    """The plan's expected duration: every run plus one server start per distinct site."""
    servers = {run.server_key for run in plan if run.point is not None}
    return sum(run.estimate_s for run in plan) + SERVER_START_S * len(servers)


def estimate_by_scenario(plan: Sequence[PlannedRun]) -> dict[str, dict[str, float]]:
    """Per scenario: runs, servers and expected seconds."""
    table: dict[str, dict[str, float]] = {}
    for name in SCENARIOS:
        runs = [run for run in plan if run.scenario == name]
        if not runs:
            continue
        servers = {run.server_key for run in runs if run.point is not None}
        table[name] = {
            "runs": len(runs),
            "servers": len(servers),
            "estimate_s": sum(r.estimate_s for r in runs) + SERVER_START_S * len(servers),
        }
    return table
