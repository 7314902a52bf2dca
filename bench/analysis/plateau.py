"""A sleepy run's memory plateau, found in its samples: every connection open, none answered."""

from __future__ import annotations

from typing import Any, cast

from bench.results import Plateau, Run, Samples

# The crawler waits while it uses at most this share of a core between two samples; CPU
# time moves in 10 ms ticks, so at 0.1 s a sample this allows two ticks of noise.
QUIET_CPU_SHARE = 0.25


RAMP_FROM = 0.05  # the ramp starts when this share of the connections is open

# A wait counts as the plateau only when it lasts this many samples (0.3 s): a lone quiet
# sample between busy ones is the ramp's tail, read before every connection's memory is
# (docs/notes/2026-11-27-three-sessions.md).
MIN_QUIET_SAMPLES = 3


# The figures whose median over the plateau the summary gives, in the order a run records
# them (docs/results.md): every sampled column but the clock, the CPU counters (cumulative)
# and the sockets in TIME_WAIT.
PLATEAU_FIELDS = (
    "rss_kib",
    "vmrss_kib",
    "uss_kib",
    "smaps_rss_kib",
    "anon_kib",
    "fds",
    "threads",
    "tcp_mem_kib",
    "tcp_inuse",
    "slab_kib",
    "kernel_stack_kib",
    "page_tables_kib",
    "processes",  # the crawler's processes read (`c10k crawl --processes P`: P + 1)
)


# Read from /proc/PID/smaps_rollup after the sample's other figures. With thousands of threads
# a read takes a good part of the interval, so the plateau's last read can end after the first
# responses and hold more than the RSS read before it. A read counts only when the next sample
# is still in the plateau (docs/notes/2026-11-25-sessions-after-heap-fixes.md).
ROLLUP_COLUMNS = ("uss_kib", "smaps_rss_kib", "anon_kib")


def plateau_summary(columns: Samples, concurrency: int) -> Plateau:
    """Memory while every connection is open and the crawler waits: the first wave's quiet
    stretch, before the first response is read."""
    fds = columns["fds"]
    if not fds:
        return {"samples": 0}
    base = min(fds[i] for i in _whole_tree(columns))
    threshold = base + 0.95 * concurrency
    above = [i for i, f in enumerate(fds) if f >= threshold]
    # The first stretch with (nearly) every connection open. In sleepy it can run on into the
    # next waves (the fds need not dip below the threshold between them), whose level is
    # higher: the plateau is the stretch's first quiet run, the first wave's wait
    # (docs/notes/2026-11-23-memory-slope-drift.md).
    stretch = [i for n, i in enumerate(above) if i - n == (above[0] if above else 0)]
    quiet = _first_quiet_run(columns, stretch)
    plateau = quiet or stretch
    summary: Plateau = {
        "samples": len(fds),
        "base_fds": base,
        "threshold_fds": threshold,
        "plateau_samples": len(plateau),
        "plateau_quiet": bool(quiet),
        "stretch_samples": len(stretch),
        "samples_above_threshold": len(above),
    }
    if not plateau:
        return summary
    settled = plateau[:-1]  # the samples whose smaps_rollup read ended inside the plateau
    medians = {
        name: _median_of(columns[name], settled if name in ROLLUP_COLUMNS else plateau)
        for name in PLATEAU_FIELDS
    }
    summary.update(cast(Plateau, medians))
    summary["ramp_s"] = _ramp_s(columns, base, concurrency, stretch[0])
    summary["max_rss_kib_above_threshold"] = max(columns["rss_kib"][i] for i in above)
    summary["t_start"] = columns["t"][plateau[0]]
    summary["t_end"] = columns["t"][plateau[-1]]
    return summary


def _ramp_s(columns: Samples, base: int, concurrency: int, full: int) -> float:
    """Seconds from the sample with RAMP_FROM of the connections open to the first with
    (nearly) all of them: how long the crawler took to open them, to the sampling interval."""
    fds, t = columns["fds"], columns["t"]
    start = next(i for i, f in enumerate(fds) if f >= base + RAMP_FROM * concurrency)
    return float(t[full] - t[start])


def run_plateau(run: Run) -> Plateau:
    """A run's plateau (points that check the peak), found in its raw samples by the rule
    above, whichever rule the harness that recorded it used; {} without one."""
    samples = run.get("samples")
    if samples and samples.get("fds") and run.get("plateau") is not None:
        return plateau_summary(samples, run["params"]["concurrency"])
    return run.get("plateau") or {}


def _whole_tree(columns: Samples) -> list[int]:
    """The samples that read the crawler's whole process tree (`c10k crawl --processes`;
    every sample of a single process). A crawl of parts has its fewest fds first, while only
    the parent runs: taken as the base, they would put the threshold P files low, and the
    plateau could begin before every connection is open."""
    processes = columns["processes"]
    most = max((n for n in processes if n is not None), default=1)
    whole = [i for i, n in enumerate(processes) if n == most]
    return whole or list(range(len(columns["fds"])))


def _first_quiet_run(columns: Samples, stretch: list[int]) -> list[int]:
    """The first MIN_QUIET_SAMPLES or more consecutive samples of the stretch in which the
    crawler used almost no CPU: every connection is open and it waits for the first responses
    (opening connections before, and the responses after, keep a core busy). CPU is summed
    over its processes: a sample that read another set of them than the one before has no
    CPU delta, and is not quiet."""
    t, user, system = columns["t"], columns["cpu_user_s"], columns["cpu_sys_s"]
    processes = columns["processes"]
    run: list[int] = []
    for i in stretch:
        if i == 0:
            continue
        elapsed = t[i] - t[i - 1]
        used = (user[i] + system[i]) - (user[i - 1] + system[i - 1])
        same_tree = processes[i] == processes[i - 1]
        if same_tree and elapsed > 0 and used <= QUIET_CPU_SHARE * elapsed:
            run.append(i)
        elif len(run) >= MIN_QUIET_SAMPLES:
            break
        else:
            run = []
    return run if len(run) >= MIN_QUIET_SAMPLES else []


def _median_of(column: list[Any], indices: list[int]) -> float | None:
    values = sorted(column[i] for i in indices if column[i] is not None)
    return values[len(values) // 2] if values else None
