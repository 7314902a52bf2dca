"""derived: the figures across models and runs, and the section as a whole."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NotRequired, TypedDict, TypeVar, cast

from bench.results.tables import (
    CrawlTable,
    Deviations,
    IdleTable,
    InstructionsTable,
    MemoryFit,
    ModelTable,
    NoiseFloor,
    Point,
    RunStatus,
    ScenarioTable,
)
from c10k import catalog
from c10k.durations import Latency
from c10k.quantity import Quantity


class PeerPoint(TypedDict):
    site: str
    concurrency: int
    latency: Latency
    runs_by_status: dict[str, int]
    deviations: Deviations


class PeerScenario(ModelTable):
    by_point: list[PeerPoint]  # every point's runs, verified or not, and their deviations


class PeerEntry(TypedDict):
    scenarios: dict[str, PeerScenario]
    not_run: NotRequired[str | None]  # why not (every run skipped: not installed)


@dataclass(frozen=True)
class NotCounted:
    """A measured run that did not count, with what it still tells (for crossed markers)."""

    run_id: str
    scenario: str
    model: str
    status: RunStatus
    reason: str
    concurrency: int | None
    latency: Latency | None
    pages_per_s: float | None
    plateau_rss_kib: float | None
    cpu_us_per_page: float | None
    noisy: bool  # it ran in a noisy round (it would not have counted anyway)


class SocketCeiling(TypedDict):
    count: int | None
    limit: str


class HarnessCost(TypedDict):
    runs: int
    median_share: float
    max_share: float
    max_run: str
    sampler_median_share: float | None


class Look(TypedDict):
    """A comparison judged after some paired rounds (c10k.sequential): its ratio (the
    geometric mean of the per-round ratios, over n rounds) and interval at the look's
    confidence."""

    ratio: Quantity
    decided: bool  # no bound of the rule inside the interval
    precise: bool  # the interval within the rule's precision of the value


class PairedComparison(TypedDict):
    """One comparison a verdict rests on, judged by the paired rounds' stopping rule."""

    claim: str
    name: str
    scenario: str
    figure: str
    numerators: list[str]  # their median per round (one model: its own ratio)
    denominator: str
    bounds: list[float]
    concurrencies: list[int]
    latencies: list[Latency]
    per_round: dict[str, float]  # round -> the log ratio of that round (complete rounds)
    round_counts: RoundCounts  # the rounds at its points, as rounds_seen counts
    look: Look | None  # the look it stopped at, or the last it reached; None before the first
    stopped: bool  # it needs no more rounds
    stopped_by: str | None  # "decided", "precise", "cap"; None while open


class RoundCounts(TypedDict):
    """A scenario's paired rounds: how many ran, how many were noisy, how many ran again;
    and, when some waited for a quiet machine before they started, how many and how long."""

    rounds: int
    noisy: int
    again: int
    waited: NotRequired[int]  # rounds that waited
    waited_s: NotRequired[float]  # their pauses, in all
    lost: NotRequired[list[tuple[str, int]]]  # (site, C) with no quiet run, where rounds were noisy


class ModelRatios(TypedDict):
    pages_per_s: Quantity
    cpu_us_per_page: Quantity | None
    concurrencies: list[int]


class EventLoopVsThreads(TypedDict):
    models: dict[str, ModelRatios]
    median_pages_per_s: Quantity | None  # the paired rounds' look where one was taken
    concurrencies: list[int]
    look: NotRequired[Look]  # the paired rounds' judgement, whose ratio that is


class UvloopPair(TypedDict):
    plain: str
    fast: str
    cpu_per_page_speedup: Quantity
    pages_per_s_ratio: Quantity | None
    concurrencies: list[int]
    look: NotRequired[Look]  # the paired rounds' judgement of cpu_per_page_speedup


class UvloopComparison(TypedDict):
    scenario: str
    pairs: list[UvloopPair]


class InstructionRatios(TypedDict):
    event_loop_vs_threads: dict[str, float]
    uvloop_speedup: dict[str, float]
    # The same over the loop's own work: each count less the core replay's (raw-socket pairs).
    loop_own_speedup: dict[str, float]


