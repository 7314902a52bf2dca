"""The report's sections on how the runs ran and what they hold: memory per connection held and
peak, the CPU sets, the side that was CPU-bound at each point, and the harness's own cost."""

from __future__ import annotations

import math

from bench import results
from bench.report.layout import Block, Column, Table, section, table, table_section
from bench.report.palette import model_order
from bench.results import Results
from bench.results.words import latencies_text
from c10k import catalog
from c10k.durations import Latency
from c10k.quantity import Quantity
from c10k.words import counts, in_kib, kib, kib_range, number, percent, percent_gap, times

MEMORY, C100K, CORES = "memory", "c100k", "cores"  # the sections' anchors


# -- memory per connection -------------------------------------------------------------------

# Per sleepy model: the held slopes (plateau) with their 95% intervals, the independent check
# and its gap, the per-URL share and the net slope, the peak slope.
MEMORY_COLUMNS: list[Column[results.MemoryFit]] = [
    Column("model", lambda m, f: m),
    Column(
        "fitted C (runs)",
        lambda m, f: (counts(f.concurrencies) or "-") + (f" ({f.runs})" if f.runs else ""),
    ),
    Column("held: RSS slope", lambda m, f: str(in_kib(f.rss_bytes.slope)), True),
    Column("a repeat run", lambda m, f: kib_range(f.rss_bytes.repeat, 2), True),
    Column("R²", lambda m, f: number(f.rss_bytes.r2, 3), True),
    Column("check: smaps anon slope", lambda m, f: kib(f.check_anon_bytes.slope.value), True),
    Column("gap", lambda m, f: percent_gap(f.check_gap), True),
    Column("held: kernel slope", lambda m, f: kib(f.kernel_bytes.slope.value), True),
    Column("held: total", lambda m, f: str(in_kib(f.total_bytes)), True),
    Column(
        "per URL", lambda m, f: str(in_kib(f.per_url.bytes_per_url if f.per_url else None, 2)), True
    ),
    Column(
        "held: net of URLs",
        lambda m, f: str(in_kib(f.per_url.net_rss_bytes if f.per_url else None)),
        True,
    ),
    Column("peak: peak-RSS slope", lambda m, f: kib(f.peak_rss_bytes.slope.value), True),
    Column("R²", lambda m, f: number(f.peak_rss_bytes.r2, 3), True),
]


def memory_table(document: Results) -> Table:
    memory = results.memory_fits(document["derived"], catalog.SLEEPY.name)
    return table(MEMORY_COLUMNS, ((m, memory[m]) for m in model_order(list(memory))))


def memory_section(document: Results) -> list[Block]:
    title = "Memory per connection, held and peak (sleepy)"
    found = results.highlights(document["derived"], catalog.SLEEPY.name, results.SleepyHighlights)
    fitted = found["fit_concurrencies"] if found else []
    lead = (
        "Held is what a connection costs while it is open: the least-squares slope of the plateau "
        "RSS (every connection open and the crawler waiting, before the first response is read) of "
        "every run against C, with its 95% interval (each run is its own process); a repeat run is "
        "where the slope of a second run of this design should fall, 95% of the time (√2 times "
        "wider: both runs' scatter), in the same environment (another tox env of the same commit "
        "moved some models' slopes by up to 0.6%: docs/notes/2026-11-26-tox-env-levels.md); "
        "and the kernel slope "
        "(stacks, slab, page tables, TCP buffers; "
        "machine-wide, both ends) beside it. The check is the same fit of the anonymous memory "
        "that the harness reads from /proc/PID/smaps_rollup at the same samples, a count the "
        "kernel makes by walking the page tables; the gap is its distance from the RSS slope. Per "
        "URL is what the crawler holds for each URL in its frontier (a point with more pages per "
        "connection at the same C tells it apart); net of URLs is the slope with the URLs held "
        "fixed. Peak is what a user must provision: the slope of each run's peak RSS (the "
        "crawler's ru_maxrss), reached while responses are read and the next wave opens. Kernel "
        "memory is not sampled at the peak. "
        f"Fitted over C = {counts(fitted)}."
    )
    left_out = [
        f"{model} at C {p.concurrency:,} ({p.verified} of {p.runs} verified"
        + (f", {p.noisy} more ran in noisy rounds" if p.noisy else "")
        + ")"
        for model, fit in results.memory_fits(document["derived"], catalog.SLEEPY.name).items()
        for p in (fit.left_out if fit else [])
    ]
    if left_out:
        lead += (
            " Left out of its model's fits, a point whose quiet runs verified in half or "
            f"fewer (too few to give the point a spread of its own): {'; '.join(left_out)}."
        )
    return table_section(MEMORY, title, memory_table(document), lead=lead)


