"""The results document's top level and its runs[] (docs/results.md, in its order)."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from bench.results.derived import Derived
from bench.results.identity import Block, PointKey
from bench.results.profile import Environment, PlanEntry, ProfileRecord
from bench.results.tables import Deviations, RunStatus
from c10k.durations import Latency

SCHEMA = "c10k-bench-results/3"
# Older schemas, each read through bench.results.migrate alone.
SCHEMA_V1, SCHEMA_V2 = "c10k-bench-results/1", "c10k-bench-results/2"
Status = Literal["running", "complete", "interrupted"]
RunKind = Literal["warmup", "measured", "sentinel"]


# -- runs[] ---------------------------------------------------------------------------------


class SiteParams(TypedDict):
    """params.server: the `c10k serve` options of a crawl's site."""

    pages: int
    links: int
    shape: str
    seed: int
    latency: Latency
    bandwidth: str | None
    faults: str | None
    workers: int
    preset: str | None
    addresses: int
    root_latency: bool  # False: the root answered at once (`c10k serve --root-now`)
    parts: int  # `c10k serve --parts`


class RunParams(TypedDict, total=False):
    """params: a crawl's point and options, or an idle run's spec; a CPU loop has none."""

    concurrency: int
    keep_alive: bool
    timeout_s: float
    max_tries: int
    check_peak: bool
    processes: int  # a crawl's --processes, or an idle run's processes at once
    core: str  # a crawl's --core (catalog.CORES)
    interpreters: int  # a crawl's --interpreters (0: the crawler's default)
    server: SiteParams
    kind: str
    count: int
    mode: str
    steps: int
    cap: int


class RunPinning(TypedDict):
    applied: bool
    crawler: list[int] | None
    server: list[int] | None
    harness: list[int] | None
    sampler: list[int] | None


class HarnessShare(TypedDict):
    cpu_s: float
    wall_s: float
    share: float | None
    sampler_cpu_s: NotRequired[float]


class RunRuntime(TypedDict):
    """runs[].runtime: the interpreter the run ran under."""

    tag: str
    version: str
    gil_disabled: bool
    executable: str


class RuntimeRecord(RunRuntime):
    """runtime: the interpreter every crawler, idle program and CPU loop ran under."""

    origin: str
    build: str
    base_executable: NotRequired[str]
    dependencies: dict[str, str] | None
    unavailable_models: dict[str, str]


class Latencies(TypedDict):
    """A crawl's latency per try (seconds; NaN, null in the file, without a try)."""

    p50: float
    p90: float
    p99: float
    max: float
    count: int


class CrawlDocument(TypedDict, total=False):
    """crawl: the crawler's `--json` document (docs/crawl-json.md) but `fetched`."""

    schema: str
    model: str
    root: str
    concurrency: int
    options: dict[str, Any]
    pages: int
    statuses: dict[str, int]
    errors: dict[str, int]
    tries: int
    wall_s: float
    pages_per_s: float | None
    cpu_user_s: float
    cpu_sys_s: float
    cpu_us_per_page: float | None
    max_rss_kib: int
    peak_in_flight: int
    latency_s: Latencies
    python: dict[str, Any]
    peer: bool
    deviations: dict[str, int]
    peak_in_flight_upper_bound: bool
    processes: list[dict[str, Any]]
    parent: dict[str, Any]
    fetched: dict[str, int | str]  # the harness verifies it, then leaves it out


class Verification(TypedDict):
    manifest_count: int
    fetched_count: int
    missing: int
    extra: int
    different: int
    examples: dict[str, list[Any]]
    manifest_ok: bool
    deviations: NotRequired[Deviations]
    server_peak_in_flight: int | None
    peak_required: float | None
    peak_ok: bool
    ok: bool


class ServerRecord(TypedDict):
    root: str
    stats: dict[str, Any]  # the server's /__stats__ after the run
    cpu_cores: dict[str, float] | None
    saturated: bool | None
    remote: NotRequired[bool]
    cpu_s: NotRequired[float | None]


class Busy(TypedDict):
    crawler: float
    server: float
    crawler_cpus: int
    server_cpus: int
    wall_s: float
    cpu_bound: str | None


class SamplerFailure(TypedDict):
    """sampler_failures: the reads of one kind that failed while the crawler ran."""

    count: int
    reason: str  # the first failure's error


class KernelBefore(TypedDict):
    meminfo_kib: dict[str, int]
    sockstat: dict[str, int]


class Heap(TypedDict):
    malloc: dict[str, str]
    layout_pad_bytes: int
    hash_seed: int


