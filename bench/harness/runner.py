"""The run loop of `c10k bench`: each planned run once per runtime, saved and derived."""

from __future__ import annotations

import argparse
import platform
import signal
import sys
import sysconfig
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from time import sleep
from types import FrameType
from typing import Any, cast

from bench.analysis.derive import derive_document
from bench.analysis.points import ran
from bench.harness.check import check_runs
from bench.harness.cores import Pinning, plan_pinning, this_thread_on
from bench.harness.latencies import chooses, latencies_text, with_latencies
from bench.harness.plan import PlannedRun, base_record, build_plan, ended, plan_estimate_s
from bench.harness.points import Profile
from bench.harness.processes import terminate_all
from bench.harness.progress import Progress, describe_plan, pinning_line
from bench.harness.recipes import run_counted, run_crawl, run_idle, run_loop
from bench.harness.rounds import (
    AGAIN_PER_ROUND,
    QuietWait,
    again_allowances,
    again_allowed,
    again_id,
    always_run,
    blocks,
    known_failures,
    runs_needed,
    sentinel_noisy,
    wait_id,
)
from bench.harness.runtimes import (
    RUNTIMES_JSON,
    RUNTIMES_MD,
    compare_runtimes,
    runtime_outcome,
)
from bench.harness.server_cost import measure_server_cost, probe_text
from bench.harness.site import Server, ServerError, SiteClient
from bench.harness.ssh_server import SiteHost, SshServer, server_environment
from bench.harness.summary import summary_table
from bench.interpreter import missing_models
from bench.results import (
    Environment,
    ProfileRecord,
    ResultsStore,
    Run,
    RuntimeRecord,
    Status,
    new_document,
    write_atomic,
)
from bench.runtimes.discover import Runtime
from bench.runtimes.venvs import PrepareFailed, prepare
from c10k import catalog, probes
from c10k.system import raise_open_files_limit

# The checkout each runtime's venv installs (editable): the one this harness runs from.
PROJECT_DIR = Path(__file__).resolve().parents[2]


def _skipped(run: PlannedRun, reason: str) -> Run:
    return ended(base_record(run), "skipped", reason)


def run_elsewhere(run: PlannedRun, runtime: RuntimeRecord) -> str | None:
    """Why the run belongs to another kind of build than runtime's (it is skipped there);
    None when it runs on this one."""
    if run.point is None:
        return None
    return run.point.runtime_refusal(runtime["tag"], runtime["gil_disabled"])


@dataclass
class Lane:
    """One runtime's side of a bench run: its interpreter, its results and the models it
    skips (with why)."""

    runtime: RuntimeRecord
    store: ResultsStore
    skip: dict[str, str]


def lane_order(lanes: Sequence[Lane], run: PlannedRun, plan_index: int) -> list[Lane]:
    """The order the runtimes run one planned run in: as given in even rounds, reversed in
    odd ones (a run with no round, by its place in the plan), so that none always goes
    first and a drift of the machine does not favour one."""
    turn = run.round if run.round is not None else plan_index
    return list(lanes) if turn % 2 == 0 else list(reversed(lanes))


def refusal(run: PlannedRun, lane: Lane) -> Run | None:
    """The record of a run that does not start in a lane: skipped (its model is missing or
    unavailable there, or it belongs to another kind of build) or not run (its point failed
    twice); None when it starts."""
    failed = known_failures(lane.store.document, run) if run.kind == "measured" else []
    elsewhere = run_elsewhere(run, lane.runtime)
    if run.model in lane.skip:
        return _skipped(run, lane.skip[run.model])
    if elsewhere:
        return _skipped(run, elsewhere)
    if failed:
        why = f"failed {len(failed)} times before: " + ", ".join(failed)
        return ended(base_record(run), "not-run", why)
    return None