# -- past one process (c100k) ----------------------------------------------------------------


def _fitted(slope: Quantity | None, concurrencies: list[int] | None) -> str:
    found = str(in_kib(slope))
    return f"{found} (C {counts(concurrencies)})" if concurrencies and found != "-" else found


# Per c100k model: the most connections held and how long they took to open, memory per
# connection in one process and across the processes, and the ratio.
PAST_ONE_PROCESS_COLUMNS: list[Column[results.C100kModel]] = [
    Column("model", lambda m, c: m),
    Column("held at once (server's peak)", lambda m, c: number(c["held"]), True),
    Column("C", lambda m, c: number(c["held_concurrency"]), True),
    Column("processes", lambda m, c: number(c["held_processes"]), True),
    Column("ramp", lambda m, c: "-" if c["ramp_s"] is None else f"{c['ramp_s']:.0f} s", True),
    Column(
        "one process: RSS slope",
        lambda m, c: _fitted(c["one_process"], c["one_process_concurrencies"]),
        True,
    ),
    Column(
        "across processes: RSS slope",
        lambda m, c: _fitted(c["across_processes"], c["across_processes_concurrencies"]),
        True,
    ),
    Column("ratio", lambda m, c: times(c["ratio"]), True),
    Column("net of URLs: one process", lambda m, c: str(in_kib(c["one_process_net"])), True),
    Column("across processes", lambda m, c: str(in_kib(c["across_processes_net"])), True),
    Column("ratio", lambda m, c: times(c["net_ratio"]), True),
]


def past_one_process_table(document: Results) -> Table:
    found = results.highlights(document["derived"], catalog.C100K.name, results.C100kHighlights)
    models = found["models"] if found else {}
    return table(PAST_ONE_PROCESS_COLUMNS, ((m, models[m]) for m in model_order(list(models))))


def _forwarded(document: Results) -> bool:
    """Whether the c100k runs were made when several processes shared one crawl through a
    coordinator (their crawl documents name it), before each crawled a part of the site."""
    return any(
        "coordinator" in (run.get("crawl") or {})
        for run in document.get("runs") or []
        if run["scenario"] == catalog.C100K.name
    )


def past_one_process_section(document: Results) -> list[Block]:
    """The c100k scenario: connections held by several processes, titled with how many."""
    found = results.highlights(document["derived"], catalog.C100K.name, results.C100kHighlights)
    held = found["largest_peak_in_flight"] if found else 0
    title = (
        f"Past one process: {held:,} connections held on one machine (c100k)"
        if held
        else "Past one process: connections held by several processes (c100k)"
    )
    lead = (
        "One process may open 20,000 files here, and one destination address gives 28,232 "
        "ephemeral ports, so the crawl runs as several processes (`c10k crawl --processes`) "
        "against a server of as many workers on as many loopback addresses, every worker "
        "keeping its connections alive. Held at once is the server's peak in flight summed "
        "over its workers, at the point where it was largest; the ramp is the time from 5% "
        "to 95% of the connections open, from the crawler's samples. Memory per connection "
        "is the plateau RSS slope, summed over the crawler's processes (the parent that "
        "started them included), with its 95% interval; the ratio is the slope across "
        "processes over the slope in one process. Net of URLs is the same slope with the URLs "
        "held fixed (a point with twice the pages per connection at each process count tells "
        "them apart). "
        + (
            "These runs shared one crawl through a coordinator, the parent, which forwarded "
            "each URL to the process that owned it: a URL found by another process was kept by "
            "both. "
            if _forwarded(document)
            else "Each process crawls a part of the site of its own: no URL is held twice. "
        )
        + "Models with a thread per worker sit this scenario out: the machine's threads stop "
        "near pid_max (C5)."
    )
    why = "Not measured (the full profile's c100k scenario)."
    return table_section(C100K, title, past_one_process_table(document), "", why, lead)


# -- cores -----------------------------------------------------------------------------------


def _cpus(cpus: list[int] | None) -> str:
    return ", ".join(str(c) for c in cpus or []) or "-"


def pinning_text(document: Results) -> str:
    """Where each side ran, from environment.pinning."""
    pinning = (document.get("environment") or {}).get("pinning")
    if not pinning:
        return "CPU sets: not recorded (results written before --pin)."
    if pinning.get("applied"):
        return (
            f"Pinned (--pin on): the server and the harness (with its sampler thread) on CPU "
            f"{_cpus(pinning.get('server'))}, the crawler on CPU {_cpus(pinning.get('crawler'))}."
        )
    if pinning.get("note"):
        return f"Not pinned: {pinning['note']}."
    return (
        f"Not pinned (--pin {pinning.get('requested', 'off')}): the server, the crawler and "
        f"the harness shared CPU {_cpus(pinning.get('usable'))}."
    )


