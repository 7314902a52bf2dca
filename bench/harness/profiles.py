"""The profiles as plain data: what each scenario runs, at which points, how many times."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bench.harness.points import CrawlPoint, IdleSpec, LatencyRule, Profile, Scenario
from bench.harness.shapes import (
    both_cores_points,
    docs_point,
    few_active_points,
    idle_specs,
    realistic_point,
    scenarios,
    sleepy_points,
    sweep_points,
)
from c10k import catalog, sequential
from c10k.entries import ProfileName

# The models at the C10K point the server can feed (C7): the threads C7 compares, and every
# stackless event-loop model, which there should keep up with C/L.
C10K_MODELS = tuple(
    m.name
    for m in (
        catalog.THREADS,
        catalog.CALLBACKS,
        catalog.GENERATORS,
        catalog.ASYNCIO,
        catalog.ASYNCIO_UVLOOP,
        catalog.ASYNCIO_RLOOP,
        catalog.TRIO,
    )
)
# The models that do not start a thread per connection: the ones that hold 10,000 sleepy
# keep-alive connections at 2 s (threads there wait minutes on the GIL's handovers:
# docs/notes/2026-11-25-threads-stall-at-10000.md; C7 compares them at 10 s).
NO_THREAD_PER_WORKER = tuple(m.name for m in catalog.MODELS.values() if not m.thread_per_worker)
# How the sleepy points choose their latencies at a session's start, from the server's
# measured cost (bench/harness/latencies.py): a memory point so that every connection's first
# request reaches the server in time (the peak check); the C10K point, which judges
# throughput (C7), so that C/L also leaves the server room; c100k's from its written
# latencies up, which outlast the crawler processes' own ramp.
MEMORY_POINT = LatencyRule()
THROUGHPUT_POINT = LatencyRule(judges_throughput=True)


def only(models: tuple[str, ...], points: tuple[CrawlPoint, ...]) -> tuple[CrawlPoint, ...]:
    """The points, each run by these models alone."""
    return tuple(replace(point, models=models) for point in points)


def from_written(latency_s: float) -> LatencyRule:
    """A point's rule that never chooses a latency shorter than the one written for it."""
    return LatencyRule(least_s=latency_s)


# Paired rounds run until the comparison decides, up to the stopping rule's last look.
CAP = sequential.LOOKS[-1]
# Rounds wait out a burst of noise before they start, up to this in all: the bursts seen
# lasted 3-4 minutes (docs/notes/2026-11-28-c6-in-a-burst.md).
QUIET_WAIT_S = 300.0

FULL_SLEEPY = (100, 1000, 2500, 5000, 7500, 10_000, 15_000, 19_900)  # both modes' C

# Claim C8 (docs/runtimes.md, "C8"): the threads model on 3.14 and 3.14t, side by side
# with `--pythons 3.14,3.14t`. Unpinned by default: a crawler pinned to one CPU of two cannot
# run two threads at once, which is all that free-threading buys.
FREE_THREADING_CONCURRENCIES = (2, 4, 8, 16, 32, 64)
BOTH_CORES_CONCURRENCIES = (8, 64)
# The loop league (docs/report.md, "Which loop"): the raw-socket model of catalog.LOOP_PAIRS on
# every loop, judged as C9 is (CPU per page in few-active, by paired rounds), counted by
# callgrind, and crawled through the realistic site's faults, where a loop that loses a
# reset fails its verification (a finding).
LEAGUE = tuple(
    dict.fromkeys(m.name for pair in catalog.LOOP_PAIRS for m in pair if m.loop_api != "transports")
)


def profile(
    about: ProfileName,
    budget_s: float,
    scenarios: tuple[Scenario, ...],
    sample_interval_s: float = 0.1,
    **options: Any,
) -> Profile:
    """A profile of the catalog's name; its rounds wait for a quiet machine unless told not to."""
    options.setdefault("quiet_wait_s", QUIET_WAIT_S)
    return Profile(about.name, about.description, budget_s, sample_interval_s, scenarios, **options)


