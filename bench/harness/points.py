"""A profile's parts as data: crawl points, idle runs, scenarios, profiles, and their costs."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Literal, cast

from bench.harness.costs import (
    CALLGRIND_SLOWDOWN,
    CONNECT_S,
    IDLE_PROGRAM_S,
    IDLE_START_S,
    PURE_CORE_CPU_FACTOR,
    RUN_OVERHEAD_S,
    SERVER_RATE,
    THREAD_CEILING_S_PER_THREAD,
    native_costs,
)
from bench.harness.site import ServeOptions
from bench.results import ProfileDefinition
from c10k import catalog
from server.site_params import fault_counts
from server.specs import parse_faults


@dataclass(frozen=True)
class LatencyRule:
    """How the session chooses a sleepy point's latency at its start, from the server's
    measured cost: latencies.choose_latency, from `least_s` up."""

    judges_throughput: bool = False
    least_s: float = 2.0


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
    # Paired rounds past `repetitions`, up to `cap` rounds in all, each run only while a
    # comparison judged here has not stopped (c10k.sequential); None: the scenario's cap.
    cap: int | None = None
    models: tuple[str, ...] | None = None  # None: every model of the scenario
    # `c10k crawl --processes P`: worker i connects to the server's address i mod addresses.
    processes: int = 1
    core: str = catalog.CORE_C  # `c10k crawl --core`: one of catalog.CORES
    interpreters: int = 0  # `c10k crawl --interpreters N`; 0: the crawler's default
    # The builds it runs on: None every runtime; False a GIL build only; True a free-threaded
    # build only (a run on another is skipped, with the reason: runtime_refusal).
    free_threaded: bool | None = None
    # A sleepy point whose latency the session chooses at its start (its server's latency
    # as written is the dry run's, and the one used when the cost is not measured).
    choice: LatencyRule | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.processes <= self.concurrency:
            # The crawler refuses it too (each process needs one unit of the concurrency).
            raise ValueError(f"processes must be 1..concurrency, got {self.processes}")
        if self.core not in catalog.CORES:
            raise ValueError(f"core must be one of {', '.join(catalog.CORES)}, got {self.core}")

    def runtime_refusal(self, tag: str, gil_disabled: bool) -> str | None:
        """Why the runtime `tag` does not run this point; None if it does."""
        if self.free_threaded is None or self.free_threaded == gil_disabled:
            return None
        wanted = "free-threaded" if self.free_threaded else "GIL"
        return f"this point runs on a {wanted} build only; {tag} is not one"

    def estimate_s(self, model: str) -> float:
        """Start, then the slower of waiting and computing, then the ramp and hang tail."""
        urls = self.server.urls_estimate
        latency = self.server.latency.mean_s
        if self.server.shape == "wide":  # the root, then waves of C (the root at once: none)
            root = 1 if self.server.root_latency else 0
            generations = root + math.ceil((urls - 1) / self.concurrency)
        else:  # a random recursive tree: depth grows with log(pages), then waves of C
            generations = math.ceil(urls / self.concurrency) + math.ceil(math.log(urls + 1, 3))
        waiting = generations * latency
        startup, cpu_per_page = native_costs(model)
        model_entry = catalog.CRAWLERS.get(model)
        if self.core == catalog.CORE_PURE and (model_entry is None or not model_entry.core):
            cpu_per_page *= PURE_CORE_CPU_FACTOR
        if self.processes > 1:
            # The parent, then P children, each a fresh interpreter with its imports; on
            # the crawler's few CPUs their starts mostly queue, so count them one after another.
            startup *= 1 + self.processes
        computing = urls * cpu_per_page + urls / SERVER_RATE / 2
        per_worker = (
            THREAD_CEILING_S_PER_THREAD
            if model_entry is not None and model_entry.thread_per_worker
            else CONNECT_S
        )
        # The workers open their shares of the connections (or start their threads) side
        # by side, each in its own process.
        ramp = math.ceil(min(self.concurrency, urls) / self.processes) * per_worker
        # A page that hangs costs whole timeouts at the end of the crawl, if the site has one.
        hangs = fault_counts(parse_faults(self.server.faults or ""), self.server.pages)["hang"]
        hang_tail = self.timeout_s * self.max_tries if hangs else 0.0
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

    def estimate_s(self) -> float:
        if self.mode == "until-failure" and self.processes > 1:
            # kernel.pid_max (32,768 here) stops them, and ending the threads takes as long
            # again as starting them (docs/notes/2026-11-23-thread-ceiling-teardown.md)
            started = min(self.cap, 32_768)
            return IDLE_PROGRAM_S + 2 * started * THREAD_CEILING_S_PER_THREAD + RUN_OVERHEAD_S
        if self.mode == "until-failure":  # vm.max_map_count stops threads near 22,000 here
            started = min(self.cap, 25_000)
            return IDLE_PROGRAM_S + started * THREAD_CEILING_S_PER_THREAD + RUN_OVERHEAD_S / 2
        per_unit = IDLE_START_S[self.kind]  # start, measure and release one
        slowdown = 4.0 if self.mode == "tracemalloc" else 1.0
        return IDLE_PROGRAM_S + self.count * per_unit * slowdown + RUN_OVERHEAD_S / 2


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
    cap: int | None = None  # CrawlPoint.cap for every point that gives none

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
    again_share: float = 0.5  # of a server's rounds' planned time: for noisy rounds again
    quiet_wait_s: float = 0.0  # the most a session pauses, in all, for a noisy machine to quiet

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
