"""The numbers behind the charts and verdicts, read from a results document (pure functions)."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from c10k import catalog
from c10k.stats import linear_fit, median
from harness.plan import mean_latency

KIB = 1024.0
# The idle kinds that are coroutines of some sort (everything but a thread).
COROUTINE_KINDS: tuple[str, ...] = tuple(
    k.name for k in catalog.IDLE_KINDS.values() if not k.thread
)
# Kernel fields of /proc/meminfo that grow with threads and sockets (KernelStack, Slab,
# PageTables); sampled as *_kib in a run's plateau and in kernel_before.meminfo_kib.
KERNEL_FIELDS: tuple[tuple[str, str], ...] = (
    ("kernel_stack_kib", "KernelStack"),
    ("slab_kib", "Slab"),
    ("page_tables_kib", "PageTables"),
)


def med(summary: dict[str, Any] | None) -> float | None:
    """The median of a derived summary, or None."""
    if not summary:
        return None
    value = summary.get("median")
    return float(value) if value is not None else None


def finite(value: Any) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


def derived(document: dict[str, Any], scenario: str) -> dict[str, Any]:
    """derived.<scenario>, or {} when the scenario did not run."""
    table: dict[str, Any] = (document.get("derived") or {}).get(scenario) or {}
    return table


def points(document: dict[str, Any], scenario: str) -> dict[str, list[dict[str, Any]]]:
    """Model -> its verified points in a crawl scenario (sorted by concurrency, latency)."""
    return {
        model: entry.get("points") or [] for model, entry in derived(document, scenario).items()
    }


def scenario_ran(document: dict[str, Any], scenario: str) -> bool:
    return any(r.get("scenario") == scenario for r in document.get("runs", []))


# -- runs that did not count -----------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """A measured run that did not count, with what it still tells (for hollow markers)."""

    run_id: str
    scenario: str
    model: str
    status: str
    reason: str
    concurrency: int | None
    latency: str | None
    pages_per_s: float | None  # from its crawl document, when it produced one
    plateau_rss_kib: float | None
    cpu_us_per_page: float | None


def problems(document: dict[str, Any], scenario: str | None = None) -> list[Problem]:
    """Measured runs whose status is not ok (all scenarios, or one)."""
    found = []
    for run in document.get("runs", []):
        if run.get("kind") != "measured" or run.get("status") == "ok":
            continue
        if scenario is not None and run.get("scenario") != scenario:
            continue
        params = run.get("params") or {}
        crawl = run.get("crawl") or {}
        plateau = run.get("plateau") or {}
        found.append(
            Problem(
                run_id=str(run.get("id")),
                scenario=str(run.get("scenario")),
                model=str(run.get("model")),
                status=str(run.get("status")),
                reason=str(run.get("reason") or run.get("status")),
                concurrency=params.get("concurrency"),
                latency=(params.get("server") or {}).get("latency"),
                pages_per_s=crawl.get("pages_per_s"),
                plateau_rss_kib=plateau.get("rss_kib"),
                cpu_us_per_page=crawl.get("cpu_us_per_page"),
            )
        )
    return found


# -- memory per connection (sleepy) ---------------------------------------------------------


def kernel_delta_kib(run: dict[str, Any]) -> float | None:
    """Machine-wide kernel memory at a run's plateau minus before it: stacks, slab, page
    tables and TCP buffers (both ends of each loopback connection)."""
    plateau = run.get("plateau") or {}
    before = run.get("kernel_before") or {}
    meminfo = before.get("meminfo_kib") or {}
    sockstat = before.get("sockstat") or {}
    total = 0.0
    for sampled, field_name in KERNEL_FIELDS:
        if plateau.get(sampled) is None or meminfo.get(field_name) is None:
            return None
        total += plateau[sampled] - meminfo[field_name]
    if plateau.get("tcp_mem_kib") is not None:
        total += plateau["tcp_mem_kib"] - sockstat.get("mem_kib", 0)
    return total


@dataclass(frozen=True)
class MemoryPerConnection:
    """Bytes per connection from the fits over plateau points, RSS and kernel beside it."""

    model: str
    concurrencies: list[int]
    rss_bytes: float | None
    rss_r2: float | None
    rss_intercept: float | None
    kernel_bytes: float | None
    kernel_r2: float | None
    points_rss_kib: list[tuple[int, float]] = field(default_factory=list)

    @property
    def total_bytes(self) -> float | None:
        if self.rss_bytes is None:
            return None
        return self.rss_bytes + max(0.0, self.kernel_bytes or 0.0)


def memory_per_connection(document: dict[str, Any]) -> dict[str, MemoryPerConnection]:
    """Per model: the harness's RSS slope, and a kernel slope fitted here from the runs."""
    result: dict[str, MemoryPerConnection] = {}
    kernel_by_point: dict[tuple[str, int], list[float]] = defaultdict(list)
    for run in document.get("runs", []):
        if run.get("scenario") != catalog.SLEEPY.name or run.get("kind") != "measured":
            continue
        if run.get("status") != "ok":
            continue
        delta = kernel_delta_kib(run)
        if delta is not None:
            kernel_by_point[(run["model"], run["params"]["concurrency"])].append(delta)
    for model, entry in derived(document, catalog.SLEEPY.name).items():
        fit = entry.get("memory_per_connection") or {}
        rss = fit.get("rss_bytes") or {}
        chosen = [int(c) for c in fit.get("concurrencies") or []]
        xs = [c for c in chosen if kernel_by_point.get((model, c))]
        kernel_fit = linear_fit(
            [float(c) for c in xs], [median(kernel_by_point[(model, c)]) * KIB for c in xs]
        )
        plotted = [
            (int(p["concurrency"]), float(p["plateau_rss_kib"]["median"]))
            for p in entry.get("points") or []
            if p.get("plateau_rss_kib") and p["plateau_rss_kib"].get("median") is not None
        ]
        result[model] = MemoryPerConnection(
            model=model,
            concurrencies=chosen,
            rss_bytes=rss.get("slope"),
            rss_r2=rss.get("r2"),
            rss_intercept=rss.get("intercept"),
            kernel_bytes=kernel_fit.slope if math.isfinite(kernel_fit.slope) else None,
            kernel_r2=kernel_fit.r2 if math.isfinite(kernel_fit.r2) else None,
            points_rss_kib=plotted,
        )
    return result


