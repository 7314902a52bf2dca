"""The report's tables as rows of text: realistic site, instructions per page, runs that did not
count, environment."""

from __future__ import annotations

from collections import Counter

from bench import results
from bench.report.conditions import pinning_text
from bench.report.layout import Column, Table, table
from bench.report.palette import PEER_MARK, label, model_order
from bench.report.sources import profile_name
from bench.results import Results
from bench.results.words import left_out_text
from c10k import catalog
from c10k.sequential import NOISY_SHARE
from c10k.words import KIB, cell, kib, number, percent, plain

REALISTIC_COLUMNS: list[Column[results.Point]] = [
    Column("model", lambda m, p: label(m)),
    Column("site", lambda m, p: p["site"]),
    Column("C", lambda m, p: f"{p['concurrency']:,}", True),
    Column("pages", lambda m, p: f"{p['pages']:,}", True),
    Column("pages/s", lambda m, p: cell(p["pages_per_s"]), True),
    Column("CPU µs/page", lambda m, p: cell(p["cpu_us_per_page"]), True),
    Column("p50 ms", lambda m, p: cell(p["latency_p50_s"], 1, 1000.0), True),
    Column("p99 ms", lambda m, p: cell(p["latency_p99_s"], 1, 1000.0), True),
    Column("max RSS MiB", lambda m, p: cell(p["max_rss_kib"], 1, 1 / 1024.0), True),
    Column("runs", lambda m, p: str(p["runs"]), True),
]


def realistic_table(document: Results) -> Table:
    """The realistic scenario: one row per model and point, each median with its 95% interval;
    the models, then each peer as a reference row (its name marked: not a model)."""
    derived, scenario = document["derived"], catalog.REALISTIC.name
    found = results.scenario_points(derived, scenario) | results.peer_points(derived, scenario)
    return table(REALISTIC_COLUMNS, ((m, p) for m in model_order(list(found)) for p in found[m]))


PEER_HEADER = [
    "peer",
    "scenario",
    "site",
    "C",
    "pages/s",
    "CPU µs/page",
    "max RSS MiB",
    "runs by status",
    "deviations counted by the peer",
    "differences from the manifest",
]
PEER_NOTE = (
    f"{PEER_MARK} A peer is what a user would use instead of writing a crawler: it runs "
    "beside the models in a few scenarios, up to its own concurrency ceiling, is verified "
    "against the same manifest, and is drawn as a reference line in the charts; no verdict, "
    "comparison or regression gate reads it. Deviations are the places where it cannot keep "
    'the crawl contract (docs/contract.md, "The Scrapy peer"), summed over its runs.'
)


def _counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{kind} {n:,}" for kind, n in counts.items()) or "none"


def peer_rows(document: Results) -> list[list[str]]:
    """Per peer, scenario and point: its medians (where a run verified), its runs by status
    and its deviations; or one row saying why a peer did not run (not installed)."""
    rows = []
    for name, entry in (document["derived"].get("peers") or {}).items():
        if why := entry.get("not_run"):
            rows.append([label(name), *["-"] * 7, why, "-"])
            continue
        for scenario, found in entry["scenarios"].items():
            medians = {(p["concurrency"], p["latency"]): p for p in found["points"]}
            for point in found["by_point"]:
                p = medians.get((point["concurrency"], point["latency"]))
                deviations = point["deviations"]
                rows.append(
                    [
                        label(name),
                        scenario,
                        point["site"],
                        f"{point['concurrency']:,}",
                        cell(p["pages_per_s"]) if p else "-",
                        cell(p["cpu_us_per_page"]) if p else "-",
                        cell(p["max_rss_kib"], 1, 1 / 1024.0) if p else "-",
                        _counts_text(point["runs_by_status"]),
                        _counts_text(deviations["counted"]),
                        _counts_text(deviations["differences"]),
                    ]
                )
    return rows


# Under every table of medians: how to read a cell.
MEDIAN_NOTE = (
    "Each figure is the median over the repetitions with its 95% interval [low, high]; "
    "a figure without one comes from a single run (no interval (1 run))."
)


def noisy_note(document: Results, scenario: str) -> str:
    """The scenario's noisy rounds, and the points they left with no run: ' 2 of the
    scenario's 3 rounds were noisy ...: the deep site at C 100 has no point here.'; then the
    rounds that waited for a quiet machine ('' when neither)."""
    counts = (document["derived"].get("rounds") or {}).get(scenario)
    if not counts:
        return ""
    waited = ""
    if n := counts.get("waited"):
        waited = (
            f" {n} round{'s' if n != 1 else ''} waited {counts.get('waited_s', 0.0):.0f} s in all "
            "for a noisy machine to quiet before they started."
        )
    if not counts["noisy"]:
        return waited
    lost = sorted(f"the {site} site at C {c:,}" for site, c in counts.get("lost", []))
    were = "was" if counts["noisy"] == 1 else "were"
    text = (
        f" {counts['noisy']} of the scenario's {counts['rounds']} rounds {were} noisy (the fixed "
        f"CPU loop before them ran more than {NOISY_SHARE:.0%} slower than the session's "
        "fastest), so "
        "their runs count in nothing"
    )
    return text + (f": {' and '.join(lost)} has no point here." if lost else ".") + waited


