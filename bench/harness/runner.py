"""The run loop of `c10k bench`: each planned run once per runtime, saved and derived."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from time import sleep
from types import FrameType

from bench.analysis.derive import derive_document
from bench.analysis.points import ran
from bench.harness.cores import Pinning, this_thread_on
from bench.harness.plan import PlannedRun, base_record, ended
from bench.harness.points import Profile
from bench.harness.processes import terminate_all
from bench.harness.progress import Progress
from bench.harness.recipes import run_counted, run_crawl, run_idle, run_loop
from bench.harness.rounds import (
    AGAIN_PER_ROUND,
    QuietWait,
    again_allowances,
    again_allowed,
    always_run,
    blocks,
    known_failures,
    runs_needed,
    sentinel_noisy,
)
from bench.harness.session import Lane
from bench.harness.site import ServerError, SiteClient
from bench.harness.ssh_server import SiteHost, new_site
from bench.harness.summary import summary_table
from bench.results import Deviations, Results, Run, RuntimeRecord, Status, run_label
from c10k import catalog
from c10k.system import raise_open_files_limit

# The checkout each runtime's venv installs (editable): the one this harness runs from.
PROJECT_DIR = Path(__file__).resolve().parents[2]


def _skipped(run: PlannedRun, reason: str) -> Run:
    return ended(base_record(run), "skipped", reason)


def run_elsewhere(run: PlannedRun, runtime: RuntimeRecord) -> str | None:
    """Why the run belongs to another kind of build than runtime's; None when it runs there."""
    if run.point is None:
        return None
    return run.point.runtime_refusal(runtime["tag"], runtime["gil_disabled"])


def lane_order(lanes: Sequence[Lane], run: PlannedRun, plan_index: int) -> list[Lane]:
    """The lanes as given in even rounds, reversed in odd ones (a run with no round: by its
    place in the plan), so that no runtime always goes first."""
    turn = run.round if run.round is not None else plan_index
    return list(lanes) if turn % 2 == 0 else list(reversed(lanes))


def refusal(run: PlannedRun, lane: Lane) -> Run | None:
    """The record of a run that does not start in a lane: skipped (its model missing there,
    or another kind of build's) or not run (its point failed twice); None when it starts."""
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
    python, cpus = lane.runtime["executable"], pinning.sets
    refused = refusal(run, lane)
    if refused is not None:
        record = refused
    elif run.idle is not None:
        record = run_idle(run, cpus, python)
    elif run.model == catalog.CPU_LOOP:
        record = run_loop(run, cpus, python)
    elif server is None:
        record = ended(base_record(run), "server-error", server_error or "no server")
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
        server = new_site(run.point.server, self.pinning.server, self.host)
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
    """Run the plan in order, each planned run once per lane (lane_order), one server per
    distinct site, shared by the lanes. A paired round runs only while it is needed; it
    waits for a quiet machine before it starts, and runs again when its sentinel says the
    machine was noisy all the same (both bounded). Each run is saved as it ends; the derived
    figures are brought up to date after each block only (hundreds of runs take a third of a
    second to derive)."""
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
            record["noisy"] = noisy and ran(record)
            _save(lane, run, record, again)
            progress.finished(run, record["status"])
    return noisy


def _save(lane: Lane, run: PlannedRun, record: Run, again: int, wait: int = 0) -> None:
    """Save a run's record as its round's `again`-th run again and `wait`-th wait for quiet."""
    record["id"], record["again"], record["wait"] = run_label(run.id, again, wait), again, wait
    lane.store.add_run(record)


def _run_in_lanes(
    profile: Profile,
    run: PlannedRun,
    lanes: Sequence[Lane],
    pinning: Pinning,
    sites: Sites,
    progress: Progress,
) -> list[tuple[Lane, Run]]:
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
    """The round's sentinel in each lane (not saved yet), and whether the machine was noisy
    in some lane. While it is and the session may still wait, the noisy sentinels are saved
    as a wait, outside the round, and the loop runs again after a pause."""
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
            record["noisy"], record["waited_s"] = True, pause
            _save(lane, run, record, again, wait)
        progress.waiting(run, pause, waiting.left_s)
        sleep(pause)


def derive_lanes(lanes: Sequence[Lane]) -> None:
    for lane in lanes:
        lane.store.set_derived(derive_document(lane.store.document))


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def run_lanes(
    args: argparse.Namespace,
    profile: Profile,
    plan: list[PlannedRun],
    lanes: Sequence[Lane],
    pinning: Pinning,
) -> int:
    """The profile's runs into each lane's results.json (Ctrl-C or SIGTERM keeps what ran);
    the exit code."""
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


def _peer_known(run: Run) -> bool:
    """A peer's run that --check lets pass: skipped as not installed (CI runs without the
    [peers] extra), or failed verification where the peer counted a deviation that changes
    which URLs it fetches (docs/contract.md, "The Scrapy peer"). It stays in the report."""
    if run.get("model") not in catalog.PEERS:
        return False
    if run["status"] == "skipped":
        return True
    verification = run.get("verification")
    none: Deviations = {"counted": {}, "differences": {}}
    deviations = (verification.get("deviations") if verification else None) or none
    counted = set(deviations["counted"]) - {"keep-alive-not-close"}
    explained = counted or "percent-encoded" in deviations["differences"]
    return run["status"] == "failed-verification" and bool(explained)


def _a_finding(run: Run) -> bool:
    """A failed verification of a model whose catalog entry holds a finding: not an error."""
    model = catalog.CRAWLERS.get(run.get("model", ""))
    return run["status"] == "failed-verification" and model is not None and bool(model.finding)


def _unavailable(run: Run) -> bool:
    """Skipped or unavailable, as the catalog's runtime column says it must be (the
    interpreters model on 3.11, gevent on 3.14t)."""
    name = run.get("model", "")
    entry = catalog.CRAWLERS.get(name) or catalog.IDLE_KINDS.get(name)
    runtime = run.get("runtime")
    if entry is None or runtime is None or run["status"] not in ("skipped", "unavailable"):
        return False
    return entry.runtimes.needs(runtime["tag"], runtime["version"]) is not None


def check_runs(document: Results) -> int:
    """--check: 0 when every run ended ok (or passes _peer_known, _unavailable or
    _a_finding), else 1 with one line per run that did not."""
    bad = [
        run
        for run in document["runs"]
        if run["status"] != "ok" and not (_peer_known(run) or _unavailable(run) or _a_finding(run))
    ]
    for run in bad:
        sys.stderr.write(f"c10k bench --check: {run['id']}: {run['status']}: {run['reason']}\n")
    if bad:
        sys.stderr.write(f"c10k bench --check: {len(bad)} of {len(document['runs'])} runs not ok\n")
    return 1 if bad else 0