# -- idle units ------------------------------------------------------------------------------


@dataclass(frozen=True)
class IdleUnit:
    kind: str
    count: int | None
    rss_bytes: float | None
    rss_r2: float | None
    kernel_bytes: float | None  # KernelStack + Slab + PageTables per unit, negatives as 0
    tracemalloc_bytes: float | None
    seconds_to_start_all: float | None
    rss_kib_at_count: float | None
    max_threads: dict[str, Any] | None
    problems: list[dict[str, Any]]

    @property
    def total_bytes(self) -> float | None:
        if self.rss_bytes is None:
            return None
        return self.rss_bytes + (self.kernel_bytes or 0.0)


def idle_units(document: dict[str, Any]) -> dict[str, IdleUnit]:
    """Per idle kind: per-unit costs, units reached and the thread ceiling."""
    table: dict[str, IdleUnit] = {}
    for kind, entry in derived(document, catalog.IDLE.name).items():
        kernel_parts = entry.get("kernel_bytes_per_unit") or {}
        # Machine-wide deltas: a negative share is noise from other processes, not a saving.
        kernel = (
            sum(max(0.0, v) for v in kernel_parts.values() if finite(v)) if kernel_parts else None
        )
        table[kind] = IdleUnit(
            kind=kind,
            count=entry.get("count"),
            rss_bytes=entry.get("rss_bytes_per_unit"),
            rss_r2=entry.get("rss_r2"),
            kernel_bytes=kernel,
            tracemalloc_bytes=entry.get("tracemalloc_bytes_per_unit"),
            seconds_to_start_all=entry.get("seconds_to_start_all"),
            rss_kib_at_count=entry.get("rss_kib_at_count"),
            max_threads=entry.get("max_threads"),
            problems=list(entry.get("problems") or []),
        )
    return table


def idle_run_counts(document: dict[str, Any]) -> dict[str, list[tuple[int, str, str | None]]]:
    """Per idle kind: (count asked, status, reason) of every slope run, ok or not."""
    table: dict[str, list[tuple[int, str, str | None]]] = defaultdict(list)
    for run in document.get("runs", []):
        if (
            run.get("scenario") != catalog.IDLE.name
            or (run.get("params") or {}).get("mode") != "slope"
        ):
            continue
        table[run["model"]].append((int(run["params"]["count"]), run["status"], run.get("reason")))
    return dict(table)


# -- ratios between models --------------------------------------------------------------------


def geometric_mean(values: list[float]) -> float | None:
    positive = [v for v in values if finite(v) and v > 0]
    if not positive:
        return None
    return math.exp(sum(math.log(v) for v in positive) / len(positive))


