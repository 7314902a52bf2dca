"""`c10k bench`: its options, and the choice between printing the plan and running it."""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from bench.arguments import OneLineParser
from bench.harness.cores import PIN_MODES
from bench.harness.latencies import chooses
from bench.harness.plan import (
    ALL_CRAWLERS,
    SCENARIOS,
    PlannedRun,
    build_plan,
)
from bench.harness.points import Profile
from bench.harness.profiles import PROFILE_TABLE, PROFILES
from bench.harness.progress import describe_plan, plan_table
from bench.harness.runner import PROJECT_DIR, run_lanes
from bench.harness.runtimes import compare_runtimes, runtime_outcome
from bench.harness.server_cost import probe_estimate_s, probe_text
from bench.harness.session import Lane, harness_runtime, new_lane, start_session, stderr_line
from bench.harness.ssh_server import DEFAULT_REMOTE_C10K, check_site_host, parse_ssh_url
from bench.results import RUNTIMES_JSON, RUNTIMES_MD, LeftOutModel, RuntimeRecord, write_atomic
from bench.results.words import left_out_text
from bench.runtimes.discover import NoSuchRuntime, Runtime, resolve
from bench.runtimes.venvs import PrepareFailed, prepare, project_checkout
from c10k import catalog


def plan_models(
    models: Sequence[str], runtimes: Mapping[str, str]
) -> tuple[list[str], list[LeftOutModel]]:
    """The models the plan holds, and those it leaves out with what they need: the ones the
    catalog's runtime column says no runtime of the run (tag -> version) can run."""
    left: list[LeftOutModel] = []
    for name in models:
        crawler = catalog.CRAWLERS.get(name)
        needs = [crawler.runtimes.needs(t, v) for t, v in runtimes.items()] if crawler else []
        if needs and all(needs):
            left.append({"model": name, "needs": str(needs[0]), "runtimes": list(runtimes)})
    out = {entry["model"] for entry in left}
    return [name for name in models if name not in out], left


def _names(text: str, allowed: Sequence[str], what: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in allowed]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown {what} {', '.join(unknown)}; choose from {', '.join(allowed)}"
        )
    return names


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="c10k bench",
        description="Run the benchmark scenarios: one fresh process per run, every run "
        "verified against the site's manifest, results in OUT/results.json.",
    )
    p.add_argument("--profile", choices=PROFILES, default="default")
    p.add_argument(
        "--models",
        type=lambda t: _names(t, ALL_CRAWLERS, "model"),
        default=list(ALL_CRAWLERS),
        help="comma-separated models and peers (default: all; a peer that is not installed "
        "is reported as such): " + ", ".join(ALL_CRAWLERS),
    )
    p.add_argument(
        "--scenarios",
        type=lambda t: _names(t, SCENARIOS, "scenario"),
        default=list(SCENARIOS),
        help="comma-separated scenarios (default: all): " + ", ".join(SCENARIOS),
    )
    p.add_argument("--out", type=Path, default=Path("reports"), help="directory for results.json")
    _where_options(p)
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="print the plan and its expected duration, run nothing",
    )
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--python",
        metavar="SPEC",
        help="run every crawler, idle program and CPU loop under this interpreter, in a venv "
        "of its own with the project (a tag from `c10k runtimes`: 3.12, 3.14t; a version: "
        "3.11.7; or a path); the harness stays on its own",
    )
    which.add_argument(
        "--pythons",
        metavar="A,B,...",
        type=lambda t: [n.strip() for n in t.split(",") if n.strip()],
        help="run each planned run once per interpreter, back to back (the order alternating "
        "from round to round), into OUT/<tag>/results.json, then their key figures side by "
        "side in OUT/runtimes.json and OUT/runtimes.md",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="the seed of the order the models run in within each round (default: a new one, "
        "recorded in results.json; give the recorded one to run a session's order again)",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="exit 1 unless every run ended ok (verified against the manifest): for CI smoke runs",
    )
    # main() sets the checked SiteHost for --server here, and the models the plan leaves out;
    # start_session the latencies it chose
    p.set_defaults(remote=None, left_out=[], latencies=None)
    return p


