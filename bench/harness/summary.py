"""The plain-text summary `c10k bench` prints at the end: the derived figures, the failed runs."""

from __future__ import annotations

from bench.results import (
    CrawlTable,
    IdleTable,
    InstructionsTable,
    Results,
    crawl_table,
    idle_table,
    instructions_table,
    noise_floor,
)
from c10k import catalog
from c10k.quantity import Quantity
from c10k.stats import CV_FLAG
from c10k.words import cell, number, percent


def _m(figure: Quantity | None, digits: int = 0, scale: float = 1.0) -> str:
    """A figure's cell(), '734 [701, 760]', marked '~' when its CV is over CV_FLAG."""
    noisy = figure is not None and figure.spread is not None and figure.spread.noisy
    text = cell(figure, digits, scale)
    return "~" + text if noisy and text != "-" else text


def summary_table(document: Results) -> str:
    """The derived figures: medians with their 95% intervals, '~' where the CV is over CV_FLAG."""
    derived = document["derived"]
    out: list[str] = [
        f"median [95% interval] over the repetitions (one run: no interval); "
        f"~ = coefficient of variation above {CV_FLAG:.0%}",
        "",
    ]
    if catalog.IDLE.name in derived:
        out += idle_lines(idle_table(derived))
    for scenario in catalog.SAMPLED_CRAWL_SCENARIOS:  # idle first, on its own table
        if scenario in derived:
            out += ["", *crawl_lines(scenario, crawl_table(derived, scenario))]
    if catalog.INSTRUCTIONS.name in derived:
        out += ["", *instruction_lines(instructions_table(derived))]
    if (floor := noise_floor(derived)) and floor["cpu_s"].n:
        cpu = floor["cpu_s"]
        out += [
            "",
            f"noise floor: a fixed CPU loop in {cpu.n} fresh processes, median "
            f"{number(cpu.scaled(1000, 'ms').value)} ms of CPU, "
            f"CV {percent(cpu.spread.cv if cpu.spread else None, 1)}",
        ]
    if cost := derived.get("harness_cost"):
        out += [
            "",
            f"harness CPU during the sampled crawls: median {percent(cost['median_share'], 1)},"
            f" max {percent(cost['max_share'], 1)} of one CPU ({cost['max_run']})",
        ]
    failed = [r for r in document["runs"] if r["status"] not in ("ok",)]
    if failed:
        out.append("")
        out.append(f"runs that did not count ({len(failed)}):")
        for r in failed[:30]:
            out.append(f"  {r['id']}: {r['status']}: {r['reason']}")
    return "\n".join(out)


def idle_lines(entries: IdleTable) -> list[str]:
    """The idle table: per kind, RSS, kernel and tracemalloc bytes per unit, start time."""
    out = ["idle units        RSS B/unit   R²     kernel B/unit  tracemalloc B  start µs"]
    for kind, e in entries.items():
        kernel = sum(v or 0 for v in e.kernel_bytes_per_unit.values())
        out.append(
            f"  {kind:<18} {number(e.rss_bytes_per_unit):>9}  "
            f"{number(e.rss_r2, 3):>5}  {number(kernel) if e.count is not None else '-':>12}  "
            f"{number(e.tracemalloc_bytes_per_unit):>12}  "
            f"{number(e.start_us_per_unit, 1):>8}"
            + (f"  [{e.problems[0]['status']}: {e.problems[0]['reason']}]" if e.problems else "")
        )
        if (m := e.max_threads) is not None:
            out.append(
                f"    threads until failure: {m['count']:,} stopped by {m['stopped_by']}"
                + (f" ({m['error']})" if m.get("error") else "")
            )
    return out


def crawl_lines(scenario: str, models: CrawlTable) -> list[str]:
    """One crawl scenario's table: per model and point, throughput, CPU, latency, memory."""
    out = [
        f"{scenario:<21} {'C':>6} {'latency':>8} {'pages/s':>21} {'% of ideal':>14} "
        f"{'CPU µs/pg':>21} {'p50 ms':>21} {'p99 ms':>21} {'RSS MiB':>21}  runs"
    ]
    for model, entry in models.items():
        for p in entry["points"]:
            rate = p.get("plateau_pages_per_s") or p["pages_per_s"]
            ideal = p.get("fraction_of_ideal")
            rss = p.get("plateau_rss_kib") or p.get("max_rss_kib")
            bound = p.get("cpu_bound") or ("server" if p["server_saturated_runs"] else None)
            flag = f"  CPU-bound: {bound}" if bound in ("crawler", "server", "both") else ""
            out.append(
                f"  {model:<19} {p['concurrency']:>6} {p['latency'].text:>8} {_m(rate):>21} "
                f"{_m(ideal, 0, 100):>14} "
                f"{_m(p['cpu_us_per_page']):>21} {_m(p['latency_p50_s'], 1, 1e3):>21} "
                f"{_m(p['latency_p99_s'], 1, 1e3):>21} {_m(rss, 1, 1 / 1024):>21}  "
                f"{p['runs']}{flag}"
            )
        if not entry["points"]:
            out.append(f"  {model:<14} no valid run: {entry['runs_by_status']}")
        fit = entry.get("memory_per_connection")
        if fit and fit.rss_bytes.slope.value is not None:
            held, peak = fit.rss_bytes, fit.peak_rss_bytes
            repeat, tcp, per_url = held.repeat, fit.kernel_tcp_bytes, fit.per_url
            out.append(
                f"  {model:<14} memory per connection held {_m(held.slope)}"
                + (f" (a repeat run: {number(repeat.low)}-{number(repeat.high)})" if repeat else "")
                + f" B (R² {number(held.r2, 3)}, {fit.runs} runs), "
                f"check {percent(fit.check_gap, 1)}, "
                f"peak {number(peak.slope.value)} B (R² {number(peak.r2, 3)}), "
                f"C {fit.concurrencies}"
                + (f", kernel TCP {number(tcp.slope.value)} B" if tcp else "")
                + (
                    f", {number(per_url.bytes_per_url.value)} B per URL, net "
                    f"{number(per_url.net_rss_bytes.value)} B"
                    if per_url
                    else ""
                )
            )
    return out


def instruction_lines(entries: InstructionsTable) -> list[str]:
    """Per model (and the core replay), instructions per page and the core's share of them."""
    out = [f"{catalog.INSTRUCTIONS.name:<16} {'C':>6} {'instr/page':>11} {'core share':>10}"]
    for model in catalog.model_order(list(entries)):
        e = entries[model]
        if "instructions_per_page" not in e:
            out.append(f"  {model:<14} no valid run: {e['runs_by_status']}")
            continue
        share = e.get("core_share")
        out.append(
            f"  {model:<14} {e['concurrency']:>6} {_m(e['instructions_per_page']):>11} "
            f"{percent(share) if share else '-':>10}"
        )
    return out
