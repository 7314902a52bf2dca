"""Every derived figure from the recorded runs alone (`python -m bench.analysis.derive FILE`)."""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, cast

from bench import results
from bench.analysis.overview import overview
from bench.analysis.plateau import run_plateau
from bench.harness.cores import harness_cost, point_busy
from bench.harness.plan import mean_latency
from c10k import catalog, probes
from c10k.stats import (
    Interval,
    plane_fit,
    recorded_interval,
    recorded_median,
    relative_gap,
    replicated_fit,
    summarize,
)


def _measured_ok(runs: Iterable[dict[str, Any]], scenario: str) -> list[dict[str, Any]]:
    return [
        r
        for r in runs
        if r["scenario"] == scenario and r["kind"] == "measured" and r["status"] == "ok"
    ]


# A crawl point's identity: concurrency, latency, pages and crawler processes.
PointKey = tuple[int, str, int, int]


def _point_key(run: dict[str, Any]) -> PointKey:
    params = run["params"]
    server = params["server"]
    processes = params.get("processes", 1)  # files before `c10k crawl --processes`: one
    return params["concurrency"], server["latency"], server["pages"], processes


def _measured(
    runs: Iterable[dict[str, Any]], scenario: str, model: str
) -> Iterable[dict[str, Any]]:
    return (
        r
        for r in runs
        if r["scenario"] == scenario and r["model"] == model and r["kind"] == "measured"
    )


def _counts(runs: Iterable[dict[str, Any]], scenario: str, model: str) -> dict[str, int]:
    return dict(Counter(r["status"] for r in _measured(runs, scenario, model)))


def _attempts(runs: Iterable[dict[str, Any]], scenario: str, model: str) -> Counter[PointKey]:
    """Per point, the measured runs that ran (verified or not; a skipped run never did)."""
    return Counter(
        _point_key(r) for r in _measured(runs, scenario, model) if r["status"] != "skipped"
    )


def _held(verified: int, runs: int) -> bool:
    """A point enters a memory fit only when most of its runs verified. Where a model fails
    more often than it holds (threads at C 10,000 stalls on the GIL), the run that held is a
    survivor with no spread of its own, and whether a session draws one changed the range its
    slope was fitted over: sessions' slopes then differed by more than their intervals."""
    return 2 * verified > runs


def kernel_delta_kib(run: dict[str, Any]) -> float | None:
    """Machine-wide kernel memory at a run's plateau minus before it: stacks, slab, page
    tables and TCP buffers (both ends of each loopback connection)."""
    plateau = run_plateau(run)
    before = run.get("kernel_before") or {}
    meminfo = before.get("meminfo_kib") or {}
    sockstat = before.get("sockstat") or {}
    total = 0.0
    for field_name, sampled in probes.KERNEL_GROWTH_FIELDS.items():
        if plateau.get(sampled) is None or meminfo.get(field_name) is None:
            return None
        total += plateau[sampled] - meminfo[field_name]
    if plateau.get("tcp_mem_kib") is not None:
        total += plateau["tcp_mem_kib"] - sockstat.get("mem_kib", 0)
    return total


def run_round(run: dict[str, Any]) -> int:
    """The round a measured run ran in; older files have only the repetition, which their
    plan ran round-robin the same way."""
    found = run.get("round")
    return int(run["repetition"] if found is None else found)


def _plateau_rate(crawl: dict[str, Any], latency: float) -> float | None:
    """Fetches after the root over the time after the root's own latency: the rate in the
    plateau, which a perfect crawler makes C/L on a wide site of whole waves."""
    return (crawl["pages"] - 1) / (crawl["wall_s"] - latency) if crawl["wall_s"] > latency else None