def one_run(
    profile: Profile,
    run: PlannedRun,
    lane: Lane,
    server: SiteClient | None,
    server_error: str | None,
    pinning: Pinning,
) -> Run:
    """One planned run under a lane's interpreter, against the shared server; its record."""
    python, cpus = lane.runtime["executable"], pinning.sets
    refused = refusal(run, lane)
    if refused is not None:
        record = refused
    elif run.idle is not None:
        record = run_idle(run, cpus, python)
    elif run.loop:
        record = run_loop(run, cpus, python)
    elif server is None:
        record = _skipped(run, server_error or "no server")
        record["status"] = "server-error"
    elif run.counted:
        record = run_counted(run, server, cpus, python)
    else:
        record = run_crawl(run, server, profile.sample_interval_s, cpus, python)
    runtime = lane.runtime
    record["runtime"] = {
        "tag": runtime["tag"],
        "version": runtime["version"],
        "gil_disabled": runtime["gil_disabled"],
        "executable": runtime["executable"],
    }
    return record


class Sites:
    """The test server of the run at hand: one per distinct site, started when its first run
    comes and stopped when the next site's does (here, or over ssh on site_host)."""

    def __init__(
        self, plan: list[PlannedRun], lanes: Sequence[Lane], pinning: Pinning, host: SiteHost | None
    ) -> None:
        self.plan, self.lanes, self.pinning, self.host = plan, lanes, pinning, host
        self.server: SiteClient | None = None
        self.key = -1
        self.error: str | None = None

    def for_run(self, run: PlannedRun) -> None:
        """Have the run's site up (or its error) when the run needs one."""
        if run.point is None or run.server_key == self.key:
            return
        self.stop()
        self.key, self.error = run.server_key, None
        wanted = [r for r in self.plan if r.server_key == self.key]
        if not any(r.model not in lane.skip for r in wanted for lane in self.lanes):
            return
        server: SiteClient = (
            SshServer(self.host, run.point.server)
            if self.host
            else Server(run.point.server, self.pinning.server)
        )
        try:
            server.start()
        except (ServerError, OSError, ValueError) as exc:  # start() stopped it
            self.error = f"the test server failed: {exc}"
            return
        self.server = server

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None


def execute(
    profile: Profile,
    plan: list[PlannedRun],
    lanes: Sequence[Lane],
    pinning: Pinning,
    site_host: SiteHost | None = None,
) -> None:
    """Run the plan in order, each planned run once per lane, back to back (lane_order);
    one server per distinct site, shared by the lanes; each lane's results saved after every
    run; each side on its CPUs when pinned. A paired round runs only while it is needed; it
    waits for a quiet machine before it starts, and runs again when its sentinel says the
    machine was noisy all the same (both bounded). Each run is saved
    as it ends; the derived figures are brought up to date after each block, which is when
    the run loop reads them (a document of hundreds of runs takes a third of a second to
    derive)."""
    progress = Progress(plan, sys.stderr, len(lanes))
    sites = Sites(plan, lanes, pinning, site_host)
    always = always_run(plan)
    allowances = again_allowances(always, profile.again_share)
    waiting = QuietWait(profile.quiet_wait_s)
    try:
        for runs in blocks(plan):
            documents = [lane.store.document for lane in lanes]
            needed = runs_needed(documents, runs, always)
            if not needed:
                continue
            for again in range(AGAIN_PER_ROUND + 1):
                noisy = _run_block(profile, needed, lanes, pinning, sites, progress, again, waiting)
                derive_lanes(lanes)
                block = runs[0].block
                if not noisy or block is None or not again_allowed(documents, block, allowances):
                    break
    finally:
        progress.close()
        sites.stop()


def _run_block(
    profile: Profile,
    runs: list[PlannedRun],
    lanes: Sequence[Lane],
    pinning: Pinning,
    sites: Sites,
    progress: Progress,
    again: int,
    waiting: QuietWait,
) -> bool:
    """One round (or one run of no round), each run once per lane; True when its sentinel
    said the machine was noisy in some lane (then every run of the round is marked so)."""
    noisy = False
    for run in runs:
        # A round runs again for noise, which a run that did not start cannot have felt: it
        # is not recorded again in the lanes that refused it.
        here = [lane for lane in lanes if not again or refusal(run, lane) is None]
        if not here:
            continue
        progress.show(run)
        sites.for_run(run)
        run_once = partial(_run_in_lanes, profile, run, here, pinning, sites, progress)
        if run.kind == "sentinel":
            records, noisy = _quiet_sentinel(run_once, run, again, waiting, progress)
        else:
            records = run_once()
        for lane, record in records:
            if again:
                record["id"], record["again"] = again_id(run.id, again), again
            record["noisy"] = noisy and ran(record)
            lane.store.add_run(record)
            progress.finished(run, record["status"])
    return noisy


