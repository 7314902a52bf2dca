"""Paired rounds in the run loop: noisy rounds, points that failed twice, rounds not needed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from bench.analysis.paired import Comparison, comparisons
from bench.harness.plan import PlannedRun, crawl_label
from bench.results import Block, PointKey, Results, Run
from c10k.sequential import NOISY_SHARE

LOOPS_BEFORE_JUDGING = 3  # the session's loops a sentinel is judged against, at least
# A noisy round runs again until it runs quiet, while the re-runs of the rounds at its server
# have taken less than the profile's again_share of those rounds' planned time. Noise comes in
# bursts of minutes: a count of re-runs would spend itself inside one, a time allowance outlasts
# it. Each server's rounds have their own, in proportion to their length, so that one point's
# burst cannot spend another's (docs/notes/2026-11-27-again-per-server.md).
AGAIN_PER_ROUND = 20  # a guard only (a round whose runs take no time): the allowance bounds
# Before that, a round whose sentinel is noisy waits for the machine to quiet, while the
# session has paused less than the profile's quiet_wait_s in all: its sentinel is kept as a
# wait (outside the round), and the loop runs again after a pause. Waiting runs no crawl that
# would count in nothing, and a round that starts quiet leaves no gap to fill
# (docs/notes/2026-11-28-c6-in-a-burst.md).
QUIET_PAUSE_S = 5.0
# A point whose runs ended so this many times is not run again in the session.
FAILED_STATUSES = ("timeout", "failed-verification")
FAILURES_BEFORE_NOT_RUN = 2


def blocks(plan: Sequence[PlannedRun]) -> Iterator[list[PlannedRun]]:
    """The plan cut into paired rounds (a sentinel and its runs) and runs of no round."""
    index = 0
    while index < len(plan):
        block = plan[index].block
        end = index + 1
        while block is not None and end < len(plan) and plan[end].block == block:
            end += 1
        yield list(plan[index:end])
        index = end


def sentinel_noisy(record: Run, document: Results) -> bool:
    """True when a sentinel's loop took NOISY_SHARE more wall time than the fastest of the
    session's loops before it that ran well (judged once there are LOOPS_BEFORE_JUDGING)."""
    loop = record.get("loop")
    if record["status"] != "ok" or loop is None:
        return True  # the machine could not even run the loop: nothing here is quiet
    before = [r["loop"]["wall_s"] for r in document["runs"] if "loop" in r and r["status"] == "ok"]
    if len(before) < LOOPS_BEFORE_JUDGING:
        return False
    return loop["wall_s"] > (1.0 + NOISY_SHARE) * min(before)


@dataclass
class QuietWait:
    left_s: float  # what the session may still pause, in all, for a noisy machine to quiet

    def take(self) -> float:
        pause = min(QUIET_PAUSE_S, max(0.0, self.left_s))
        self.left_s -= pause
        return pause


# A scenario's rounds at one server (Block.rounds).
Rounds = tuple[str, int]
# Where a run ran: its scenario, its model and its crawl point (an idle run: its mode and count).
Place = tuple[str, str, PointKey | None, object, object]


def place(run: PlannedRun) -> Place:
    return run.scenario, run.model, run.key, run.params.get("mode"), run.params.get("count")


def recorded_place(run: Run) -> Place:
    params = run["params"]
    return run["scenario"], run["model"], run["point"], params.get("mode"), params.get("count")


def known_failures(document: Results, run: PlannedRun) -> list[str]:
    """This point's earlier measured runs' FAILED_STATUSES, once there are
    FAILURES_BEFORE_NOT_RUN of them; else []."""
    here = place(run)
    failed = [
        r["status"]
        for r in document["runs"]
        if r["kind"] == "measured" and r["status"] in FAILED_STATUSES and recorded_place(r) == here
    ]
    return failed if len(failed) >= FAILURES_BEFORE_NOT_RUN else []


def open_comparisons(document: Results, scenario: str, models: Collection[str]) -> list[Comparison]:
    """The paired comparisons judged in a scenario, among those whose models all run in it,
    that have not stopped yet. One not judged yet is open: while every round so far was
    noisy, no point has every model of it."""
    paired = document["derived"].get("comparisons", {}).get("paired") or []
    stopped = {c["name"] for c in paired if c["scenario"] == scenario and c["stopped"]}
    return [
        c
        for c in comparisons()
        if c.scenario == scenario and c.models <= set(models) and c.name not in stopped
    ]