def crawl_point(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Median, spread and 95% interval of one (model, point) over its valid repetitions, and
    each run's figures by round, so that ratios between models can pair them."""
    crawls = [r["crawl"] for r in runs]
    params = runs[0]["params"]
    latency = mean_latency(params["server"]["latency"])
    concurrency = params["concurrency"]
    figures: dict[str, Any] = {
        "site": params["server"].get("preset") or params["server"]["shape"],
        "concurrency": concurrency,
        "processes": params.get("processes", 1),
        "latency": params["server"]["latency"],
        "mean_latency_s": latency,
        "pages": crawls[0]["pages"],
        "runs": len(runs),
        "pages_per_s": summarize([c["pages_per_s"] or 0.0 for c in crawls]).as_dict(),
        "cpu_us_per_page": summarize([c["cpu_us_per_page"] or 0.0 for c in crawls]).as_dict(),
        "latency_p50_s": summarize([c["latency_s"]["p50"] for c in crawls]).as_dict(),
        "latency_p99_s": summarize([c["latency_s"]["p99"] for c in crawls]).as_dict(),
        "max_rss_kib": summarize([float(c["max_rss_kib"]) for c in crawls]).as_dict(),
        "server_saturated_runs": sum(1 for r in runs if r["server"]["saturated"]),
        "server_peak_in_flight": max(
            (r["verification"]["server_peak_in_flight"] or 0) for r in runs
        ),
    }
    wide = latency > 0 and params["server"]["shape"] == "wide"
    figures["rounds"] = [
        {
            "round": run_round(r),
            "pages_per_s": c["pages_per_s"],
            "cpu_us_per_page": c["cpu_us_per_page"],
        }
        | ({"plateau_pages_per_s": _plateau_rate(c, latency)} if wide else {})
        for r, c in zip(runs, crawls, strict=True)
    ]
    if wide:
        plateau = [rate for c in crawls if (rate := _plateau_rate(c, latency)) is not None]
        ideal = concurrency / latency
        figures["ideal_pages_per_s"] = ideal
        figures["plateau_pages_per_s"] = summarize(plateau).as_dict()
        median = figures["plateau_pages_per_s"]["median"]
        figures["fraction_of_ideal"] = median / ideal if median else None
        interval = recorded_interval(figures["plateau_pages_per_s"])
        figures["fraction_of_ideal_ci95"] = (
            interval.scaled(1 / ideal).as_list() if interval and median else None
        )
    kernel = [d for d in (kernel_delta_kib(r) for r in runs) if d is not None]
    if kernel:
        figures["plateau_kernel_delta_kib"] = summarize(kernel).as_dict()
    plateaus = [run_plateau(r) for r in runs]
    rss = [float(p["rss_kib"]) for p in plateaus if p.get("rss_kib") is not None]
    if rss:
        figures["plateau_rss_kib"] = summarize(rss).as_dict()
        uss = [float(p["uss_kib"]) for p in plateaus if p.get("uss_kib") is not None]
        figures["plateau_uss_kib"] = summarize(uss).as_dict() if uss else None
        tcp = [
            float(p["tcp_mem_kib"] - r["kernel_before"]["sockstat"].get("mem_kib", 0))
            for p, r in zip(plateaus, runs, strict=True)
            if p.get("tcp_mem_kib") is not None
        ]
        figures["plateau_tcp_mem_delta_kib"] = summarize(tcp).as_dict() if tcp else None
        ramps = [float(p["ramp_s"]) for p in plateaus if p.get("ramp_s") is not None]
        figures["ramp_s"] = summarize(ramps).as_dict() if ramps else None
    return figures | point_busy(runs)


def _plateau_bytes(run: dict[str, Any], field: str) -> float | None:
    value = run_plateau(run).get(field)
    return None if value is None else float(value) * 1024.0


def _peak_bytes(run: dict[str, Any]) -> float | None:
    return float(run["crawl"]["max_rss_kib"]) * 1024.0


def _kernel_bytes(run: dict[str, Any]) -> float | None:
    delta = kernel_delta_kib(run)
    return None if delta is None else delta * 1024.0


def _tcp_bytes(run: dict[str, Any]) -> float | None:
    tcp = run_plateau(run).get("tcp_mem_kib")
    if tcp is None:
        return None
    return float(tcp - run["kernel_before"]["sockstat"].get("mem_kib", 0)) * 1024.0


def _fit_runs(
    runs: list[dict[str, Any]], figure: Callable[[dict[str, Any]], float | None]
) -> dict[str, Any]:
    """Least squares of one figure of every run (bytes) against its concurrency: each run is
    an independent process, so the slope's interval holds the scatter from run to run, each
    concurrency's own when every one ran more than once."""
    pairs = [(r["params"]["concurrency"], y) for r in runs if (y := figure(r)) is not None]
    return replicated_fit([float(c) for c, _ in pairs], [y for _, y in pairs]).as_dict()


def _per_url(runs: list[dict[str, Any]], rss_slope: float | None) -> dict[str, Any] | None:
    """Bytes per URL held in the frontier, apart from bytes per connection: plateau RSS against
    concurrency and the site's pages together. At the first wave's plateau the root page has
    queued every page of the site, so a point with more pages per connection (more waves) at
    the same C tells the two apart; without one they move together and cannot be told apart."""
    rows = [
        (float(r["params"]["concurrency"]), float(r["params"]["server"]["pages"]), y)
        for r in runs
        if (y := _plateau_bytes(r, "rss_kib")) is not None
    ]
    fit = plane_fit([c for c, _, _ in rows], [p for _, p, _ in rows], [y for _, _, y in rows])
    if not math.isfinite(fit.slope_z):
        return None
    base = [p / c for c, p, _ in rows]
    return {
        "runs": fit.n,
        "bytes_per_url": fit.slope_z,
        "bytes_per_url_ci95": _as_list(fit.slope_z_ci95),
        "net_rss_bytes": fit.slope_x,
        "net_rss_bytes_ci95": _as_list(fit.slope_x_ci95),
        "urls_per_connection": min(base),
        "gross_rss_bytes": rss_slope,
    }


def _as_list(interval: Interval | None) -> list[float] | None:
    return None if interval is None else interval.as_list()


def memory_per_connection(
    points: list[dict[str, Any]],
    min_concurrency: int,
    runs: list[dict[str, Any]],
    url_runs: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Slopes against concurrency over every run, with R² and 95% intervals: held (plateau
    RSS, USS and kernel memory), peak (the whole run's peak RSS, what a user must provision),
    the independent check (smaps_rollup's anonymous memory) and the per-URL share."""
    chosen = [p for p in points if p.get("plateau_rss_kib") and p["concurrency"] >= min_concurrency]
    fitted = [r for r in runs if r["params"]["concurrency"] >= min_concurrency and run_plateau(r)]
    fit = _fit_runs(fitted, lambda r: _plateau_bytes(r, "rss_kib"))
    result: dict[str, Any] = {
        "from_concurrency": min_concurrency,
        "concurrencies": [p["concurrency"] for p in chosen],
        "runs": len(fitted),
        "rss_bytes": fit,
        "peak_rss_bytes": _fit_runs(fitted, _peak_bytes),
    }
    tcp = _fit_runs(fitted, _tcp_bytes)
    uss = _fit_runs(fitted, lambda r: _plateau_bytes(r, "uss_kib"))
    result |= {"kernel_tcp_bytes": tcp} if tcp["slope"] is not None else {}
    result |= {"uss_bytes": uss} if uss["slope"] is not None else {}
    check = _fit_runs(fitted, lambda r: _plateau_bytes(r, "anon_kib"))
    result["check_anon_bytes"] = check
    result["check_gap"] = relative_gap(check["slope"], fit["slope"])
    # Every kernel field sampled (stacks, slab, page tables, TCP), over the same runs.
    kernel = _fit_runs(fitted, _kernel_bytes)
    result["kernel_bytes"] = kernel
    slope = fit["slope"]
    # A negative kernel slope is noise from the rest of the machine, not a saving.
    extra = max(0.0, kernel["slope"] or 0.0)
    result["total_bytes"] = None if slope is None else slope + extra
    low_high = fit.get("slope_ci95")
    result["total_bytes_ci95"] = None if not low_high else [v + extra for v in low_high]
    per_url_runs = fitted + [
        r for r in url_runs or [] if r["params"]["concurrency"] >= min_concurrency
    ]
    result["per_url"] = _per_url(per_url_runs, slope) if url_runs else None
    return result


def _split_url_points(
    groups: dict[PointKey, list[dict[str, Any]]],
) -> tuple[list[PointKey], list[PointKey]]:
    """Per concurrency (and processes), the point with the fewest pages is the scenario's own;
    one with more pages per connection at the same C only measures the per-URL share."""
    fewest: dict[tuple[int, int], int] = {}
    for c, _, pages, processes in groups:
        fewest[c, processes] = min(pages, fewest.get((c, processes), pages))
    base = [k for k in groups if k[2] == fewest[k[0], k[3]]]
    return base, [k for k in groups if k[2] != fewest[k[0], k[3]]]


def derive_crawl_scenario(
    runs: list[dict[str, Any]], scenario: str, fit_min_concurrency: int | None
) -> dict[str, Any]:
    valid = _measured_ok(runs, scenario)
    models = sorted({r["model"] for r in runs if r["scenario"] == scenario})
    table: dict[str, Any] = {}
    for model in models:
        groups: dict[PointKey, list[dict[str, Any]]] = defaultdict(list)
        for r in valid:
            if r["model"] == model:
                groups[_point_key(r)].append(r)
        base, extra = list(groups), list[PointKey]()
        if fit_min_concurrency is not None:
            base, extra = _split_url_points(groups)
        points = [crawl_point(groups[key]) for key in sorted(base, key=_sort_key)]
        entry: dict[str, Any] = {"runs_by_status": _counts(runs, scenario, model), "points": points}
        if extra:
            entry["url_points"] = [crawl_point(groups[k]) for k in sorted(extra, key=_sort_key)]
        if fit_min_concurrency is not None:
            entry |= _memory_fits(
                groups, base, extra, fit_min_concurrency, _attempts(runs, scenario, model)
            )
        table[model] = entry
    return table


def _memory_fits(
    groups: dict[PointKey, list[dict[str, Any]]],
    base: list[PointKey],
    extra: list[PointKey],
    fit_min_concurrency: int,
    tried: Counter[PointKey],
) -> dict[str, Any]:
    """memory_per_connection over one process's points; and, for the points that several
    processes crawled (c100k), memory_across_processes: one fit per process count, over
    every process of the crawl. A per-URL point belongs to the fit of its process count.
    Each fit holds only the points that held (_held), and names the others in left_out."""
    held = {k for k in groups if _held(len(groups[k]), tried[k])}

    def of(keys: list[PointKey], processes: int) -> list[PointKey]:
        return [k for k in keys if k[3] == processes]

    def fit(processes: int) -> dict[str, Any]:
        ordered = sorted((k for k in of(base, processes) if k in held), key=_sort_key)
        url_keys = [k for k in of(extra, processes) if k in held]
        found = memory_per_connection(
            [crawl_point(groups[k]) for k in ordered],
            fit_min_concurrency,
            [r for k in ordered for r in groups[k]],
            [r for k in url_keys for r in groups[k]],
        )
        # Every point that ran (tried), so that one whose runs all failed is named too.
        left_out = sorted(set(of(list(tried), processes)) - held, key=_sort_key)
        if left_out:
            found["left_out"] = [
                {
                    "concurrency": k[0],
                    "pages": k[2],
                    "verified": len(groups.get(k, [])),
                    "runs": tried[k],
                }
                for k in left_out
            ]
        return found

    counts = sorted({k[3] for k in base if k in held})
    fewest = counts[0] if counts else 1
    fits: dict[str, Any] = {"memory_per_connection": fit(fewest)}
    across = [{"processes": p} | fit(p) for p in counts if p != fewest]
    return fits | ({"memory_across_processes": across} if across else {})


def _sort_key(key: PointKey) -> tuple[int, int, float, int]:
    return key[3], key[0], mean_latency(key[1]), key[2]


def _idle_slope(idle: dict[str, Any]) -> dict[str, Any]:
    """The figures of one idle slope run: per-unit costs, their totals, how fast units started."""
    per_unit = idle["per_unit"]
    kernel_parts = {name: per_unit[f"{name}_bytes"] for name in probes.KERNEL_GROWTH_FIELDS}
    # Machine-wide deltas: a negative share is noise from other processes, not a saving.
    kernel = sum(max(0.0, v) for v in kernel_parts.values() if _finite(v))
    rss = per_unit["rss_bytes"]
    last = idle["points"][-1]
    seconds = last["elapsed_s"]
    return {
        "count": idle["count"],
        "rss_bytes_per_unit": rss,
        "rss_r2": per_unit["rss_r2"],
        "kernel_bytes_per_unit": kernel_parts,
        "kernel_total_bytes_per_unit": kernel,
        "total_bytes_per_unit": None if rss is None else rss + kernel,
        "start_us_per_unit": per_unit["start_us"],
        "seconds_to_start_all": seconds,
        "start_rate_per_s": idle["count"] / seconds if seconds and seconds > 0 else None,
        "rss_kib_at_count": last["rss_kib"],
    }


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


def derive_noise_floor(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The fixed CPU loop's CPU and wall seconds over its fresh processes: their CV is how
    much this machine alone moves a CPU figure (no crawl can be steadier)."""
    loops = [
        r["loop"] for r in runs if r["scenario"] == catalog.NOISE_FLOOR.name and r["status"] == "ok"
    ]
    return {
        "runs": len(loops),
        "cpu_s": summarize([loop["cpu_s"] for loop in loops]).as_dict(),
        "wall_s": summarize([loop["wall_s"] for loop in loops]).as_dict(),
    }


def derive_idle(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per idle kind: RSS, kernel memory, tracemalloc and start time per unit; thread ceiling."""
    table: dict[str, Any] = {}
    for r in runs:
        if r["scenario"] != catalog.IDLE.name:
            continue
        entry = table.setdefault(r["model"], {})
        mode = r["params"]["mode"]
        if r["status"] != "ok":
            entry.setdefault("problems", []).append(
                {
                    "mode": mode,
                    "count": r["params"].get("count"),
                    "processes": r["params"].get("processes", 1),
                    "status": r["status"],
                    "reason": r["reason"],
                }
            )
            continue
        idle = r["idle"]
        if mode == "until-failure":
            failure = idle["failure"]
            processes = r["params"].get("processes", 1)
            # One process: its own ceiling (C3); several at once: the machine's (C5).
            name = "max_threads_machine" if processes > 1 else "max_threads"
            entry[name] = {
                key: failure[key]
                for key in ("count", "stopped_by", "error", "errno", "cap", "elapsed_s")
            } | {"context": failure["context"], "processes": processes}
            if processes > 1:
                entry[name]["per_process"] = failure.get("processes")
        elif mode == "tracemalloc":
            entry["tracemalloc_bytes_per_unit"] = idle["per_unit"].get("tracemalloc_bytes")
            entry["tracemalloc_count"] = idle["count"]
        else:
            entry |= _idle_slope(idle)
    return table


def derive_instructions(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per model and for the core replay: callgrind instructions per page (the median of its
    counted runs), and the core's share of each model's."""
    name = catalog.INSTRUCTIONS.name
    table: dict[str, Any] = {}
    for model in sorted({r["model"] for r in runs if r["scenario"] == name}):
        counted = [r for r in _measured_ok(runs, name) if r["model"] == model]
        entry: dict[str, Any] = {"runs_by_status": _counts(runs, name, model)}
        if counted:
            params = counted[0]["params"]
            entry |= {
                "instructions_per_page": summarize(
                    [r["instructions"]["per_page"] for r in counted]
                ).as_dict(),
                "pages": counted[0]["instructions"]["pages"],
                "startup_instructions": counted[0]["instructions"]["startup_ir"],
                "concurrency": params["concurrency"],
                "site_pages": params["server"]["pages"],
            }
        table[model] = entry
    core = recorded_median(table.get(catalog.CORE_REPLAY, {}).get("instructions_per_page"))
    for model, entry in table.items():
        mine = recorded_median(entry.get("instructions_per_page"))
        if model != catalog.CORE_REPLAY and core and mine:
            entry["core_share"] = core / mine
    return table


def fit_thresholds(document: dict[str, Any]) -> dict[str, int]:
    """Per scenario with a memory fit, its lowest concurrency, as the profile recorded it."""
    definition = (document.get("profile") or {}).get("definition") or {}
    return {
        s["name"]: s["fit_min_concurrency"]
        for s in definition.get("scenarios") or []
        if s.get("fit_min_concurrency")
    }


def derive(
    runs: list[dict[str, Any]],
    fit_min: dict[str, int],
    environment: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Every derived figure; fit_min maps scenarios with a memory fit to its lowest C.

    A peer's runs never enter the models' tables (nor any comparison or verdict read from
    them): they get their own section, `peers`, the report's reference rows."""
    everything = runs
    runs = [r for r in everything if r["model"] not in catalog.PEERS]
    tables: dict[str, Any] = {}
    scenarios = []
    for r in runs:
        if r["scenario"] not in scenarios:
            scenarios.append(r["scenario"])
    for scenario in scenarios:
        if scenario == catalog.IDLE.name:
            tables[scenario] = derive_idle(runs)
        elif scenario == catalog.NOISE_FLOOR.name:
            tables[scenario] = derive_noise_floor(runs)
        elif scenario == catalog.INSTRUCTIONS.name:
            tables[scenario] = derive_instructions(runs)
        else:
            tables[scenario] = derive_crawl_scenario(runs, scenario, fit_min.get(scenario))
    return (
        tables
        | overview(tables, everything, environment or {})
        | {"peers": derive_peers(everything, fit_min), "harness_cost": harness_cost(everything)}
    )


def derive_peers(runs: list[dict[str, Any]], fit_min: dict[str, int]) -> dict[str, Any]:
    """Per peer and scenario, the same table as a model's, plus `by_point`: each point's
    runs by status and the deviations they counted (summed), verified or not; per peer, why
    it did not run."""
    peers: dict[str, Any] = {}
    for name in catalog.PEERS:
        mine = [r for r in runs if r["model"] == name and r["kind"] == "measured"]
        if not mine:
            continue
        entry: dict[str, Any] = {"scenarios": {}}
        if all(r["status"] == "skipped" for r in mine):
            entry["not_run"] = mine[0].get("reason")
        for scenario in dict.fromkeys(r["scenario"] for r in mine):
            table = derive_crawl_scenario(mine, scenario, fit_min.get(scenario)).get(name, {})
            groups: dict[PointKey, list[dict[str, Any]]] = defaultdict(list)
            for r in mine:
                if r["scenario"] == scenario and r.get("params"):
                    groups[_point_key(r)].append(r)
            table["by_point"] = [
                {
                    "site": group[0]["params"]["server"].get("preset")
                    or group[0]["params"]["server"]["shape"],
                    "concurrency": key[0],
                    "latency": key[1],
                    "runs_by_status": dict(Counter(r["status"] for r in group)),
                    "deviations": _summed(
                        (r.get("verification") or {}).get("deviations") or {} for r in group
                    ),
                }
                for key, group in sorted(groups.items(), key=lambda kv: _sort_key(kv[0]))
            ]
            entry["scenarios"][scenario] = table
        peers[name] = entry
    return peers


def _summed(found: Iterable[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Deviations of several runs added up: counted (by the peer) and differences."""
    total: dict[str, dict[str, int]] = {"counted": {}, "differences": {}}
    for deviations in found:
        for part in total:
            for kind, n in (deviations.get(part) or {}).items():
                total[part][kind] = total[part].get(kind, 0) + n
    return total


def derive_document(document: results.Results) -> results.Derived:
    """The derived section of a results document, from its runs, profile and environment."""
    runs = cast(list[dict[str, Any]], document["runs"])
    environment = cast(dict[str, Any], document["environment"])
    return cast(results.Derived, derive(runs, fit_thresholds(dict(document)), environment))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m bench.analysis.derive",
        description="Recompute the derived section of a results file from its recorded runs.",
    )
    p.add_argument("results", type=Path, help="the results.json to rewrite in place")
    args = p.parse_args(argv)
    try:
        document = results.load(args.results)
    except ValueError as exc:
        sys.stderr.write(f"bench.analysis.derive: error: {exc}\n")
        return 2
    try:
        document["derived"] = derive_document(document)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        # A hand-edited or truncated run record: say which file, not a traceback.
        reason = f"{type(exc).__name__}: {exc}".replace("\n", " ")
        sys.stderr.write(
            f"bench.analysis.derive: error: {args.results} holds a run it cannot read ({reason})\n"
        )
        return 2
    results.write_atomic(args.results, document)
    print(f"derived: {args.results} ({len(document['runs'])} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
