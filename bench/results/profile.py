"""The results document's top level: the profile, the environment and the plan (docs/results.md)."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from c10k.durations import Latency


class ScenarioDefinition(TypedDict, total=False):
    """One scenario of profile.definition: the catalog's entry beside the profile's runs."""

    name: str
    claims: list[str]
    description: str
    keep_alive: bool
    thread_workers: bool
    points: list[dict[str, Any]]  # each crawl point's exact parameters
    idle: list[dict[str, Any]]  # each idle spec's
    repetitions: int
    warmups: int
    counted: bool
    fit_min_concurrency: int
    loops: int
    steady_heap: bool


class ProfileDefinition(TypedDict):
    name: str
    description: str
    budget_s: float
    sample_interval_s: float
    scenarios: list[ScenarioDefinition]
    pin: str
    again_share: NotRequired[float]  # since 2026-11-27
    quiet_wait_s: NotRequired[float]  # since 2026-11-28


class LeftOutModel(TypedDict):
    """profile.left_out: a model the plan left out, as no runtime of the run can run it."""

    model: str
    needs: str  # the oldest CPython that runs it: "3.14"
    runtimes: list[str]  # the run's runtimes' tags, none of which is that new: ["3.11"]


class ServerProbe(TypedDict):
    """One probe crawl of profile.latencies.cost: the server while the wave's requests began
    (from its first request begun to its last, by its own clock), and over the whole crawl."""

    ramp_s: float
    ramp_cpu_s: float | None  # sampled here; None for a server on another host
    cpu_s: float
    requests: int
    peak_in_flight: int


class ServerCost(TypedDict):
    """profile.latencies.cost: the server's cost measured at the session's start, by probe
    crawls of one wave (`connections` at once, a connection per fetch); each figure the
    median over the probes with its [min, max]."""

    connections: int
    latency: Latency
    model: str
    probes: list[ServerProbe]
    connect_us: float  # wall µs per connection accepted and its request begun (the ramp)
    connect_us_range: list[float]
    share: float  # of a core the server had over the ramp (its CPU there over its wall; 1 on
    # another host, where its CPU cannot be sampled)
    share_range: list[float]
    request_us: float  # CPU µs per request in all, over that share
    request_us_range: list[float]


class LatencyPoint(TypedDict):
    """profile.latencies.points[]: one sleepy point's latency and the rule's numbers there."""

    scenario: str
    concurrency: int
    pages: int
    judges_throughput: bool  # the rule asks (b) too
    written: Latency  # the profile's latency: the dry run's, and the one used when not measured
    latency: Latency  # the one the session ran
    ramp_share: float  # (a): C x connect_us over L
    load: float  # (b): C / L x request_us, the share of its core C/L asks of the server
    met: bool  # False: no rung of the ladder met the rule; the last one ran


class LatencyChoices(TypedDict):
    """profile.latencies: each sleepy point's latency, chosen at the session's start from the
    server's measured cost (bench/harness/latencies.py)."""

    ladder_s: list[float]
    peak_share: float
    load_share: float
    cost: ServerCost | None  # None: not measured (error), the points' latencies as written
    error: str | None
    points: list[LatencyPoint]


class ProfileRecord(TypedDict):
    name: str
    models: list[str]
    scenarios: list[str]
    sample_interval_s: float
    budget_s: float
    estimate_s: float  # every run of the plan, conditional rounds included
    definition: ProfileDefinition
    order_seed: int  # the seed of the order the models ran in within each round (--seed)
    left_out: NotRequired[list[LeftOutModel]]  # since 2026-11-28
    latencies: NotRequired[LatencyChoices]  # since 2026-11-28, when a planned point chooses


class PinningRecord(TypedDict):
    """environment.pinning: the CPU sets each side was given (None: unpinned)."""

    requested: str
    applied: bool
    usable: list[int]
    server: list[int] | None
    crawler: list[int] | None
    harness: list[int] | None
    note: str | None


class ServerPlace(TypedDict):
    """environment.server: where the test sites ran (here, or over ssh on another host)."""

    remote: bool
    ssh: str | None  # the --server ssh:// URL
    host: str | None  # the address the sites listened on, there
    remote_c10k: NotRequired[str]  # how that host's shell ran c10k
    version: NotRequired[str]  # that c10k's --version line


class Environment(TypedDict):
    python: dict[str, Any]
    packages: dict[str, str | None]
    cpu: dict[str, Any]
    kernel: dict[str, str]
    memory_kib: dict[str, int]
    page_size: int
    limits: dict[str, Any]  # RLIMITs and sysctls by their own names
    load_average: list[float]
    threads_on_machine: int | None
    pinning: PinningRecord
    server: ServerPlace


class PlanEntry(TypedDict):
    id: str
    round: int | None
    estimate_s: float
    timeout_s: float
