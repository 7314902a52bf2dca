"""`c10k bench --pythons`: a venv per runtime, the plan run once per runtime in lanes, then
the runtimes side by side (runtimes.json, and runtimes.md worded by the report)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

from bench.harness.plan import PlannedRun
from bench.harness.points import Profile
from bench.harness.runner import PROJECT_DIR, run_lanes
from bench.harness.runtimes import compare_runtimes, runtime_outcome
from bench.harness.session import Lane, new_lane, start_session, stderr_line
from bench.results import RUNTIMES_JSON, RUNTIMES_MD, RuntimeRecord, write_atomic
from bench.runtimes.discover import Runtime
from bench.runtimes.venvs import PrepareFailed, prepare


def run_interleaved(
    args: argparse.Namespace,
    profile: Profile,
    plan: list[PlannedRun],
    chosen: list[Runtime],
    command: list[str],
    project_dir: Path = PROJECT_DIR,
) -> int:
    """--pythons: every runtime's venv first, each installing project_dir (one that fails
    is recorded as failed, the others run), then each planned run once per runtime, back to
    back (lane_order), each runtime's records into OUT/<tag>/results.json; then the side by
    side (OUT/runtimes.json, OUT/runtimes.md), written also when the runs stop half-way."""
    prepared: list[RuntimeRecord] = []
    failed: list[dict[str, Any]] = []  # their lines of runtimes.json
    for n, runtime in enumerate(chosen, 1):
        stderr_line(f"c10k bench: runtime {n}/{len(chosen)}: {runtime.tag} ({runtime.executable})")
        try:
            venv = prepare(runtime, project_dir, stderr_line)
            prepared.append(cast(RuntimeRecord, venv.as_dict()))
        except PrepareFailed as exc:
            stderr_line(f"c10k bench: {exc}; going on without it")
            failed.append(
                runtime_outcome(runtime.as_dict(), args.out / runtime.tag, None, str(exc))
            )
    code = 1 if failed else 0
    lanes: list[Lane] = []
    if prepared:
        session = start_session(args, profile, plan, prepared)
        lanes = [new_lane(args, session, args.out / r["tag"], r, command) for r in prepared]
        code = run_lanes(args, session.profile, session.plan, lanes, session.pinning) or code
    outcomes = failed + [
        runtime_outcome(lane.runtime, args.out / lane.runtime["tag"], lane.store.document, None)
        for lane in lanes
    ]
    side_by_side = compare_runtimes(outcomes, [r.tag for r in chosen])
    write_atomic(args.out / RUNTIMES_JSON, side_by_side)
    # The report stage words it, in a process of its own: only files cross the stages.
    rendered = subprocess.run(
        [sys.executable, "-m", "bench.report.runtimes", str(args.out / RUNTIMES_JSON)],
        check=False,
    )
    if rendered.returncode == 0:
        print(f"\nruntimes side by side: {args.out / RUNTIMES_MD}")
    return code