def _where_options(p: argparse.ArgumentParser) -> None:
    """Where each side runs: the CPU sets (--pin) and the test site's host (--server)."""
    p.add_argument(
        "--pin",
        choices=PIN_MODES,
        default=None,
        help="on: the server and the harness on one half of the CPUs, the crawler on the other "
        "(sched_setaffinity); off: every process on every CPU. Default: on, but off for the "
        "free-threading profile (a crawler on one CPU cannot run threads in parallel)",
    )
    p.add_argument(
        "--server",
        metavar="ssh://[USER@]HOST[:PORT]",
        help="run each test site on another host, over ssh with your keys and config, instead "
        "of here (docs/two-hosts.md); the crawler may then use every local CPU",
    )
    p.add_argument(
        "--remote-c10k",
        metavar="COMMAND",
        default=DEFAULT_REMOTE_C10K,
        help="with --server: how that host's shell runs c10k (default: c10k, found on its "
        "PATH; e.g. /srv/c10k-bench/.venv/bin/c10k)",
    )


def unavailable_here(models: Sequence[str]) -> frozenset[str]:
    """The crawlers whose modules the harness's own interpreter misses."""
    return frozenset(
        name
        for name in models
        if (crawler := catalog.CRAWLERS.get(name)) is not None and crawler.missing()
    )


def print_plan(
    args: argparse.Namespace, profile: Profile, plan: list[PlannedRun], skipped: frozenset[str]
) -> None:
    """--dry-run: the plan, its estimate, the models left out and the probe it would run."""
    print(plan_table(plan))
    print(describe_plan(profile, plan, len(args.pythons or [None]), skipped))
    for entry in args.left_out:
        print(f"  not planned: {entry['model']}, {left_out_text(entry)}")
    if largest := chooses(profile, args.scenarios):
        print(
            f"  (and ~{probe_estimate_s(largest):.0f} s first, measuring the server's cost "
            f"({probe_text(largest)}), from which the sleepy points' latencies are chosen; "
            "shown as this profile writes them)"
        )


def run_interleaved(
    args: argparse.Namespace,
    profile: Profile,
    plan: list[PlannedRun],
    chosen: list[Runtime],
    command: list[str],
    project_dir: Path = PROJECT_DIR,
) -> int:
    """--pythons: every runtime's venv first (one that fails is recorded as failed, the
    others run), then each planned run once per runtime into OUT/<tag>/results.json; then
    OUT/runtimes.json and OUT/runtimes.md, also when the runs stop half-way."""
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


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    profile = PROFILE_TABLE[args.profile]
    args.pin = args.pin or profile.pin
    if args.seed is None:
        args.seed = 0 if args.dry_run else random.SystemRandom().randrange(2**32)
    specs = args.pythons or ([args.python] if args.python else [])
    try:
        chosen = [resolve(spec) for spec in specs]
    except NoSuchRuntime as exc:
        sys.stderr.write(f"c10k bench: error: {exc}\n")
        return 2
    # A model that no runtime of the run can run is not planned (the runtimes the run uses:
    # --python's or --pythons', else the harness's own).
    here = harness_runtime()
    versions = {r.tag: r.version for r in chosen} or {here["tag"]: here["version"]}
    args.models, args.left_out = plan_models(args.models, versions)
    plan = build_plan(profile, args.models, args.scenarios, args.seed)
    if args.dry_run:
        # Without --python(s), the runs this interpreter cannot make are skipped.
        print_plan(args, profile, plan, frozenset() if chosen else unavailable_here(args.models))
        return 0
    command = ["c10k", "bench", *(sys.argv[2:] if argv is None else argv)]
    if args.server is not None:  # asked before any venv is made
        several = sorted({r.scenario for r in plan if r.point and r.point.server.addresses > 1})
        if several:
            parser().error(
                f"--server: {', '.join(several)} needs a server on several loopback "
                "addresses, which a server on another host cannot give; leave it out with "
                "--scenarios"
            )
        try:
            args.remote = check_site_host(parse_ssh_url(args.server, args.remote_c10k))
        except ValueError as exc:
            parser().error(str(exc))
    project = project_checkout(PROJECT_DIR)
    if chosen and project is None:
        sys.stderr.write(
            "c10k bench: error: --python and --pythons install this project into each "
            "runtime's venv from its source checkout: run c10k from a checkout of this code "
            f"(none at {PROJECT_DIR} or in the current folder)\n"
        )
        return 2
    if args.pythons is not None:
        return run_interleaved(args, profile, plan, chosen, command, project or PROJECT_DIR)
    runtime = here
    if chosen:
        try:
            runtime = cast(
                RuntimeRecord, prepare(chosen[0], project or PROJECT_DIR, stderr_line).as_dict()
            )
        except PrepareFailed as exc:
            sys.stderr.write(f"c10k bench: error: {exc}\n")
            return 1
    session = start_session(args, profile, plan, [runtime])
    lane = new_lane(args, session, args.out, runtime, command)
    return run_lanes(args, session.profile, session.plan, [lane], session.pinning)
