"""Memory per connection: slopes of plateau and peak RSS, and kernel memory, against C."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Literal

from bench.analysis.plateau import run_plateau
from bench.analysis.points import (
    Group,
    crawl_of,
    crawl_point,
    kernel_delta_kib,
    sort_key,
    tcp_delta_kib,
)
from bench.results import LeftOut, MemoryFit, ModelTable, PerUrl, Point, Run
from c10k.fits import plane_fit, replicated_fit
from c10k.quantity import FIT, Fit, Quantity
from c10k.stats import relative_gap
from c10k.words import KIB


def _held(verified: int, runs: int) -> bool:
    """A point enters a memory fit only when most of its runs verified. Where a model fails
    more often than it holds (threads at C 10,000 stalls on the GIL), the run that held is a
    survivor with no spread of its own, and whether a session draws one would change the range
    its slope covers (docs/notes/2026-11-26-hash-seed.md)."""
    return 2 * verified > runs


def _bytes(kib: float | None) -> float | None:
    return None if kib is None else float(kib) * KIB


def _plateau_bytes(run: Run, field: Literal["rss_kib", "uss_kib", "anon_kib"]) -> float | None:
    return _bytes(run_plateau(run).get(field))


def _held_bytes(run: Run) -> float | None:
    """Plateau RSS plus the kernel's growth, as measured (a fall too): what the run's
    connections held; unknown when either is."""
    rss, kernel = _plateau_bytes(run, "rss_kib"), _bytes(kernel_delta_kib(run))
    return None if rss is None or kernel is None else rss + kernel


def _fit_runs(runs: list[Run], figure: Callable[[Run], float | None]) -> Fit:
    """Least squares of one figure of every run (bytes) against its concurrency: each run is
    an independent process, so the slope's interval holds the scatter from run to run, each
    concurrency's own when every one ran more than once."""
    pairs = [(r["params"]["concurrency"], y) for r in runs if (y := figure(r)) is not None]
    return replicated_fit([float(c) for c, _ in pairs], [y for _, y in pairs]).recorded()


def _per_url(runs: list[Run], rss_slope: float | None) -> PerUrl | None:
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
    return PerUrl(
        runs=fit.n,
        bytes_per_url=Quantity(fit.slope_z, fit.slope_z_ci95, FIT, fit.n, "bytes"),
        net_rss_bytes=Quantity(fit.slope_x, fit.slope_x_ci95, FIT, fit.n, "bytes"),
        urls_per_connection=min(base),
        gross_rss_bytes=rss_slope,
    )


def memory_per_connection(
    points: list[Point],
    min_concurrency: int,
    runs: list[Run],
    url_runs: list[Run] | None = None,
) -> MemoryFit:
    """Slopes against concurrency over every run, with R² and 95% intervals: held (plateau
    RSS, USS and kernel memory), peak (the whole run's peak RSS, what a user must provision),
    the independent check (smaps_rollup's anonymous memory) and the per-URL share."""
    chosen = [p for p in points if p.get("plateau_rss_kib") and p["concurrency"] >= min_concurrency]
    fitted = [r for r in runs if r["params"]["concurrency"] >= min_concurrency and run_plateau(r)]
    fit = _fit_runs(fitted, lambda r: _plateau_bytes(r, "rss_kib"))
    tcp = _fit_runs(fitted, lambda r: _bytes(tcp_delta_kib(r)))
    uss = _fit_runs(fitted, lambda r: _plateau_bytes(r, "uss_kib"))
    check = _fit_runs(fitted, lambda r: _plateau_bytes(r, "anon_kib"))
    per_url_runs = fitted + [
        r for r in url_runs or [] if r["params"]["concurrency"] >= min_concurrency
    ]
    return MemoryFit(
        from_concurrency=min_concurrency,
        concurrencies=[p["concurrency"] for p in chosen],
        runs=len(fitted),
        rss_bytes=fit,
        peak_rss_bytes=_fit_runs(fitted, lambda r: _bytes(crawl_of(r)["max_rss_kib"])),
        check_anon_bytes=check,
        check_gap=relative_gap(check.slope.value, fit.slope.value),
        # Every kernel field sampled (stacks, slab, page tables, TCP), over the same runs.
        kernel_bytes=_fit_runs(fitted, lambda r: _bytes(kernel_delta_kib(r))),
        # One fit of each run's RSS + kernel: its interval holds both figures' scatter.
        total_bytes=_fit_runs(fitted, _held_bytes).slope,
        per_url=_per_url(per_url_runs, fit.slope.value) if url_runs else None,
        kernel_tcp_bytes=tcp if tcp.slope.value is not None else None,
        uss_bytes=uss if uss.slope.value is not None else None,
    )


def add_memory_fits(
    entry: ModelTable,
    groups: dict[Group, list[Run]],
    base: list[Group],
    extra: list[Group],
    fit_min_concurrency: int,
    tried: Counter[Group],
    noisy: Counter[Group],
) -> None:
    """The entry's memory_per_connection over one process's points and, for points several
    processes crawled (c100k), memory_across_processes: one fit per process count, a per-URL
    point in its count's. A fit holds only the points that held (_held) and names every other
    point that ran in left_out, with its quiet runs (tried) and those of noisy rounds."""
    held = {k for k in groups if _held(len(groups[k]), tried[k])}

    def of(keys: list[Group], processes: int) -> list[Group]:
        return [k for k in keys if k[3] == processes]

    def fit(processes: int) -> MemoryFit:
        ordered = sorted((k for k in of(base, processes) if k in held), key=sort_key)
        url_keys = [k for k in of(extra, processes) if k in held]
        found = memory_per_connection(
            [crawl_point(groups[k]) for k in ordered],
            fit_min_concurrency,
            [r for k in ordered for r in groups[k]],
            [r for k in url_keys for r in groups[k]],
        )
        # Every point that ran, so that one whose runs all failed (or were noisy) is named too.
        left_out = sorted(set(of(list(tried + noisy), processes)) - held, key=sort_key)
        return replace(
            found,
            processes=processes,
            left_out=[
                LeftOut(k[0], k[2], len(groups.get(k, [])), tried[k], noisy[k]) for k in left_out
            ],
        )

    counts = sorted({k[3] for k in base if k in held})
    fewest = counts[0] if counts else 1
    entry["memory_per_connection"] = fit(fewest)
    across = [fit(p) for p in counts if p != fewest]
    if across:
        entry["memory_across_processes"] = across
