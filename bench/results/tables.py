"""derived.<scenario>: the per-scenario tables of figures (docs/results.md, "derived")."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict, cast

from c10k.stats import recorded_median

Interval = list[float]  # [low, high] of a 95% interval
# ok; failed-verification; crashed; limit; usage-error; timeout; interrupted; server-error;
# skipped; unavailable (docs/results.md, runs[].status)
RunStatus = str


class Deviations(TypedDict):
    """A peer's deviations from the contract: counted by itself, and its differences from
    the manifest by cause (verification.deviations; summed in derived.peers)."""

    counted: dict[str, int]
    differences: dict[str, int]


class FigureSummary(TypedDict):
    """A figure over repetitions (c10k.stats.Summary as recorded)."""

    n: int
    median: float | None
    min: float | None
    max: float | None
    iqr: float | None
    cv: float | None
    noisy: bool
    mean: float | None
    ci95: Interval | None


def summary_median(summary: FigureSummary | None) -> float | None:
    """A recorded summary's median, or None (no summary, or no finite value)."""
    return recorded_median(cast(dict[str, Any] | None, summary))


class Fit(TypedDict):
    """A least-squares line (c10k.stats.LinearFit as recorded): the slope per unit of x."""

    n: int
    slope: float | None
    intercept: float | None
    r2: float | None
    slope_ci95: Interval | None
    slope_repeat95: Interval | None


class RoundFigures(TypedDict):
    round: int
    pages_per_s: float | None
    cpu_us_per_page: float | None
    max_rss_kib: NotRequired[float]  # the crawl's peak RSS (absent in older files)
    plateau_pages_per_s: NotRequired[float | None]  # wide sites with a latency


class PointBusy(TypedDict, total=False):
    """The side a point kept CPU-bound, over its runs that recorded `busy`."""

    cpu_bound: str | None
    crawler_busy: float
    server_busy: float
    cpu_bound_runs: dict[str, int]


class Point(PointBusy):
    """One (model, point) of a crawl scenario over its valid runs."""

    site: str
    concurrency: int
    processes: int
    core: NotRequired[str]  # the crawler core's variant (absent in older files: "c")
    interpreters: NotRequired[int]  # the interpreters model's --interpreters, when given
    latency: str
    mean_latency_s: float
    pages: int
    runs: int
    pages_per_s: FigureSummary
    cpu_us_per_page: FigureSummary
    latency_p50_s: FigureSummary
    latency_p99_s: FigureSummary
    max_rss_kib: FigureSummary
    server_saturated_runs: int  # runs that saw the server CPU-bound
    server_unknown_runs: int  # runs that lost reads of the server's CPU: they decide nothing
    server_peak_in_flight: int
    rounds: list[RoundFigures]
    # wide sites with a latency
    ideal_pages_per_s: NotRequired[float]
    plateau_pages_per_s: NotRequired[FigureSummary]
    fraction_of_ideal: NotRequired[float | None]
    fraction_of_ideal_ci95: NotRequired[Interval | None]
    # the server's CPU per request (its whole run's CPU over its requests), and the share of
    # its core C/L asks of it at that cost: above about half, the point is server-bound
    server_cpu_us_per_request: NotRequired[float | None]
    server_ideal_load: NotRequired[float | None]
    # runs with a plateau (sleepy-style points)
    plateau_kernel_delta_kib: NotRequired[FigureSummary]
    plateau_rss_kib: NotRequired[FigureSummary]
    plateau_uss_kib: NotRequired[FigureSummary | None]
    plateau_tcp_mem_delta_kib: NotRequired[FigureSummary | None]
    ramp_s: NotRequired[FigureSummary | None]


class PerUrl(TypedDict):
    runs: int
    bytes_per_url: float
    bytes_per_url_ci95: Interval | None
    net_rss_bytes: float
    net_rss_bytes_ci95: Interval | None
    urls_per_connection: float
    gross_rss_bytes: float | None


class LeftOut(TypedDict):
    """A point a memory fit left out: its quiet runs that verified, of those that ran, and
    the runs of noisy rounds beside them (they count in nothing)."""

    concurrency: int
    pages: int
    verified: int
    runs: int
    noisy: NotRequired[int]


class MemoryFit(TypedDict):
    """memory_per_connection: bytes per connection, fitted over every run."""

    from_concurrency: int
    concurrencies: list[int]
    runs: int
    rss_bytes: Fit
    peak_rss_bytes: Fit
    kernel_tcp_bytes: NotRequired[Fit]
    uss_bytes: NotRequired[Fit]
    check_anon_bytes: Fit
    check_gap: float | None
    kernel_bytes: Fit
    total_bytes: float | None
    total_bytes_ci95: Interval | None
    per_url: PerUrl | None
    left_out: NotRequired[list[LeftOut]]
    processes: NotRequired[int]  # memory_across_processes: the fit's process count


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
    per_process: NotRequired[list[dict[str, Any]] | None]


class IdleProblem(TypedDict):
    mode: str
    count: int | None
    processes: int
    status: RunStatus
    reason: str | None


class IdleEntry(TypedDict, total=False):
    """derived.idle.<kind>: a slope run's figures, the traced run's, the thread ceilings."""

    count: int
    rss_bytes_per_unit: float | None
    rss_r2: float | None
    kernel_bytes_per_unit: dict[str, float | None]
    kernel_total_bytes_per_unit: float
    total_bytes_per_unit: float | None
    total_bytes_per_unit_ci95: list[float] | None
    start_us_per_unit: float | None
    seconds_to_start_all: float
    start_rate_per_s: float | None
    start_rate_per_s_ci95: list[float] | None
    rss_kib_at_count: float
    tracemalloc_bytes_per_unit: float | None
    tracemalloc_count: int
    max_threads: ThreadCeiling
    max_threads_machine: ThreadCeiling
    problems: list[IdleProblem]


IdleTable = dict[str, IdleEntry]  # idle kind -> its entry


class NoiseFloor(TypedDict):
    runs: int
    cpu_s: FigureSummary
    wall_s: FigureSummary


class InstructionsEntry(TypedDict):
    runs_by_status: dict[str, int]
    instructions_per_page: NotRequired[FigureSummary]
    pages: NotRequired[int]
    startup_instructions: NotRequired[int]
    concurrency: NotRequired[int]
    site_pages: NotRequired[int]
    core_share: NotRequired[float]


InstructionsTable = dict[str, InstructionsEntry]  # model (or the core replay) -> its entry
ScenarioTable = CrawlTable | IdleTable | NoiseFloor | InstructionsTable
