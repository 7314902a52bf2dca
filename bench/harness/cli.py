"""`c10k bench`: run a profile's plan of isolated runs, keep every result, print a summary."""

from __future__ import annotations

import argparse
import platform
import signal
import sys
import sysconfig
import time
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn, TextIO, cast

from bench.analysis.derive import derive_document
from bench.harness.cores import PIN_MODES, Pinning, plan_pinning, this_thread_on
from bench.harness.plan import (
    ALL_CRAWLERS,
    SCENARIOS,
    PlannedRun,
    Profile,
    build_plan,
    estimate_by_scenario,
    plan_estimate_s,
)
from bench.harness.processes import missing_models, terminate_all
from bench.harness.profiles import PROFILE_TABLE, PROFILES
from bench.harness.recipes import base_record, run_counted, run_crawl, run_idle, run_loop
from bench.harness.runtimes import RUNTIMES_JSON, RUNTIMES_MD, compare_runtimes, runtime_outcome
from bench.harness.site import RemoteServer, Server, ServerError, SiteClient, agent_state
from bench.harness.summary import summary_table
from bench.results import (
    Environment,
    ProfileDefinition,
    ResultsStore,
    Run,
    RuntimeRecord,
    Status,
    new_document,
    write_atomic,
)
from bench.runtimes.discover import NoSuchRuntime, Runtime, resolve
from bench.runtimes.venvs import PrepareFailed, prepare
from c10k import catalog, probes
from c10k.system import raise_open_files_limit

# The checkout each runtime's venv installs (editable): the one this harness runs from.
PROJECT_DIR = Path(__file__).resolve().parents[2]


def _names(text: str, allowed: Sequence[str], what: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in allowed]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown {what} {', '.join(unknown)}; choose from {', '.join(allowed)}"
        )
    return names


class OneLineParser(argparse.ArgumentParser):
    """Bad input is one line on stderr and exit code 2, not the usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


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
        metavar="URL",
        help="start each test site through the agent at URL (`c10k serve --agent` on another "
        "host, docs/two-hosts.md) instead of here; the crawler may then use every local CPU",
    )
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
        "--check",
        action="store_true",
        help="exit 1 unless every run ended ok (verified against the manifest): for CI smoke runs",
    )
    p.set_defaults(remote=None)  # main() sets environment.server for --server here
    return p


def describe_plan(profile: Profile, plan: list[PlannedRun], runtimes: int = 1) -> str:
    """The plan per scenario and in all, its runs once per runtime; the budget is per runtime."""
    lines = [f"profile {profile.name}: {profile.description}"]
    for name, row in estimate_by_scenario(plan, runtimes).items():
        lines.append(
            f"  {name:<21} {int(row['runs']):>4} runs  {int(row['servers']):>3} servers  "
            f"~{_clock(row['estimate_s'])}"
        )
    total = plan_estimate_s(plan, runtimes)
    budget = profile.budget_s * runtimes
    verdict = "within" if total <= budget else "OVER"
    each = f" ({runtimes} runtimes, each run once per runtime)" if runtimes > 1 else ""
    lines.append(
        f"  {'total':<14} {len(plan) * runtimes:>4} runs  ~{_clock(total)} expected{each}, "
        f"{verdict} the {_clock(budget)} budget"
    )
    return "\n".join(lines)


def plan_table(plan: list[PlannedRun]) -> str:
    """One line per run in the order it runs, with its round (measured crawls: ratios pair
    rep k of two models by it; '-' for warm-ups and idle runs)."""
    lines = [f"{'#':>4}  {'estimate':>8}  {'round':>5}  run"]
    for n, run in enumerate(plan, 1):
        round_text = "-" if run.round is None else str(run.round)
        lines.append(f"{n:>4}  {run.estimate_s:>7.1f}s  {round_text:>5}  {run.id}")
    return "\n".join(lines)


def _clock(seconds: float) -> str:
    whole = max(0, round(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


class Progress:
    """One status line on stderr: what runs, what is left, elapsed and ETA."""

    def __init__(self, plan: list[PlannedRun], stream: TextIO, runtimes: int = 1) -> None:
        self.plan = plan
        self.runtimes = runtimes  # each planned run runs once per runtime
        self.stream = stream
        self.tty = stream.isatty()
        self.started = time.monotonic()
        self.done_estimate = 0.0
        self.counts: dict[str, int] = {}

    def eta_s(self, index: int) -> float:
        remaining = sum(run.estimate_s for run in self.plan[index:]) * self.runtimes
        elapsed = time.monotonic() - self.started
        # Scale the plan's estimate by how fast the runs so far went, within reason.
        ratio = elapsed / self.done_estimate if self.done_estimate > 5 else 1.0
        return remaining * min(3.0, max(0.5, ratio))

    def show(self, index: int) -> None:
        run = self.plan[index]
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

    def finished(self, run: PlannedRun, status: str) -> None:
        self.done_estimate += run.estimate_s
        self.counts[status] = self.counts.get(status, 0) + 1

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _skipped(run: PlannedRun, reason: str) -> dict[str, Any]:
    return base_record(run) | {"status": "skipped", "reason": reason}


@dataclass
class Lane:
    """One runtime's side of a bench run: its interpreter, its results and the models it
    skips (with why)."""

    runtime: dict[str, Any]
    store: ResultsStore
    skip: dict[str, str]


def lane_order(lanes: Sequence[Lane], run: PlannedRun, index: int) -> list[Lane]:
    """The order the runtimes run one planned run in: as given in even rounds, reversed in
    odd ones (a run with no round, by its place in the plan), so that none always goes
    first and a drift of the machine does not favour one."""
    turn = run.round if run.round is not None else index
    return list(lanes) if turn % 2 == 0 else list(reversed(lanes))


def one_run(
    profile: Profile,
    run: PlannedRun,
    lane: Lane,
    server: SiteClient | None,
    server_error: str | None,
    pinning: Pinning,
) -> dict[str, Any]:
    """One planned run under a lane's interpreter, against the shared server; its record."""
    python, cpus = lane.runtime["executable"], pinning.sets
    if run.model in lane.skip:
        record = _skipped(run, lane.skip[run.model])
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
    record["runtime"] = {
        k: lane.runtime[k] for k in ("tag", "version", "gil_disabled", "executable")
    }
    return record


