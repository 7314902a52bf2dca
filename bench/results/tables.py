"""derived.<scenario>: the per-scenario tables of figures (docs/results.md, "derived")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

from c10k.durations import Latency
from c10k.quantity import Fit, Quantity

# ok; failed-verification; crashed; limit; usage-error; timeout; interrupted; server-error;
# skipped; unavailable (docs/results.md, runs[].status)
RunStatus = str


class Deviations(TypedDict):
    """A peer's deviations from the contract: counted by itself, and its differences from
    the manifest by cause (verification.deviations; summed in derived.peers)."""

    counted: dict[str, int]
    differences: dict[str, int]


class RoundFigures(TypedDict):
    round: int
    pages_per_s: float | None
    cpu_us_per_page: float | None
    max_rss_kib: float  # the crawl's peak RSS
    plateau_pages_per_s: NotRequired[float | None]  # wide sites with a latency


class PointBusy(TypedDict, total=False):
    """The side a point kept CPU-bound, over its runs that recorded `busy`."""

    cpu_bound: str | None
    crawler_busy: float
    server_busy: float
    cpu_bound_runs: dict[str, int]


class Point(PointBusy):
    """One (model, point) of a crawl scenario over its valid runs: each figure the median over
    them, with its 95% t-interval and spread."""

    site: str
    concurrency: int
    processes: int
    core: str  # the crawler core's variant (catalog.CORES)
    interpreters: NotRequired[int]  # the interpreters model's --interpreters, when given
    latency: Latency
    pages: int
    runs: int
    pages_per_s: Quantity
    cpu_us_per_page: Quantity
    latency_p50_s: Quantity
    latency_p99_s: Quantity
    max_rss_kib: Quantity
    server_saturated_runs: int  # runs that saw the server CPU-bound
    server_unknown_runs: int  # runs that lost reads of the server's CPU: they decide nothing
    server_peak_in_flight: int
    rounds: list[RoundFigures]
    # wide sites with a latency
    ideal_pages_per_s: NotRequired[float]
    plateau_pages_per_s: NotRequired[Quantity]
    fraction_of_ideal: NotRequired[Quantity | None]
    # the server's CPU per request (its whole run's CPU over its requests), and the share of
    # its core C/L asks of it at that cost: above about half, the point is server-bound
    server_cpu_us_per_request: NotRequired[float | None]
    server_ideal_load: NotRequired[float | None]
    # runs with a plateau (sleepy-style points)
    plateau_kernel_delta_kib: NotRequired[Quantity]
    plateau_rss_kib: NotRequired[Quantity]
    plateau_uss_kib: NotRequired[Quantity | None]
    plateau_tcp_mem_delta_kib: NotRequired[Quantity | None]
    ramp_s: NotRequired[Quantity | None]


@dataclass(frozen=True)
class PerUrl:
    """Bytes per URL held in the frontier, apart from bytes per connection (net of them)."""

    runs: int
    bytes_per_url: Quantity
    net_rss_bytes: Quantity
    urls_per_connection: float
    gross_rss_bytes: float | None


@dataclass(frozen=True)
class LeftOut:
    """A point a memory fit left out: its quiet runs that verified, of those that ran, and
    the runs of noisy rounds beside them (they count in nothing)."""

    concurrency: int
    pages: int
    verified: int
    runs: int
    noisy: int = 0


@dataclass(frozen=True)
class MemoryFit:
    """memory_per_connection: bytes per connection, fitted over every run (kernel_tcp_bytes
    and uss_bytes None where no run sampled them)."""

    from_concurrency: int
    concurrencies: list[int]
    runs: int
    rss_bytes: Fit
    peak_rss_bytes: Fit
    check_anon_bytes: Fit
    check_gap: float | None
    kernel_bytes: Fit
    total_bytes: Quantity
    per_url: PerUrl | None
    kernel_tcp_bytes: Fit | None = None
    uss_bytes: Fit | None = None
    left_out: list[LeftOut] = field(default_factory=list)
    processes: int = 1  # memory_across_processes: the fit's process count


class ModelTable(TypedDict):
    """derived.<crawl scenario>.<model>."""

    runs_by_status: dict[str, int]
    points: list[Point]
    url_points: NotRequired[list[Point]]
    memory_per_connection: NotRequired[MemoryFit]
    memory_across_processes: NotRequired[list[MemoryFit]]


CrawlTable = dict[str, ModelTable]  # model -> its table


class ThreadCeiling(TypedDict):
    count: int
    stopped_by: str
    error: str | None
    errno: int | None
    cap: int
    elapsed_s: float
    context: dict[str, Any]  # the machine's limits at the moment of failure
    processes: int
    capped: bool  # it stopped at the harness's own cap, not at a limit
    machine_limit: bool  # it stopped at a limit of the whole machine: not the cap, nor per process
    per_process: NotRequired[list[dict[str, Any]] | None]


class IdleProblem(TypedDict):
    mode: str
    count: int | None
    processes: int
    status: RunStatus
    reason: str | None


@dataclass(frozen=True)
class IdleEntry:
    """derived.idle.<kind>: a slope run's figures (None without one), the traced run's, the
    thread ceilings (None where not started until failure) and the runs that did not count."""

    count: int | None = None
    rss_bytes_per_unit: float | None = None
    rss_r2: float | None = None
    kernel_bytes_per_unit: dict[str, float | None] = field(default_factory=dict)
    kernel_total_bytes_per_unit: float | None = None
    total_bytes_per_unit: Quantity | None = None
    start_us_per_unit: float | None = None
    seconds_to_start_all: float | None = None
    start_rate_per_s: Quantity | None = None
    rss_kib_at_count: float | None = None
    parked: int | None = None  # the units parked at the slope run's last step, as measured
    tracemalloc_bytes_per_unit: float | None = None
    tracemalloc_count: int | None = None
    max_threads: ThreadCeiling | None = None
    max_threads_machine: ThreadCeiling | None = None
    problems: list[IdleProblem] = field(default_factory=list)

    @property
    def failed_slopes(self) -> list[IdleProblem]:
        """Its slope runs that did not count."""
        return [p for p in self.problems if p["mode"] == "slope"]


IdleTable = dict[str, IdleEntry]  # idle kind -> its entry


class NoiseFloor(TypedDict):
    runs: int
    cpu_s: Quantity
    wall_s: Quantity


class InstructionsEntry(TypedDict):
    runs_by_status: dict[str, int]
    instructions_per_page: NotRequired[Quantity]
    pages: NotRequired[int]
    startup_instructions: NotRequired[int]
    concurrency: NotRequired[int]
    site_pages: NotRequired[int]
    core_share: NotRequired[float]


InstructionsTable = dict[str, InstructionsEntry]  # model (or the core replay) -> its entry
ScenarioTable = CrawlTable | IdleTable | NoiseFloor | InstructionsTable