_ALL = (
    profile(
        catalog.QUICK,
        # The default install (no peer, as CI runs it) took 76 s of runs against a plan
        # of 76 s (docs/notes/2026-11-29-plan-estimates.md).
        budget_s=90.0,
        sample_interval_s=0.05,
        quiet_wait_s=0.0,
        scenarios=scenarios(
            loops=3,
            idle=idle_specs(300, 10_000, 200, 2_000, thread_cap=500),
            few_active=few_active_points(150, (4,)),
            few_reps=1,
            few_warmups=0,
            sleepy=sleepy_points((20, 100), 0.1, waves=2),
            sleepy_keep_alive=sleepy_points((100,), 0.1, waves=2),
            sweep=sweep_points(20, (0.0, 0.05), target_s=0.1),
            realistic=(realistic_point(100, 20, timeout_s=0.5), docs_point(40, 100, 16)),
            repetitions=1,
        ),
    ),
    profile(
        catalog.DEFAULT,
        # The plan fits 30 minutes when every comparison decides at its first look; the
        # conditional rounds are the rest (docs/notes/2026-11-26-profile-durations.md).
        budget_s=2400.0,
        scenarios=scenarios(
            loops=10,
            # The machine's thread ceiling (C5) is the full profile's: C5 is judged there.
            idle=idle_specs(
                10_000, 1_000_000, 2_000, 20_000, thread_cap=60_000, other_loop_units=200_000
            ),
            few_active=few_active_points(300, (1, 10, 64)),
            few_reps=3,
            few_warmups=1,
            few_cap=CAP,  # C6 and C9 are judged here, by paired rounds
            few_keep_alive_reps=2,  # beside them: an interval, not a verdict
            # Memory per connection is fitted over every run from 1,000 up, each point run
            # more than once so that the slope's interval comes from each point's own
            # spread, C 10,000, which scatters most, three times
            # (docs/notes/2026-11-25-one-spread-per-point.md). The plateau is the first
            # wave's wait, so one wave measures it; a second point at C 3,000 with three
            # waves tells the memory held per URL apart.
            sleepy=sleepy_points((1000, 3000), 2.0, 1, repetitions=2, choice=MEMORY_POINT)
            + sleepy_points((10_000,), 2.0, waves=1, repetitions=3, choice=MEMORY_POINT)
            + sleepy_points((3000,), 2.0, waves=3, choice=MEMORY_POINT),
            # At 2 s, 10,000 connections ask the pinned server for about 0.95 of its core:
            # the CPU-bound view. C7 is judged at 10 s, where they ask for about a fifth of
            # it (docs/notes/2026-11-26-c10k-point.md).
            sleepy_keep_alive=sleepy_points((1000, 3000), 2.0, waves=2, choice=MEMORY_POINT)
            + sleepy_points(
                (10_000,), 2.0, waves=2, models=NO_THREAD_PER_WORKER, choice=MEMORY_POINT
            )
            + sleepy_points(
                (10_000,),
                10.0,
                waves=1,
                repetitions=3,
                cap=CAP,
                models=C10K_MODELS,
                choice=THROUGHPUT_POINT,
            ),
            sweep=sweep_points(100, (0.0, 0.01, 0.1, 1.0), target_s=0.4),
            realistic=(realistic_point(2000, 100), docs_point(500, 300, 16)),
            repetitions=1,
            instructions=few_active_points(300, (16,)),
        ),
    ),
    profile(
        catalog.FULL,
        # It takes what it needs; the budget only catches a runaway plan (c100k runs about
        # 1.3x its estimate: docs/notes/2026-11-25-c100k.md).
        budget_s=29400.0,
        scenarios=scenarios(
            loops=20,
            # 2,000,000 greenlets would hold 16 GB: the other loops' units stop at 1,000,000.
            idle=idle_specs(
                20_000,
                2_000_000,
                5_000,
                100_000,
                thread_cap=100_000,
                other_loop_units=1_000_000,
                machine_ceiling=True,
            ),
            few_active=few_active_points(3000, (1, 2, 4, 8, 16, 32, 64)),
            few_reps=5,
            few_warmups=1,
            sleepy=sleepy_points(FULL_SLEEPY, 2.0, waves=3, workers=2, choice=MEMORY_POINT)
            + sleepy_points((2500,), 2.0, waves=6, workers=2, choice=MEMORY_POINT),
            sleepy_keep_alive=sleepy_points(
                FULL_SLEEPY, 2.0, waves=3, workers=2, choice=MEMORY_POINT
            ),
            sweep=sweep_points(100, (0.0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.3, 1.0), target_s=2.0),
            realistic=(
                realistic_point(5000, 100),
                realistic_point(5000, 1000),
                docs_point(500, 300, 16),
            ),
            repetitions=3,
            instructions=few_active_points(300, (16,)),
            # One process up to 10,000 connections (its open files allow 20,000), then six
            # processes up to 100,000: a slope at each scale, from the same site and mode.
            c100k=sleepy_points((1000, 3000, 10_000), 10.0, 2, choice=from_written(10.0))
            + sleepy_points((10_000,), 10.0, 2, processes=6, choice=from_written(10.0))
            + sleepy_points((30_000, 60_000), 40.0, 2, processes=6, choice=from_written(40.0))
            + sleepy_points((100_000,), 60.0, 2, processes=6, choice=from_written(60.0))
            # The per-URL share of both fits: the same C with twice the pages per connection.
            + sleepy_points((3000,), 10.0, waves=4, choice=from_written(10.0))
            + sleepy_points((30_000,), 40.0, 4, processes=6, choice=from_written(40.0)),
        ),
    ),
    profile(
        catalog.FREE_THREADING,
        budget_s=480.0,  # one runtime, every model; --models threads,asyncio: about 2:50
        pin="off",
        quiet_wait_s=0.0,
        scenarios=(
            Scenario(catalog.NOISE_FLOOR, loops=5),
            Scenario(catalog.IDLE, idle=(IdleSpec(catalog.THREAD.name, 3000),)),
            Scenario(
                catalog.FEW_ACTIVE,
                points=few_active_points(300, FREE_THREADING_CONCURRENCIES),
                repetitions=3,
                warmups=1,
            ),
            Scenario(
                catalog.MANY_LINKS_KEEP_ALIVE,
                points=few_active_points(300, FREE_THREADING_CONCURRENCIES, links=200),
                repetitions=3,
            ),
            # The same site: pages/s read at the larger C, memory per connection the slope
            # of peak RSS between the two (bench/harness/both_cores.py).
            Scenario(
                catalog.BOTH_CORES,
                points=both_cores_points(300, 200, BOTH_CORES_CONCURRENCIES),
                repetitions=3,
            ),
        ),
    ),
    profile(
        catalog.LOOPS,
        budget_s=300.0,
        scenarios=(
            Scenario(catalog.NOISE_FLOOR, loops=5),
            Scenario(
                catalog.FEW_ACTIVE,
                points=only(LEAGUE, few_active_points(300, (1, 10, 64))),
                repetitions=3,
                warmups=1,
                cap=CAP,
            ),
            # At C 64, which every loop of the league is asked to hold.
            Scenario(catalog.REALISTIC, points=only(LEAGUE, (realistic_point(2000, 64),))),
            Scenario(
                catalog.INSTRUCTIONS,
                points=only(LEAGUE, few_active_points(300, (16,))),
                counted=True,
            ),
        ),
    ),
)
PROFILE_TABLE: dict[str, Profile] = {p.name: p for p in _ALL}
PROFILES: tuple[str, ...] = tuple(PROFILE_TABLE)