def execute(
    profile: Profile,
    plan: list[PlannedRun],
    lanes: Sequence[Lane],
    pinning: Pinning,
    agent: str | None = None,
) -> None:
    """Run the plan in order, each planned run once per lane, back to back (lane_order);
    one server per distinct site (here, or through the agent at `agent`), shared by the
    lanes; each lane's results saved after every run; each side on its CPUs when pinned."""
    progress = Progress(plan, sys.stderr, len(lanes))
    server: SiteClient | None = None
    server_key = -1
    server_error: str | None = None
    try:
        for index, run in enumerate(plan):
            progress.show(index)
            if run.point is not None and run.server_key != server_key:
                if server is not None:
                    server.stop()
                server, server_key, server_error = None, run.server_key, None
                wanted = [r for r in plan[index:] if r.server_key == server_key]
                if any(r.model not in lane.skip for r in wanted for lane in lanes):
                    server = (
                        RemoteServer(agent, run.point.server)
                        if agent
                        else Server(run.point.server, pinning.server)
                    )
                    try:
                        server.start()
                    except (ServerError, OSError, ValueError) as exc:  # start() stopped it
                        server, server_error = None, f"the test server failed: {exc}"
            for lane in lane_order(lanes, run, index):
                record = one_run(profile, run, lane, server, server_error, pinning)
                lane.store.add_run(cast(Run, record))
                lane.store.set_derived(derive_document(lane.store.document))
                progress.finished(run, record["status"])
    finally:
        progress.close()
        if server is not None:
            server.stop()


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def harness_runtime() -> dict[str, Any]:
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
        "unavailable_models": {},
    }


