"""The kinds of run, a subprocess each: sampled crawl, counted crawl, idle program, CPU loop."""

from __future__ import annotations

import json
import signal
import sys
import tempfile
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any, Literal

from bench.analysis.busy import BUSY_SHARE, server_cpu_lost
from bench.analysis.plateau import plateau_summary
from bench.harness import callgrind
from bench.harness.commands import CPU_LOOP_PROGRAM, REPLAY_PROGRAM, crawl_argv, idle_argv
from bench.harness.cores import (
    CpuSets,
    affinity,
    affinity_of_all,
    harness_share,
    run_busy,
    server_capacity,
)
from bench.harness.heap import memory_env
from bench.harness.plan import PlannedRun, base_record, ended
from bench.harness.processes import Finished, run_process
from bench.harness.sampler import Sampler
from bench.harness.site import SiteClient
from bench.harness.verify import verification_failures, verify
from bench.interpreter import python_command
from bench.results import CrawlDocument, Run, RunStatus, Verification
from c10k import catalog, probes

EXIT_STATUS: dict[int, RunStatus] = {
    2: "usage-error",
    3: "limit",
    130: "interrupted",
    -signal.SIGINT: "interrupted",
}


def run_crawl(
    run: PlannedRun,
    server: SiteClient,
    sample_interval: float,
    cpus: CpuSets | None = None,
    python: str = sys.executable,
    env: dict[str, str] | None = None,
) -> Run:
    """One sampled, verified crawl against a running server, under python, in env (None:
    the harness's, or the steady heap's when the run asks for it)."""
    assert run.point is not None
    point = run.point
    record = base_record(run)
    server.reset_stats()
    record["kernel_before"] = {"meminfo_kib": probes.meminfo(), "sockstat": probes.sockstat()}
    argv = _crawl_argv(run, server, python)
    record["argv"] = argv[1:]
    if env is None and run.steady_heap:
        env, record["heap"] = memory_env()
    finished, sampler = _sampled_run(
        argv,
        run.timeout_s,
        server.pids(),
        sample_interval,
        cpus.crawler if cpus else None,
        env,
        tree=point.processes > 1,
    )
    _record_end(record, finished, cpus, server)
    if sampler:
        record["pinning"]["sampler"] = sampler.cpus
        record["harness"]["sampler_cpu_s"] = sampler.cpu_s
        record["sampler_failures"] = sampler.failures
    try:
        stats = server.stats()
    except (OSError, ValueError) as exc:
        stats = {"error": str(exc)}
    crawl = _crawl_document(record, finished)
    _record_server(record, server, stats, crawl, sampler, point.server.workers)
    if sampler:
        record["samples"] = sampler.columns
        if point.check_peak:  # a plateau exists only where all C connections open at once
            record["plateau"] = plateau_summary(sampler.columns, point.concurrency)
    fetched = crawl.pop("fetched", None) if crawl else None
    record["crawl"] = crawl
    _failed(record, finished, run, EXIT_STATUS)
    if crawl is not None:
        deviations = crawl.get("deviations") if crawl.get("peer") else None
        parts = [(p["pages"], server.manifest_of(p["root"])) for p in crawl.get("processes", [])]
        verified = verify(
            fetched, server.manifest, point.concurrency, stats, point.check_peak, deviations, parts
        )
        _record_verification(record, verified)
    return record


def _crawl_argv(
    run: PlannedRun, server: SiteClient, python: str, counted: bool = False
) -> list[str]:
    """A counted crawl is a plain one that marks its start and end for callgrind."""
    assert run.point is not None
    point = run.point
    options: dict[str, Any] = {"mark_crawl": True}
    if not counted:
        options = {
            "timeout_s": point.timeout_s,
            "max_tries": point.max_tries,
            "processes": point.processes,
            "connect_to": server.addresses,
            "core": point.core,
            "interpreters": point.interpreters,
        }
    return crawl_argv(
        server.root,
        run.model,
        point.concurrency,
        keep_alive=run.params.get("keep_alive", False),
        remote=server.remote,
        python=python,
        **options,
    )


def _crawl_document(record: Run, finished: Finished) -> CrawlDocument | None:
    """The crawler's JSON document, when it exited 0 and printed one that parses."""
    if finished.code != 0:
        return None
    try:
        crawl: CrawlDocument = json.loads(finished.stdout)
    except ValueError:
        ended(record, "crashed", "the crawler's JSON does not parse")
        return None
    return crawl