class LoopClaimFigures(TypedDict):
    """A loop's claim (catalog Model.claim) on both views: the crawler's CPU per page of the
    model it names over the loop's, in few-active, and callgrind's instructions per page of
    the same two, whole and the loop's own (less the core replay's)."""

    model: str
    against: str
    cpu_per_page_speedup: Quantity | None
    concurrencies: list[int]
    instructions_speedup: float | None
    loop_own_speedup: float | None


class AsyncioVsThreads(TypedDict):
    concurrency: int
    latency: Latency
    pages: int
    asyncio_fraction_of_ideal: Quantity
    threads_fraction_of_ideal: Quantity | None
    asyncio_over_threads: Quantity | None
    server_ideal_load: float | None  # the share of its core C/L asks there
    look: NotRequired[Look]  # the paired rounds' judgement of asyncio_over_threads


class Comparisons(TypedDict):
    event_loop_vs_threads: EventLoopVsThreads
    uvloop: UvloopComparison | None
    asyncio_vs_threads_sleepy: AsyncioVsThreads | None
    asyncio_vs_threads_sleepy_keep_alive: AsyncioVsThreads | None
    instructions: InstructionRatios | None
    paired: list[PairedComparison]
    loop_claims: NotRequired[list[LoopClaimFigures]]  # derived before the league: none


class Ranking(TypedDict):
    """The best and worst model of a figure, and by what factor they differ."""

    higher_is_better: bool
    values: dict[str, Quantity]
    best: str
    worst: str
    factor: float | None


class IdleHighlights(TypedDict):
    thread_over_task: float | None
    cheapest_coroutine: str | None
    most_started_coroutine: str | None
    costliest_coroutine: str | None
    most_coroutine_units: int
    coroutines_by_start_rate: list[str]


class FewActiveHighlights(TypedDict):
    largest_concurrency: int
    pages_per_s: Ranking | None
    cpu_us_per_page: Ranking | None
    latency_p99_ms: Ranking | None
    threads_pages: int | None
    threads_most_runs_per_point: int


class RealisticHighlights(FewActiveHighlights):
    site: str  # the site read: deep where it ran, else the first other


class LargestPlateau(TypedDict):
    most: str | None
    most_mib: float | None
    least: str | None
    least_mib: float | None


class MemoryHighlights(TypedDict):
    """The memory fits of a scenario's models side by side."""

    memory_total_kib: Ranking | None
    fit_concurrencies: list[int]
    largest_plateau_rss_mib: LargestPlateau | None


class SleepyHighlights(MemoryHighlights):
    largest_concurrency: int
    judged_latency: Latency | None  # the longest L at the largest C
    percent_of_ideal: Ranking | None
    no_verified_run_at_largest: list[str]
    latencies: list[Latency]
    latency_p50_ms: Ranking | None
    latency_p99_ms: Ranking | None
    largest_peak_in_flight: int


class C100kModel(TypedDict):
    held: int | None
    held_concurrency: int | None
    held_processes: int | None
    ramp_s: float | None
    one_process: Quantity | None  # the RSS slope in one process
    one_process_concurrencies: list[int] | None
    processes: int | None
    across_processes: Quantity | None  # the RSS slope across the most processes
    across_processes_concurrencies: list[int] | None
    ratio: float | None
    one_process_net: Quantity | None  # the same, net of the URLs each connection brings
    across_processes_net: Quantity | None
    one_process_url_bytes: float | None
    across_processes_url_bytes: float | None
    net_ratio: float | None


class C100kHighlights(TypedDict):
    largest_peak_in_flight: int
    models: dict[str, C100kModel]


class LatencyEnd(TypedDict):
    latency: Latency
    pages_per_s: Ranking | None
    best_fraction_of_ideal: float | None


class LatencySweepHighlights(TypedDict):
    concurrencies: list[int]
    by_latency: list[LatencyEnd]