def paired_ratio(
    document: dict[str, Any],
    scenario: str,
    numerator: str,
    denominator: str,
    figure: str,
    *,
    skip_saturated: bool = False,
) -> tuple[float | None, list[int]]:
    """Geometric mean over shared points of figure(numerator) / figure(denominator).

    Points where the test server was CPU-bound for either model are left out when
    skip_saturated: their pages/s is the server's, not the crawler's.
    """
    table = points(document, scenario)
    by_key = {
        name: {(p["concurrency"], p["latency"]): p for p in table.get(name, [])}
        for name in (numerator, denominator)
    }
    ratios, used = [], []
    for key in sorted(set(by_key[numerator]) & set(by_key[denominator])):
        a, b = by_key[numerator][key], by_key[denominator][key]
        if skip_saturated and (a["server_saturated_runs"] or b["server_saturated_runs"]):
            continue
        top, bottom = med(a.get(figure)), med(b.get(figure))
        if top is None or bottom is None or bottom <= 0 or top <= 0:
            continue
        ratios.append(top / bottom)
        used.append(int(key[0]))
    return geometric_mean(ratios), used


def latency_seconds(spec: str) -> float:
    return mean_latency(spec)


# -- text helpers ----------------------------------------------------------------------------


def kib(value_bytes: float | None, digits: int = 1) -> str:
    """Bytes as KiB text, '-' for None."""
    if value_bytes is None or not finite(value_bytes):
        return "-"
    return f"{value_bytes / KIB:,.{digits}f} KiB"


def number(value: float | None, digits: int = 0) -> str:
    if value is None or not finite(value):
        return "-"
    return f"{value:,.{digits}f}"


def span(values: list[int]) -> str:
    """'1-64' for a list of concurrencies, '-' for none."""
    if not values:
        return "-"
    low, high = min(values), max(values)
    return f"{low:,}" if low == high else f"{low:,}-{high:,}"


def environment_rows(document: dict[str, Any]) -> list[tuple[str, str]]:
    """The environment table: machine, software and the limits that shape the numbers."""
    env = document.get("environment") or {}
    python = env.get("python") or {}
    cpu = env.get("cpu") or {}
    kernel = env.get("kernel") or {}
    limits = env.get("limits") or {}
    memory = env.get("memory_kib") or {}
    packages = env.get("packages") or {}
    profile = document.get("profile") or {}

    def limit(name: str) -> str:
        if name not in limits:
            return "-"
        value = limits[name]
        if isinstance(value, dict):
            soft, hard = value.get("soft"), value.get("hard")
            return f"{_plain(soft)} soft / {_plain(hard)} hard"
        if isinstance(value, list):
            return "-".join(str(v) for v in value)
        return _plain(value)

    gil = "free-threaded (no GIL)" if python.get("gil_disabled") else "with the GIL"
    rows = [
        ("profile", f"{profile.get('name', '?')} ({document.get('status', '?')})"),
        ("started", str(document.get("started_at") or "-")),
        ("CPU", f"{cpu.get('model', '?')}, {cpu.get('usable_cores', '?')} usable cores"),
        ("memory", f"{number((memory.get('MemTotal') or 0) / KIB / KIB, 1)} GiB"),
        ("kernel", f"{kernel.get('system', '?')} {kernel.get('release', '?')}"),
        (
            "Python",
            f"{python.get('implementation', '?')} {python.get('version', '?')}, {gil}",
        ),
        (
            "packages",
            ", ".join(f"{name} {version or 'absent'}" for name, version in packages.items()),
        ),
        ("open files (RLIMIT_NOFILE)", limit("RLIMIT_NOFILE")),
        ("processes (RLIMIT_NPROC)", limit("RLIMIT_NPROC")),
        ("default thread stack", kib(limits.get("RLIMIT_STACK_soft_bytes"), 0)),
        ("vm.max_map_count", limit("vm.max_map_count")),
        ("kernel.pid_max", limit("kernel.pid_max")),
        ("kernel.threads-max", limit("kernel.threads-max")),
        ("ephemeral ports", limit("net.ipv4.ip_local_port_range")),
        ("ports per destination", limit("ephemeral_ports_per_destination")),
        ("load average at start", ", ".join(number(v, 2) for v in env.get("load_average") or [])),
    ]
    return rows


def _plain(value: Any) -> str:
    if value is None:
        return "unlimited"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)