def harness_text(document: Results) -> str:
    """The harness's own CPU share over the sampled crawls, in one sentence."""
    cost = document["derived"].get("harness_cost")
    if not cost:
        return "The harness's own CPU share was not recorded."
    return (
        f"The harness's own CPU during the {cost['runs']} measured crawls it sampled: median "
        f"{percent(cost['median_share'], 1)}, at most {percent(cost['max_share'], 1)} of one "
        f"CPU ({cost['max_run']}); its sampler thread alone, median "
        f"{percent(cost.get('sampler_median_share'), 1)}."
    )


def noise_floor_text(document: Results) -> str:
    """How much the machine alone moved a fixed CPU loop, in one sentence."""
    floor = results.noise_floor(document["derived"])
    cpu = floor["cpu_s"] if floor else None
    spread = cpu.spread if cpu else None
    if not cpu or not spread or spread.minimum is None or spread.maximum is None:
        return "The noise floor (a fixed CPU loop in fresh processes) was not measured."
    steady = (
        f"; CV {percent(spread.cv, 1)} (every crawl figure with a CV near or under it is "
        "as steady as this machine allows)"
        if cpu.n > 1
        else ""
    )
    return (
        f"The noise floor: one fixed CPU-bound loop, run in {cpu.n} fresh processes on the "
        f"crawler's CPUs, took {spread.minimum * 1000:.0f}-{spread.maximum * 1000:.0f} ms of "
        f"CPU (median {(cpu.value or 0.0) * 1000:.0f} ms){steady}."
    )


# A point in a CPU-bound table: processes, concurrency, mean latency, site.
TableKey = tuple[int, int, float, str]


def _point_key(p: results.Point) -> TableKey:
    return p["processes"], p["concurrency"], p["latency"].mean_s, p["site"]


def _label(key: TableKey, latency: Latency, keys: list[TableKey]) -> str:
    """A point's column heading: only the parts that vary within the scenario."""
    processes, concurrency, _, site = key
    sites, latencies = {k[3] for k in keys}, {k[2] for k in keys}
    parts = [site] if len(sites) > 1 else []
    if len({k[1] for k in keys}) > 1 or len(latencies) == 1:
        parts.append(f"C {concurrency:,}")
    if len(latencies) > 1:
        parts.append(f"L {latency.text}")
    if len({k[0] for k in keys}) > 1:
        parts.append(f"P {processes}")
    return " ".join(parts)


def _busy(share: float) -> str:
    # Rounded down, so that a share shown as 90% is one the 90% rule counted as CPU-bound.
    return f"{math.floor(share * 100)}%"


def _cell(p: results.Point | None) -> str:
    if not p or not p.get("cpu_bound") or "crawler_busy" not in p or "server_busy" not in p:
        return "-"
    return f"{p['cpu_bound']} ({_busy(p['crawler_busy'])} / {_busy(p['server_busy'])})"


def cpu_bound_table(document: Results, scenario: str) -> Table | None:
    """Models by points, each cell the CPU-bound side with both busy shares; None when no
    point of the scenario recorded one."""
    table = results.scenario_points(document["derived"], scenario)
    found = [p for entries in table.values() for p in entries if p.get("cpu_bound")]
    if not found:
        return None
    by_key = {_point_key(p): p for p in found}
    keys = sorted(by_key)
    header = ["model", *(_label(k, by_key[k]["latency"], keys) for k in keys)]
    rows = []
    for model in model_order(list(table)):
        mine = {_point_key(p): p for p in table[model]}
        rows.append([model, *(_cell(mine.get(k)) for k in keys)])
    return Table(header, rows, caption=scenario)


def cores_section(document: Results) -> list[Block]:
    tables = [t for s in catalog.SAMPLED_CRAWL_SCENARIOS if (t := cpu_bound_table(document, s))]
    lead = (
        "Each cell: the side that was CPU-bound at that point (crawler, server, both or "
        "neither; a side busy 90% or more of the CPUs it can use), then the crawler's and the "
        "server's busy shares (medians over the runs). A server-bound point's pages/s is the "
        "server's limit; its CPU per page still holds."
        if tables
        else "No run recorded which side was CPU-bound."
    )
    chosen = (document.get("profile") or {}).get("latencies")
    return section(
        CORES,
        "Isolated cores and the CPU-bound side",
        [
            pinning_text(document),
            harness_text(document),
            noise_floor_text(document),
            latencies_text(chosen) if chosen else "",
            lead,
        ],
        tables,
        [],
    )