# samples: one list per column, a value per sample (docs/results.md, runs[].samples).
SAMPLE_FIELDS = (
    "t",
    "rss_kib",
    "vmrss_kib",
    "uss_kib",
    "smaps_rss_kib",
    "anon_kib",
    "cpu_user_s",
    "cpu_sys_s",
    "threads",
    "fds",
    "processes",
    "server_cpu_s",
    "tcp_inuse",
    "tcp_tw",
    "tcp_mem_kib",
    "slab_kib",
    "kernel_stack_kib",
    "page_tables_kib",
)
Samples = dict[str, list[Any]]


class Plateau(TypedDict, total=False):
    """plateau: the sampled columns' medians while every connection is open, none answered."""

    samples: int
    base_fds: int
    threshold_fds: float
    plateau_samples: int
    plateau_quiet: bool
    stretch_samples: int
    samples_above_threshold: int
    rss_kib: float | None
    vmrss_kib: float | None
    uss_kib: float | None
    smaps_rss_kib: float | None
    anon_kib: float | None
    fds: float | None
    threads: float | None
    tcp_mem_kib: float | None
    tcp_inuse: float | None
    slab_kib: float | None
    kernel_stack_kib: float | None
    page_tables_kib: float | None
    processes: float | None
    ramp_s: float
    max_rss_kib_above_threshold: float
    t_start: float
    t_end: float


class Instructions(TypedDict):
    startup_ir: int
    crawl_ir: int
    exit_ir: int
    pages: int
    per_page: float
    pythonhashseed: int


class IdleDocument(TypedDict, total=False):
    """idle: the `python -m impls.tools.idle` document (c10k-idle/1)."""

    schema: str
    kind: str
    mode: str
    count: int
    steps: int
    python: str
    available: bool
    note: str | None
    processes: int
    points: list[dict[str, Any]]  # n, rss_kib, meminfo_kib, elapsed_s, traced_bytes
    per_unit: dict[str, float | None]  # least-squares slopes per unit
    failure: dict[str, Any]  # until-failure: count, stopped_by, error, ..., context


class LoopDocument(TypedDict):
    """loop: the `python -m impls.tools.cpu_loop` document."""

    rounds: int
    found: int
    cpu_s: float
    wall_s: float


class Run(TypedDict):
    """One record of runs[]: what the plan said, how it ended, what it measured (a run that
    never started, skipped or server-error, only what the plan said and the status)."""

    id: str  # its label for people (bench.results.identity.run_label), never read back
    scenario: str
    model: str  # for idle runs, the idle kind
    kind: RunKind
    repetition: int
    point: PointKey | None  # a crawl's point; None for other runs
    round: int | None  # measured crawls: the round at its point; None otherwise
    params: RunParams
    estimate_s: float
    started_at: str
    status: RunStatus
    reason: str | None
    # The paired round the run belongs to (None: no round), the how-many-th time it ran (a
    # noisy round runs again), the how-many-th wait for quiet a sentinel kept as one is (0:
    # none), and whether its round was noisy (it then counts in nothing).
    block: Block | None
    again: int
    wait: int
    noisy: bool
    waited_s: NotRequired[float]  # a noisy sentinel kept as a wait: the pause that followed it
    runtime: NotRequired[RunRuntime]  # the run loop adds it to every record
    argv: NotRequired[list[str]]  # this and the four below: every run that started a process
    elapsed_s: NotRequired[float]
    exit_code: NotRequired[int | None]
    stderr_tail: NotRequired[str]
    pinning: NotRequired[RunPinning]
    harness: NotRequired[HarnessShare]
    # crawls (sampled) and counted crawls
    crawl: NotRequired[CrawlDocument | None]
    verification: NotRequired[Verification]
    kernel_before: NotRequired[KernelBefore]
    server: NotRequired[ServerRecord]
    busy: NotRequired[Busy | None]
    samples: NotRequired[Samples]
    sampler_failures: NotRequired[dict[str, SamplerFailure]]  # by read: server_cpu, crawler
    plateau: NotRequired[Plateau]  # sleepy-style points (check_peak) only
    heap: NotRequired[Heap]  # steady-heap scenarios only
    instructions: NotRequired[Instructions]  # counted runs only
    idle: NotRequired[IdleDocument]  # idle runs only
    loop: NotRequired[LoopDocument]  # CPU loop runs only


class Results(TypedDict):
    """The whole document, `c10k-bench-results/3`."""

    schema: str
    status: Status
    started_at: str
    finished_at: str | None
    command: list[str]
    profile: ProfileRecord
    environment: Environment
    plan: list[PlanEntry]
    runs: list[Run]
    derived: NotRequired[Derived]  # absent in an older file until derive runs (its migration)
    runtime: NotRequired[RuntimeRecord]
