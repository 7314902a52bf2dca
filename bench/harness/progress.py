"""What `c10k bench` prints as it goes: the plan, one status line, where each side runs."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TextIO

from bench.harness.cores import Pinning
from bench.harness.plan import SCENARIOS, PlannedRun, plan_estimate_s, runs_count
from bench.harness.points import Profile
from bench.harness.rounds import again_allowances, always_run


def describe_plan(
    profile: Profile,
    plan: list[PlannedRun],
    runtimes: int = 1,
    skipped: frozenset[str] = frozenset(),
) -> str:
    """The plan per scenario and in all, its runs once per runtime; the budget is per runtime."""
    lines = [f"profile {profile.name}: {profile.description}"]
    for name in SCENARIOS:  # each with its servers and its conditional rounds
        if runs := [run for run in plan if run.scenario == name]:
            servers = len({run.server_key for run in runs if run.point is not None})
            lines.append(
                f"  {name:<21} {runs_count(runs, runtimes):>4} runs  {servers:>3} servers  "
                f"~{_clock(plan_estimate_s(runs, runtimes, skipped=skipped))}"
            )
    total = plan_estimate_s(plan, runtimes, skipped=skipped)
    least = plan_estimate_s(plan, runtimes, conditional=False, skipped=skipped)
    budget = profile.budget_s * runtimes
    verdict = "within" if least <= budget else "OVER"
    each = f" ({runtimes} runtimes, each run once per runtime)" if runtimes > 1 else ""
    lines.append(
        f"  {'total':<14} {runs_count(plan, runtimes):>4} runs  ~{_clock(least)} expected{each}, "
        f"{verdict} the {_clock(budget)} budget"
    )
    if least < total:
        lines.append(
            f"  (that is with each paired comparison decided at its first look; ~{_clock(total)} "
            "if every one runs to its cap)"
        )
    again_s = sum(again_allowances(always_run(plan), profile.again_share).values()) * runtimes
    if again_s > 0:
        lines.append(
            f"  (and up to ~{_clock(again_s)} more where noisy rounds run again: "
            f"{profile.again_share:.0%} of each server's rounds' planned time)"
        )
    if profile.quiet_wait_s > 0:
        lines.append(
            f"  (and up to {_clock(profile.quiet_wait_s)} in all where a round waits for a noisy "
            "machine to quiet before it starts)"
        )
    return "\n".join(lines)


def plan_table(plan: list[PlannedRun]) -> str:
    """One line per run in the order it runs, with its round ('-' for none)."""
    lines = [f"{'#':>4}  {'estimate':>8}  {'round':>5}  run"]
    for n, run in enumerate(plan, 1):
        round_text = "-" if run.round is None else str(run.round)
        lines.append(f"{n:>4}  {run.estimate_s:>7.1f}s  {round_text:>5}  {run.id}")
    return "\n".join(lines)


def _clock(seconds: float) -> str:
    whole = max(0, round(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


class Progress:
    """One status line on stderr: what runs, what is left, elapsed and ETA (conditional
    rounds count in what is left until they are run or passed over)."""

    def __init__(self, plan: list[PlannedRun], stream: TextIO, runtimes: int = 1) -> None:
        self.plan = plan
        self.places = {id(run): n for n, run in enumerate(plan)}
        self.runtimes = runtimes  # each planned run runs once per runtime
        self.stream = stream
        self.tty = stream.isatty()
        self.started = time.monotonic()
        self.done_estimate = 0.0
        self.counts: dict[str, int] = {}
        self.last = 0  # the place of the run shown last

    def index(self, run: PlannedRun) -> int:
        """The run's place in the plan; a run a round made up (rounds.make_up_runs) takes
        the place of the run shown before it."""
        self.last = self.places.get(id(run), self.last)
        return self.last

    def eta_s(self, index: int) -> float:
        remaining = sum(run.estimate_s for run in self.plan[index:]) * self.runtimes
        elapsed = time.monotonic() - self.started
        # Scale the plan's estimate by how fast the runs so far went, within reason.
        ratio = elapsed / self.done_estimate if self.done_estimate > 5 else 1.0
        return remaining * min(3.0, max(0.5, ratio))

    def show(self, run: PlannedRun) -> None:
        index = self.index(run)
        done = ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items())) or "none yet"
        text = (
            f"[{index + 1}/{len(self.plan)}] {run.id}  | elapsed "
            f"{_clock(time.monotonic() - self.started)}, ETA ~{_clock(self.eta_s(index))}  "
            f"| done: {done}"
        )
        if self.tty:
            self.stream.write("\r\033[K" + text[:200])
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def waiting(self, run: PlannedRun, pause_s: float, left_s: float) -> None:
        if self.tty:
            self.stream.write("\r\033[K")
        where = run.block.label if run.block else run.id
        self.stream.write(
            f"{where}: the machine is noisy; waiting {pause_s:.0f} s "
            f"({_clock(max(0.0, left_s))} of waiting left in the session)\n"
        )
        self.stream.flush()

    def finished(self, run: PlannedRun, status: str) -> None:
        self.done_estimate += run.estimate_s
        self.counts[status] = self.counts.get(status, 0) + 1

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def pinning_line(pinning: Pinning) -> str:
    if pinning.sets is not None:
        return (
            f"pinned: server and harness on CPUs {_cpu_list(pinning.sets.server)}, "
            f"crawler on CPUs {_cpu_list(pinning.sets.crawler)}"
        )
    return f"not pinned: {pinning.note or '--pin off'}"


def _cpu_list(cpus: Sequence[int]) -> str:
    return ",".join(str(c) for c in cpus)