def _run_in_lanes(
    profile: Profile,
    run: PlannedRun,
    lanes: Sequence[Lane],
    pinning: Pinning,
    sites: Sites,
    progress: Progress,
) -> list[tuple[Lane, Run]]:
    """The run once per lane, in the lanes' order for it; not saved yet."""
    return [
        (lane, one_run(profile, run, lane, sites.server, sites.error, pinning))
        for lane in lane_order(lanes, run, plan_index=progress.index(run))
    ]


def _quiet_sentinel(
    run_once: Callable[[], list[tuple[Lane, Run]]],
    run: PlannedRun,
    again: int,
    waiting: QuietWait,
    progress: Progress,
) -> tuple[list[tuple[Lane, Run]], bool]:
    """The round's sentinel in each lane, and whether the machine was noisy in some lane.
    While it is (and the loop ran) and the session may still wait, the round waits: the
    noisy sentinels are saved as a wait, outside the round, and the loop runs again after
    a pause. Not saved yet: the sentinel that ends the waiting."""
    sentinel_id = again_id(run.id, again) if again else run.id
    wait = 0
    while True:
        records = run_once()
        noisy = any(sentinel_noisy(record, lane.store.document) for lane, record in records)
        ran = all(record["status"] == "ok" for _, record in records)
        pause = waiting.take() if noisy and ran else 0.0
        if not pause:
            return records, noisy
        wait += 1
        for lane, record in records:
            record["id"], record["again"] = wait_id(sentinel_id, wait), again
            record["block"], record["noisy"], record["waited_s"] = None, True, pause
            lane.store.add_run(record)
        progress.waiting(run, pause, waiting.left_s)
        sleep(pause)


def derive_lanes(lanes: Sequence[Lane]) -> None:
    """Each lane's derived figures from its runs so far, saved."""
    for lane in lanes:
        lane.store.set_derived(derive_document(lane.store.document))


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def harness_runtime() -> RuntimeRecord:
    """The runtime record of a run without --python: the harness's own interpreter."""
    gil_disabled = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
    return {
        "tag": f"{sys.version_info[0]}.{sys.version_info[1]}{'t' if gil_disabled else ''}",
        "version": platform.python_version(),
        "gil_disabled": gil_disabled,
        "executable": sys.executable,
        "origin": "harness",
        "build": " ".join(sys.version.split()[1:]),
        "dependencies": None,
        "unavailable_models": {
            name: reason for name, model in catalog.CRAWLERS.items() if (reason := model.too_old())
        },
    }