def _stderr_line(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    profile = PROFILE_TABLE[args.profile]
    args.pin = args.pin or profile.pin
    plan = build_plan(profile, args.models, args.scenarios)
    if args.dry_run:
        print(plan_table(plan))
        print(describe_plan(profile, plan, len(args.pythons or [None])))
        return 0
    command = ["c10k", "bench", *(sys.argv[2:] if argv is None else argv)]
    if args.server is not None:  # asked before any venv is made
        several = sorted({r.scenario for r in plan if r.point and r.point.server.addresses > 1})
        if several:
            parser().error(
                f"--server: {', '.join(several)} needs a server on several loopback "
                "addresses, which an agent on another host cannot give; leave it out with "
                "--scenarios"
            )
        try:
            args.remote = remote_server(args.server)
        except ValueError as exc:
            parser().error(str(exc))
    specs = args.pythons or ([args.python] if args.python else [])
    try:
        chosen = [resolve(spec) for spec in specs]
    except NoSuchRuntime as exc:
        sys.stderr.write(f"c10k bench: error: {exc}\n")
        return 2
    if args.pythons is not None:
        return run_interleaved(args, profile, plan, chosen, command)
    runtime = None
    if chosen:
        try:
            runtime = prepare(chosen[0], PROJECT_DIR, _stderr_line).as_dict()
        except PrepareFailed as exc:
            sys.stderr.write(f"c10k bench: error: {exc}\n")
            return 1
    runtime = runtime or harness_runtime()
    pinning = _announce(args, profile, plan, [runtime])
    lane = new_lane(args, profile, plan, args.out, runtime, command, pinning)
    return run_lanes(args, profile, plan, [lane], pinning)


def _announce(
    args: argparse.Namespace,
    profile: Profile,
    plan: list[PlannedRun],
    runtimes: Sequence[dict[str, Any]],
) -> Pinning:
    """The plan, the runtimes and the pinning on stderr before the runs; the pinning."""
    sys.stderr.write(describe_plan(profile, plan, len(runtimes)) + "\n")
    for runtime in runtimes:
        sys.stderr.write(
            f"runtime: Python {runtime['version']} ({runtime['tag']}), {runtime['executable']}\n"
        )
    pinning = plan_pinning(args.pin, remote=args.remote is not None)
    sys.stderr.write(pinning_line(pinning) + "\n")
    return pinning


def new_lane(
    args: argparse.Namespace,
    profile: Profile,
    plan: list[PlannedRun],
    out: Path,
    runtime: dict[str, Any],
    command: list[str],
    pinning: Pinning,
) -> Lane:
    """A runtime's lane: its empty results document in out/results.json and the models it
    skips (not installed, or unavailable on the runtime)."""
    remote = args.remote
    skip = missing_models(args.models, runtime["executable"])
    for model, reason in runtime["unavailable_models"].items():
        if model in skip:
            skip[model] = f"unavailable on {runtime['tag']}: {reason}"
    document = new_document(
        profile={
            "name": profile.name,
            "models": args.models,
            "scenarios": args.scenarios,
            "sample_interval_s": profile.sample_interval_s,
            "budget_s": profile.budget_s,
            "estimate_s": plan_estimate_s(plan),
            "definition": cast(ProfileDefinition, profile.definition()),
        },
        command=command,
        environment=cast(
            Environment,
            probes.environment()
            | {
                "pinning": pinning.as_dict(),
                "server": remote or {"remote": False, "agent": None, "host": None},
            },
        ),
        plan=[
            {"id": r.id, "round": r.round, "estimate_s": r.estimate_s, "timeout_s": r.timeout_s}
            for r in plan
        ],
    )
    document["runtime"] = cast(RuntimeRecord, runtime)
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
            execute(profile, plan, lanes, pinning, args.server)
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
    for lane in lanes:
        lane.store.finish(status)
        if len(lanes) > 1:
            print(f"\n{lane.runtime['tag']}:")
        print(summary_table(dict(lane.store.document)))
        print(f"\nresults: {lane.store.path}")
        if code == 0 and args.check:
            code = check_runs(dict(lane.store.document))
    return code


def run_interleaved(
    args: argparse.Namespace,
    profile: Profile,
    plan: list[PlannedRun],
    chosen: list[Runtime],
    command: list[str],
) -> int:
    """--pythons: every runtime's venv first (one that fails is recorded as failed, the
    others run), then each planned run once per runtime, back to back (lane_order), each
    runtime's records into OUT/<tag>/results.json; then the side by side (OUT/runtimes.json,
    OUT/runtimes.md), written also when the runs stop half-way."""
    from bench.report.runtimes import runtimes_markdown  # rendering, only for --pythons

    prepared: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    for n, runtime in enumerate(chosen, 1):
        _stderr_line(f"c10k bench: runtime {n}/{len(chosen)}: {runtime.tag} ({runtime.executable})")
        try:
            prepared.append(prepare(runtime, PROJECT_DIR, _stderr_line).as_dict())
        except PrepareFailed as exc:
            _stderr_line(f"c10k bench: {exc}; going on without it")
            failed.append(
                runtime_outcome(runtime.as_dict(), args.out / runtime.tag, None, str(exc))
            )
    code = 1 if failed else 0
    lanes: list[Lane] = []
    if prepared:
        pinning = _announce(args, profile, plan, prepared)
        lanes = [
            new_lane(args, profile, plan, args.out / r["tag"], r, command, pinning)
            for r in prepared
        ]
        code = run_lanes(args, profile, plan, lanes, pinning) or code
    outcomes = failed + [
        runtime_outcome(
            lane.runtime, args.out / lane.runtime["tag"], dict(lane.store.document), None
        )
        for lane in lanes
    ]
    side_by_side = compare_runtimes(outcomes, [r.tag for r in chosen])
    write_atomic(args.out / RUNTIMES_JSON, side_by_side)
    (args.out / RUNTIMES_MD).write_text(runtimes_markdown(side_by_side))
    print(f"\nruntimes side by side: {args.out / RUNTIMES_MD}")
    return code


def remote_server(url: str) -> dict[str, Any]:
    """environment.server for `--server URL`: where the agent is and what it says of itself;
    ValueError (one line) when URL is no http URL or no agent answers there."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "http" or not parts.hostname or parts.port is None:
        raise ValueError(
            f"--server must be an agent's URL such as http://10.0.0.2:8700/, got {url!r}"
        )
    try:
        state = agent_state(url)
    except (OSError, ValueError) as exc:
        raise ValueError(f"no `c10k serve --agent` answers at {url}: {exc}") from None
    return {
        "remote": True,
        "agent": url,
        "host": state.get("host"),
        "max_servers": state.get("max_servers"),
        "idle_timeout_s": state.get("idle_timeout_s"),
    }


def pinning_line(pinning: Pinning) -> str:
    """One line on stderr before the runs: where each side runs."""
    if pinning.sets is not None:
        return (
            f"pinned: server and harness on CPUs {_cpu_list(pinning.sets.server)}, "
            f"crawler on CPUs {_cpu_list(pinning.sets.crawler)}"
        )
    return f"not pinned: {pinning.note or '--pin off'}"


def _cpu_list(cpus: Sequence[int]) -> str:
    return ",".join(str(c) for c in cpus)


def _peer_known(run: dict[str, Any]) -> bool:
    """A peer's run that --check lets pass: skipped as not installed (CI runs without the
    [peers] extra), or failed verification where the peer counted a deviation that changes
    which URLs it fetches (docs/contract.md, "The Scrapy peer"). It stays in the report."""
    if run.get("model") not in catalog.PEERS:
        return False
    if run["status"] == "skipped":
        return True
    deviations = (run.get("verification") or {}).get("deviations") or {}
    counted = set(deviations.get("counted") or {}) - {"keep-alive-not-close"}
    explained = counted or "percent-encoded" in (deviations.get("differences") or {})
    return run["status"] == "failed-verification" and bool(explained)


def check_runs(document: dict[str, Any]) -> int:
    """For --check: 0 when every run ended ok (or is a peer's known absence or deviation,
    _peer_known), else 1 with one line per run that did not."""
    bad = [run for run in document["runs"] if run["status"] != "ok" and not _peer_known(run)]
    for run in bad:
        sys.stderr.write(f"c10k bench --check: {run['id']}: {run['status']}: {run['reason']}\n")
    if bad:
        sys.stderr.write(f"c10k bench --check: {len(bad)} of {len(document['runs'])} runs not ok\n")
    return 1 if bad else 0