Highlights = (
    IdleHighlights
    | FewActiveHighlights
    | RealisticHighlights
    | SleepyHighlights
    | C100kHighlights
    | LatencySweepHighlights
)


class Derived(TypedDict, total=False):
    """derived: the figures across models and runs (the analysis' overview), the peers'
    tables and the harness's cost; empty before the first run. Each scenario's table sits
    beside them under the scenario's name, read through the readers below."""

    not_counted: list[NotCounted]
    comparisons: Comparisons
    highlights: dict[str, Highlights]  # scenario -> what its chart and verdicts quote
    socket_ceiling: SocketCeiling
    rounds: dict[str, RoundCounts]  # scenario -> its paired rounds
    not_run: list[str]  # scenarios with no run at all
    peers: dict[str, PeerEntry]
    harness_cost: HarnessCost | None


# -- its readers: each takes derived, or the tables alone as derive builds them ----------------


def crawl_table(derived: Mapping[str, object], scenario: str) -> CrawlTable:
    """derived.<scenario> of a crawl scenario: model -> its table; {} when it did not run."""
    return cast(CrawlTable, derived.get(scenario) or {})


def idle_table(derived: Mapping[str, object]) -> IdleTable:
    """derived.idle: idle kind -> its entry; {} when the scenario did not run."""
    return cast(IdleTable, derived.get(catalog.IDLE.name) or {})


def noise_floor(derived: Mapping[str, object]) -> NoiseFloor | None:
    """derived.noise-floor, or None when the scenario did not run."""
    return cast(NoiseFloor | None, derived.get(catalog.NOISE_FLOOR.name))


def instructions_table(derived: Mapping[str, object]) -> InstructionsTable:
    """derived.instructions: model (or the core replay) -> its entry; {} when not run."""
    return cast(InstructionsTable, derived.get(catalog.INSTRUCTIONS.name) or {})


def with_tables(tables: Mapping[str, ScenarioTable], rest: Derived) -> Derived:
    """derived as it is written: each scenario's table under its name, then the rest."""
    return cast(Derived, {**tables, **rest})


def scenario_points(derived: Mapping[str, object], scenario: str) -> dict[str, list[Point]]:
    """Model -> its points in a crawl scenario ({} when it did not run; [] for an instructions
    entry, which has none)."""
    table = crawl_table(derived, scenario)
    return {model: entry.get("points", []) for model, entry in table.items()}


def memory_fits(derived: Mapping[str, object], scenario: str) -> dict[str, MemoryFit | None]:
    """Model -> its memory fit in a scenario (None: fewer than two points held)."""
    table = crawl_table(derived, scenario)
    return {model: entry.get("memory_per_connection") for model, entry in table.items()}


def peer_points(derived: Derived, scenario: str) -> dict[str, list[Point]]:
    """Peer -> its points in a crawl scenario, as scenario_points gives a model's."""
    return {
        name: entry["scenarios"][scenario]["points"]
        for name, entry in (derived.get("peers") or {}).items()
        if scenario in entry["scenarios"]
    }


H = TypeVar("H")


def highlights(derived: Derived, scenario: str, kind: type[H]) -> H | None:
    """derived.highlights.<scenario>, of the kind its scenario has; None when it did not run."""
    return cast(H | None, (derived.get("highlights") or {}).get(scenario))


# Runs never made (the model is missing on this interpreter, or not installed): the report
# lists them once, under "Runs that did not count"; the charts do not cross them out.
NEVER_MADE = frozenset({"skipped", "unavailable"})
# Runs that never ran: never made, or not run again after their point failed twice.
NEVER_RAN = NEVER_MADE | {"not-run"}


def not_counted(derived: Derived, scenario: str | None = None) -> list[NotCounted]:
    """The measured runs that did not count (all scenarios, or one)."""
    found = derived.get("not_counted") or []
    return [p for p in found if scenario is None or p.scenario == scenario]


def crossed_runs(derived: Derived, scenario: str) -> list[NotCounted]:
    """The runs of a scenario that were made and did not count: each chart crosses them out."""
    return [p for p in not_counted(derived, scenario) if p.status not in NEVER_MADE]