def stderr_line(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


@dataclass(frozen=True)
class Session:
    """What a bench run runs: its profile and plan, each sleepy point that chooses at the
    latency chosen at the start, and where each side runs."""

    profile: Profile
    plan: list[PlannedRun]
    pinning: Pinning


def start_session(
    args: argparse.Namespace,
    profile: Profile,
    plan: list[PlannedRun],
    runtimes: Sequence[RuntimeRecord],
) -> Session:
    """Where each side runs, then the server's cost measured when a planned point chooses its
    latency (args.latencies records the choices; the budget grows by what they add to the
    plan's least), then the plan, the runtimes and the pinning on stderr."""
    pinning = plan_pinning(args.pin, remote=args.remote is not None)
    if largest := chooses(profile, args.scenarios):
        stderr_line(f"c10k bench: measuring the server's cost ({probe_text(largest)})")
        try:
            cost, error = measure_server_cost(largest, pinning, args.remote)
        except KeyboardInterrupt:  # the probe's server and crawl are stopped by then
            stderr_line("\nc10k bench: interrupted while measuring the server's cost; nothing ran")
            raise SystemExit(130) from None
        chosen, args.latencies = with_latencies(profile, args.scenarios, cost, error)
        stderr_line(latencies_text(args.latencies))
        again = build_plan(chosen, args.models, args.scenarios, args.seed)
        added = plan_estimate_s(again, conditional=False) - plan_estimate_s(plan, conditional=False)
        profile, plan = replace(chosen, budget_s=profile.budget_s + max(0.0, added)), again
    # What no runtime can run is skipped, at no cost.
    skipped = frozenset.intersection(*(frozenset(r["unavailable_models"]) for r in runtimes))
    sys.stderr.write(describe_plan(profile, plan, len(runtimes), skipped) + "\n")
    for runtime in runtimes:
        sys.stderr.write(
            f"runtime: Python {runtime['version']} ({runtime['tag']}), {runtime['executable']}\n"
        )
    sys.stderr.write(pinning_line(pinning) + "\n")
    return Session(profile, plan, pinning)


def new_lane(
    args: argparse.Namespace,
    profile: Profile,
    plan: list[PlannedRun],
    out: Path,
    runtime: RuntimeRecord,
    command: list[str],
    pinning: Pinning,
) -> Lane:
    """A runtime's lane: its empty results document in out/results.json and the models it
    skips (not installed, or unavailable on the runtime)."""
    skip = missing_models(args.models, runtime["executable"])
    for model, reason in runtime["unavailable_models"].items():
        if model in skip:
            skip[model] = f"unavailable on {runtime['tag']}: {reason}"
    environment = cast(Environment, probes.environment())
    environment["pinning"] = pinning.as_dict()
    environment["server"] = server_environment(args.remote)
    record: ProfileRecord = {
        "name": profile.name,
        "models": args.models,
        "scenarios": args.scenarios,
        "sample_interval_s": profile.sample_interval_s,
        "budget_s": profile.budget_s,
        "estimate_s": plan_estimate_s(plan),
        "definition": profile.definition(),
        "order_seed": args.seed,
        "left_out": args.left_out,
    }
    if args.latencies is not None:
        record["latencies"] = args.latencies
    document = new_document(
        profile=record,
        command=command,
        environment=environment,
        plan=[
            {"id": r.id, "round": r.round, "estimate_s": r.estimate_s, "timeout_s": r.timeout_s}
            for r in plan
        ],
    )
    document["runtime"] = runtime
    return Lane(runtime, ResultsStore(out, document), skip)


def run_lanes(
    args: argparse.Namespace,
    profile: Profile,
    plan: list[PlannedRun],
    lanes: Sequence[Lane],
    pinning: Pinning,
) -> int:
    """The profile's runs into each lane's results.json; Ctrl-C or SIGTERM keeps what ran.
    The exit code."""
    raise_open_files_limit()  # the servers we start inherit it: 10,000+ connections each
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    status: Status = "complete"
    code = 0
    try:
        # The harness on the server's CPUs: the threads it creates (the sampler's) inherit them.
        with this_thread_on(pinning.server):
            execute(profile, plan, lanes, pinning, args.remote)
    except KeyboardInterrupt:
        stopped = terminate_all()
        where = ", ".join(str(lane.store.path) for lane in lanes)
        sys.stderr.write(
            f"\nc10k bench: interrupted; stopped {len(stopped)} process(es) it had started; "
            f"results so far are in {where}\n"
        )
        status, code = "interrupted", 130
    finally:
        signal.signal(signal.SIGTERM, previous)
        terminate_all()
    derive_lanes(lanes)  # an interrupted block's runs too
    for lane in lanes:
        lane.store.finish(status)
        if len(lanes) > 1:
            print(f"\n{lane.runtime['tag']}:")
        print(summary_table(lane.store.document))
        print(f"\nresults: {lane.store.path}")
        if code == 0 and args.check:
            code = check_runs(lane.store.document)
    return code


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
    from bench.report.runtimes import runtimes_markdown  # rendering, only for --pythons

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
        profile, plan, pinning = session.profile, session.plan, session.pinning
        lanes = [
            new_lane(args, profile, plan, args.out / r["tag"], r, command, pinning)
            for r in prepared
        ]
        code = run_lanes(args, profile, plan, lanes, pinning) or code
    outcomes = failed + [
        runtime_outcome(lane.runtime, args.out / lane.runtime["tag"], lane.store.document, None)
        for lane in lanes
    ]
    side_by_side = compare_runtimes(outcomes, [r.tag for r in chosen])
    write_atomic(args.out / RUNTIMES_JSON, side_by_side)
    (args.out / RUNTIMES_MD).write_text(runtimes_markdown(side_by_side))
    print(f"\nruntimes side by side: {args.out / RUNTIMES_MD}")
    return code