def _record_server(
    record: Run,
    server: SiteClient,
    stats: dict[str, Any],
    crawl: CrawlDocument | None,
    sampler: Sampler | None,
    workers: int,
) -> None:
    """The server's stats, its CPU and the CPU-bound side (unknown when the sampler lost
    reads of the server's CPU)."""
    # The server works only while the crawl runs: its busy share is over the crawl's time,
    # not over the crawler's interpreter start.
    busy_s = crawl["wall_s"] if crawl and crawl.get("wall_s") else record["elapsed_s"]
    cpu_cores = sampler.server_utilisation(busy_s) if sampler else {}
    # Each side's busy share of the CPUs it ran on (docs/results.md, `busy`).
    crawler_cpus, server_cpus = record["pinning"]["crawler"], record["pinning"]["server"]
    busy = None
    if sampler is not None and crawler_cpus and server_cpus:
        capacity = server_capacity(len(server_cpus), workers)
        busy = run_busy(crawl, sampler.columns, len(crawler_cpus), capacity)
    # Throttled by the server: the same figure as the CPU-bound side, so the two never differ.
    lost = server_cpu_lost(record)
    saturated = None if lost else bool(busy and busy["server"] >= BUSY_SHARE)
    record["server"] = {
        "root": server.root,
        "stats": stats,
        "cpu_cores": None if lost else cpu_cores,
        "saturated": saturated,
    }
    record["busy"] = busy
    if server.remote:
        # No server process here: its CPU comes only from its /__stats__ (since the reset);
        # per-process cores and the busy share are unknown, and so is saturation.
        remote = record["server"]
        remote["remote"], remote["cpu_cores"], remote["saturated"] = True, None, None
        remote["cpu_s"] = stats.get("cpu_seconds") if isinstance(stats, dict) else None


def _record_verification(record: Run, verification: Verification) -> None:
    record["verification"] = verification
    if verification["ok"]:
        ended(record, "ok", None)
    else:
        ended(record, "failed-verification", verification_failures(verification))


def run_counted(
    run: PlannedRun,
    server: SiteClient,
    cpus: CpuSets | None = None,
    python: str = sys.executable,
) -> Run:
    """One verified crawl under callgrind, cut at its marks: instructions per page. The
    core replay (model "core-replay") records the site's responses, uncounted, then replays
    them under callgrind: the core's own share of every raw-socket model."""
    assert run.point is not None
    record = base_record(run)
    if why := callgrind.missing():
        return ended(record, "unavailable", why)
    if run.point.processes > 1:  # the crawler refuses --mark-crawl with --processes too
        why = f"processes={run.point.processes}: callgrind counts one process"
        return ended(record, "usage-error", why)
    server.reset_stats()
    crawler_cpus = cpus.crawler if cpus else None
    with tempfile.TemporaryDirectory(prefix="c10k-callgrind-") as tmp:
        if run.model == catalog.CORE_REPLAY:
            argv, failed = recorded_replay(server, Path(tmp), run.timeout_s, crawler_cpus, python)
        else:
            argv, failed = _crawl_argv(run, server, python, counted=True), None
        if failed is not None:
            return ended(record, "crashed", f"recording the site: {_exit_reason(failed)}")
        out_file = Path(tmp) / "callgrind.out"
        record["argv"] = argv[1:]
        finished = run_process(
            [*callgrind.callgrind_argv(out_file), *argv],
            run.timeout_s,
            env=callgrind.counted_env(),
            cpus=crawler_cpus,
        )
        _record_end(record, finished, cpus, server)
        if (unfinished := _failed(record, finished, run)) is not None:
            return unfinished
        try:
            crawl: CrawlDocument = json.loads(finished.stdout)
            count = callgrind.read_count(out_file, int(crawl["pages"]))
        except (ValueError, KeyError, callgrind.CountFailed) as exc:
            return ended(record, "crashed", f"no count: {exc}")
    record["crawl"] = crawl
    _record_verification(
        record, verify(crawl.pop("fetched", None), server.manifest, 0, None, False)
    )
    record["instructions"] = {
        "startup_ir": count.startup_ir,
        "crawl_ir": count.crawl_ir,
        "exit_ir": count.exit_ir,
        "pages": count.pages,
        "per_page": count.per_page,
        "pythonhashseed": int(callgrind.HASH_SEED),
    }
    return record