def runs_needed(
    documents: Sequence[Results],
    runs: Sequence[PlannedRun],
    always: Mapping[Rounds, Sequence[PlannedRun]] | None = None,
) -> list[PlannedRun]:
    """What of a block runs: all of it, unless it is a conditional round. That runs its
    sentinel, the models of the comparisons of its scenario still open in some runtime's
    results (but not one that needs a point that failed twice), and make_up_runs; with
    neither, nothing."""
    if not any(run.conditional for run in runs):
        return list(runs)
    wanted: set[str] = set()
    for d in documents:
        running = {r.model for r in runs if not known_failures(d, r)}
        for comparison in open_comparisons(d, runs[0].scenario, running):
            wanted |= comparison.models
    compared = [run for run in runs if run.kind != "sentinel" and run.model in wanted]
    held = {place(run) for run in compared}
    made_up = make_up_runs(documents, runs, always or {})
    short = [run for run in made_up if place(run) not in held]
    if not compared and not short:
        return []
    return [run for run in runs if run.kind == "sentinel"] + compared + short


def make_up_runs(
    documents: Sequence[Results],
    runs: Sequence[PlannedRun],
    always: Mapping[Rounds, Sequence[PlannedRun]],
) -> list[PlannedRun]:
    """A conditional round's runs that make up for noisy rounds: one of each point of its
    server with fewer quiet runs than the rounds it always runs (always_run), in some
    runtime's results, that has not failed twice; a point the round does not hold runs as
    its last planned run, renamed to this round."""
    block = runs[0].block
    if block is None:
        return []
    minimum: dict[Place, list[PlannedRun]] = {}
    for run in always.get(block.rounds, ()):
        if run.kind == "measured":
            minimum.setdefault(place(run), []).append(run)
    # Each point's measured runs in rounds that were not noisy, however they ended.
    quiet = [
        Counter(recorded_place(r) for r in d["runs"] if r["kind"] == "measured" and not r["noisy"])
        for d in documents
    ]
    held = {place(run): run for run in runs if run.kind == "measured"}
    made_up: list[PlannedRun] = []
    for point, planned in minimum.items():
        last = planned[-1]
        assert last.key is not None  # the measured runs of a round are crawls
        if any(
            counted[point] < len(planned) and not known_failures(d, last)
            for d, counted in zip(documents, quiet, strict=True)
        ):
            made_up.append(
                held.get(point)
                or replace(
                    last,
                    id=crawl_label(last.scenario, last.model, last.key, last.kind, block.round),
                    repetition=block.round,
                    block=block,
                    conditional=True,
                )
            )
    return made_up


def always_run(plan: Sequence[PlannedRun]) -> dict[Rounds, list[PlannedRun]]:
    """Each server's rounds' runs that are not conditional, in plan order."""
    found: dict[Rounds, list[PlannedRun]] = {}
    for run in plan:
        if run.block is not None and not run.conditional:
            found.setdefault(run.block.rounds, []).append(run)
    return found


def again_allowances(
    always: Mapping[Rounds, Sequence[PlannedRun]], share: float
) -> dict[Rounds, float]:
    """The wall seconds each server's noisy rounds may take running again: share of the
    planned time of its rounds that always run; rounds with no sentinel are never noisy."""
    allowances: dict[Rounds, float] = {}
    for rounds, runs in always.items():
        judged = {run.block for run in runs if run.kind == "sentinel"}
        if judged:
            planned = sum(run.estimate_s for run in runs if run.block in judged)
            allowances[rounds] = share * planned
    return allowances


def again_seconds(document: Results, rounds: Rounds) -> float:
    """The wall seconds the re-runs of a server's rounds have taken so far (waits aside)."""
    return sum(
        r.get("elapsed_s") or 0.0
        for r in document["runs"]
        if r["again"] and not r["wait"] and r["block"] is not None and r["block"].rounds == rounds
    )


def again_allowed(
    documents: Sequence[Results], block: Block, allowances: dict[Rounds, float]
) -> bool:
    """Whether the re-runs of a noisy round's server's rounds are within their allowance in
    every runtime's results."""
    rounds = block.rounds
    return max(again_seconds(d, rounds) for d in documents) < allowances.get(rounds, 0.0)