CPU_AT_C = "CPU µs/page"  # the instructions table's last column, where few-active ran


def instructions(document: Results) -> Table:
    """Instructions per page under callgrind, per model and for the core replay, with the
    core's share and the CPU per page few-active measured at the same concurrency (with its
    95% interval; a count repeats to within 0.1% and has none)."""
    cpu_at = {
        (model, p["concurrency"]): p["cpu_us_per_page"]
        for model, found in results.scenario_points(
            document["derived"], catalog.FEW_ACTIVE.name
        ).items()
        for p in found
    }
    columns: list[Column[results.InstructionsEntry]] = [
        Column("model", lambda m, e: m),
        Column("C", lambda m, e: f"{e['concurrency']:,}", True),
        Column("pages", lambda m, e: f"{e['pages']:,}", True),
        Column("instructions/page", lambda m, e: number(e["instructions_per_page"].value), True),
        Column("core share", lambda m, e: percent(e.get("core_share"), 0), True),
        Column(CPU_AT_C, lambda m, e: cell(cpu_at.get((m, e["concurrency"]))), True),
    ]
    counted = results.instructions_table(document["derived"])
    rows = [(m, counted[m]) for m in model_order(list(counted))]
    return table(columns, [(m, e) for m, e in rows if "instructions_per_page" in e])


NOT_COUNTED_HEADER = ["scenario", "model", "point", "verified", "did not count", "why", "runs"]


def _point_text(found: results.NotCounted) -> str:
    if found.concurrency is None:
        return "-"
    return f"C {found.concurrency:,}" + (f", L {found.latency.text}" if found.latency else "")


def _verified(document: Results, found: results.NotCounted) -> int:
    """How many runs of a problem's point counted (its derived point's runs; 0 without one)."""
    for p in results.scenario_points(document["derived"], found.scenario).get(found.model, []):
        if p["concurrency"] == found.concurrency and p["latency"] == found.latency:
            return int(p["runs"])
    return 0


def not_counted_rows(document: Results) -> list[list[str]]:
    """Every run that did not count, once: one row per point (scenario, model, concurrency and
    latency) with how many of the runs that ran verified ("0 of 2"), how the others ended
    and why ("2 timeout, 3 not-run": a point that failed twice is not run again), and their
    ids. Then one row per model the plan left out, as no runtime of the run can run it."""
    groups: dict[tuple[str, str, str], list[results.NotCounted]] = {}
    for problem in results.not_counted(document["derived"]):
        groups.setdefault((problem.scenario, problem.model, _point_text(problem)), []).append(
            problem
        )
    rows = []
    for (scenario, model, point), found in groups.items():
        statuses = Counter(p.status for p in found)
        reasons = list(dict.fromkeys(p.reason for p in found))
        verified = "-" if found[0].concurrency is None else str(_verified(document, found[0]))
        quiet = sum(1 for p in found if p.status not in results.NEVER_RAN and not p.noisy)
        total = "" if verified == "-" else f" of {int(verified) + quiet}"
        noisy = sum(1 for p in found if p.noisy and p.status not in results.NEVER_RAN)
        rows.append(
            [
                scenario,
                model,
                point,
                f"{verified}{total}",
                ", ".join(f"{n} {status}" for status, n in statuses.items())
                + (f" ({noisy} in noisy rounds)" if noisy else ""),
                "; ".join(reasons),
                ", ".join(p.run_id for p in found),
            ]
        )
    for entry in (document.get("profile") or {}).get("left_out") or []:
        rows.append(["-", entry["model"], "-", "-", "not planned", left_out_text(entry), "-"])
    return rows


def environment_rows(document: Results) -> list[tuple[str, str]]:
    """The environment table: machine, software and the limits that shape the numbers."""
    env = document.get("environment") or {}
    python = env.get("python") or {}
    cpu = env.get("cpu") or {}
    kernel = env.get("kernel") or {}
    limits = env.get("limits") or {}
    memory = env.get("memory_kib") or {}
    packages = env.get("packages") or {}

    def limit(name: str) -> str:
        value = limits.get(name, "-")
        if isinstance(value, dict):
            return f"{plain(value.get('soft'))} soft / {plain(value.get('hard'))} hard"
        if isinstance(value, list):
            return "-".join(str(v) for v in value)
        return plain(value)

    gil = "free-threaded (no GIL)" if python.get("gil_disabled") else "with the GIL"
    return [
        ("profile", f"{profile_name(document)} ({document.get('status', '?')})"),
        ("started", str(document.get("started_at") or "-")),
        ("CPU", f"{cpu.get('model', '?')}, {cpu.get('usable_cores', '?')} usable cores"),
        ("CPU sets", pinning_text(document)),
        ("memory", f"{number((memory.get('MemTotal') or 0) / KIB / KIB, 1)} GiB"),
        ("kernel", f"{kernel.get('system', '?')} {kernel.get('release', '?')}"),
        ("Python", f"{python.get('implementation', '?')} {python.get('version', '?')}, {gil}"),
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