def recorded_replay(
    server: SiteClient,
    workdir: Path,
    timeout: float,
    cpus: Collection[int] | None = None,
    python: str = sys.executable,
) -> tuple[list[str], Finished | None]:
    """Record the site's responses into workdir; the replay's argv, or how recording failed."""
    urls, recording = workdir / "urls.json", workdir / "site.rec"
    replaying = {"python": python, "module": REPLAY_PROGRAM}
    urls.write_text(json.dumps(server.manifest["urls"]))
    # The site's raw responses, once each; then the core alone, fed them.
    argv = python_command("record", server.root, str(urls), str(recording), **replaying)
    done = run_process(argv, timeout, cpus=cpus)
    replay = python_command("run", str(recording), "--mark-crawl", "--json", **replaying)
    return replay, (None if done.code == 0 else done)


def _sampled_run(
    argv: list[str],
    timeout: float,
    server_pids: list[int],
    interval: float,
    cpus: Collection[int] | None,
    env: dict[str, str] | None = None,
    tree: bool = False,
) -> tuple[Finished, Sampler | None]:
    """Run argv with a sampler on it (on its process tree: tree) from its start; the
    sampler is None if it never started."""
    sampler: list[Sampler] = []

    def start_sampling(pid: int) -> None:
        sampler.append(Sampler(pid, server_pids, interval, tree=tree))
        sampler[0].start()

    try:
        finished = run_process(argv, timeout, start_sampling, env=env, cpus=cpus)
    finally:
        if sampler:
            sampler[0].stop()
    return finished, (sampler[0] if sampler else None)


def run_idle(run: PlannedRun, cpus: CpuSets | None = None, python: str = sys.executable) -> Run:
    """One idle program: its costs per unit, or why there are none."""
    assert run.idle is not None
    record = _run_reporting_program(run, idle_argv(run.idle, python), "idle", cpus)
    if record["status"] == "ok" and record["idle"].get("available") is False:
        ended(record, "unavailable", record["idle"].get("note"))
    return record


def run_loop(run: PlannedRun, cpus: CpuSets | None = None, python: str = sys.executable) -> Run:
    """One run of the fixed CPU loop: its CPU and wall seconds."""
    argv = python_command(python=python, module=CPU_LOOP_PROGRAM)
    return _run_reporting_program(run, argv, "loop", cpus)


def _run_reporting_program(
    run: PlannedRun, argv: list[str], key: Literal["idle", "loop"], cpus: CpuSets | None
) -> Run:
    """A program that prints one JSON document, on the crawler's CPUs: it goes in record[key]."""
    record = base_record(run)
    record["argv"] = argv[1:]
    finished = run_process(argv, run.timeout_s, cpus=cpus.crawler if cpus else None)
    _record_end(record, finished, cpus, None)
    if (unfinished := _failed(record, finished, run)) is not None:
        return unfinished
    try:
        record[key] = json.loads(finished.stdout)
    except ValueError:
        return ended(record, "crashed", f"the {key} program's JSON does not parse")
    return ended(record, "ok", None)


def _record_end(
    record: Run, finished: Finished, cpus: CpuSets | None, server: SiteClient | None
) -> None:
    """How a run's process ended, the CPUs each side ran on (read back from the OS) and the
    harness's CPU meanwhile."""
    record["elapsed_s"] = finished.elapsed_s
    record["exit_code"] = finished.code
    record["stderr_tail"] = finished.stderr_tail
    record["pinning"] = {
        "applied": cpus is not None,
        "crawler": finished.cpus,
        "server": affinity_of_all(server.pids()) if server else None,
        "harness": affinity(0),
        "sampler": None,
    }
    record["harness"] = harness_share(finished.harness_cpu_s or 0.0, finished.elapsed_s)


def _failed(
    record: Run,
    finished: Finished,
    run: PlannedRun,
    statuses: Mapping[int, RunStatus] | None = None,
) -> Run | None:
    """The record ended as timed out, or by a non-zero exit code (its status in `statuses`,
    else "crashed"); None when the process exited 0."""
    if finished.code is None:
        return ended(record, "timeout", f"killed after {run.timeout_s:.0f} s")
    if finished.code != 0:
        return ended(record, (statuses or {}).get(finished.code, "crashed"), _exit_reason(finished))
    return None


def _exit_reason(finished: Finished) -> str:
    stderr = finished.stderr_tail.strip()
    last = stderr.splitlines()[-1] if stderr else ""
    return f"exit {finished.code}: {last}"[:500]
