"""The kinds of run as a subprocess each: a sampled, verified crawl, a crawl counted under
callgrind, an idle program and the noise floor's fixed CPU loop."""

from __future__ import annotations

import json
import signal
import sys
import tempfile
from collections.abc import Callable, Collection, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench.analysis.busy import BUSY_SHARE
from bench.analysis.plateau import plateau_summary
from bench.harness import callgrind
from bench.harness.cores import (
    CpuSets,
    affinity,
    affinity_of_all,
    harness_share,
    run_busy,
    server_capacity,
)
from bench.harness.heap import memory_env
from bench.harness.plan import IdleSpec, PlannedRun
from bench.harness.processes import Finished, python_command, run_process
from bench.harness.sampler import Sampler
from bench.harness.site import SiteClient
from bench.harness.verify import verification_failures, verify
from bench.results import utc_now
from c10k import catalog, probes

EXIT_STATUS = {2: "usage-error", 3: "limit", 130: "interrupted", -signal.SIGINT: "interrupted"}


def crawl_argv(
    root: str,
    model: str,
    concurrency: int,
    *,
    timeout_s: float | None = None,
    max_tries: int | None = None,
    keep_alive: bool = False,
    mark_crawl: bool = False,
    remote: bool = False,
    processes: int = 1,
    connect_to: Sequence[str] = (),
    python: str = sys.executable,
) -> list[str]:
    """`c10k crawl ROOT --model M --concurrency C [--processes P --connect-to A,B,...]
    [--timeout T] [--max-tries N] [--keep-alive] [--mark-crawl] [--allow-non-loopback]
    --json`, under the interpreter python (--allow-non-loopback for a remote server, which
    is on another host's address). --processes and --connect-to only when P > 1: a plain
    crawl connects to ROOT's host, as it always did."""
    argv = python_command(
        "crawl", root, "--model", model, "--concurrency", str(concurrency), python=python
    )
    if processes > 1:
        argv += ["--processes", str(processes)]
        if connect_to:
            argv += ["--connect-to", ",".join(connect_to)]
    if remote:
        argv.append("--allow-non-loopback")
    if keep_alive:
        argv.append("--keep-alive")
    if timeout_s is not None:
        argv += ["--timeout", str(timeout_s)]
    if max_tries is not None:
        argv += ["--max-tries", str(max_tries)]
    if mark_crawl:
        argv.append("--mark-crawl")
    return [*argv, "--json"]


def idle_argv(spec: IdleSpec, python: str = sys.executable) -> list[str]:
    """`python -m impls.idle --kind K --count N ...` for one idle spec."""
    return [python, "-m", "impls.idle", *spec.argv()]


def loop_argv(python: str = sys.executable) -> list[str]:
    """`python -m impls.cpu_loop`: the noise floor's fixed CPU loop, once."""
    return [python, "-m", "impls.cpu_loop"]


def replay_record_argv(
    root: str, urls_file: str, out: str, python: str = sys.executable
) -> list[str]:
    """`python -m impls.replay record ROOT URLS OUT`: a site's raw responses, once each."""
    return [python, "-m", "impls.replay", "record", root, urls_file, out]


def replay_argv(
    recording: str, mark_crawl: bool = False, python: str = sys.executable
) -> list[str]:
    """`python -m impls.replay run REC [--mark-crawl] --json`: the core alone, fed a
    recorded crawl."""
    argv = [python, "-m", "impls.replay", "run", recording]
    return [*argv, *(["--mark-crawl"] if mark_crawl else []), "--json"]


def base_record(run: PlannedRun) -> dict[str, Any]:
    """A run's record before it runs: what the plan says, and 'crashed' until it ends."""
    planned = ("id", "scenario", "model", "kind", "repetition", "round", "params", "estimate_s")
    return {name: getattr(run, name) for name in planned} | {
        "started_at": utc_now(),
        "status": "crashed",
        "reason": "no result",
    }


def run_crawl(
    run: PlannedRun,
    server: SiteClient,
    sample_interval: float,
    cpus: CpuSets | None = None,
    python: str = sys.executable,
    env: dict[str, str] | None = None,
) -> dict[str, Any]:
    """One crawler process (under the interpreter python, in env: None for the harness's
    own, or the steady heap's if the run asks for it) against a running server: sampled,
    verified, summarised; the crawler on cpus.crawler when pinned."""
    assert run.point is not None
    point = run.point
    record = base_record(run)
    server.reset_stats()
    record["kernel_before"] = {"meminfo_kib": probes.meminfo(), "sockstat": probes.sockstat()}
    argv = crawl_argv(
        server.root,
        run.model,
        point.concurrency,
        timeout_s=point.timeout_s,
        max_tries=point.max_tries,
        keep_alive=run.keep_alive,
        remote=server.remote,
        processes=point.processes,
        connect_to=server.addresses,
        python=python,
    )
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
    record.update(_ended(finished, cpus, server))
    if sampler:
        record["pinning"]["sampler"] = sampler.cpus
        record["harness"]["sampler_cpu_s"] = sampler.cpu_s
    stats = _safe(server.stats)
    crawl: dict[str, Any] | None = None
    if finished.code == 0:
        try:
            crawl = json.loads(finished.stdout)
        except ValueError:
            record.update(status="crashed", reason="the crawler's JSON does not parse")
    # The server works only while the crawl runs: its busy share is over the crawl's time,
    # not over the crawler's interpreter start.
    busy_s = crawl["wall_s"] if crawl and crawl.get("wall_s") else finished.elapsed_s
    cpu_cores = sampler.server_utilisation(busy_s) if sampler else {}
    record["server"] = {"root": server.root, "stats": stats, "cpu_cores": cpu_cores}
    record["busy"] = _busy(crawl, sampler, record["pinning"], point.server.workers)
    # Throttled by the server: the same figure as the CPU-bound side, so the two never differ.
    record["server"]["saturated"] = bool(record["busy"] and record["busy"]["server"] >= BUSY_SHARE)
    if server.remote:
        # No server process here: its CPU comes only from its /__stats__ (since the reset);
        # per-process cores and the busy share are unknown, and so is saturation.
        record["server"].update(remote=True, cpu_cores=None, saturated=None)
        record["server"]["cpu_s"] = stats.get("cpu_seconds") if isinstance(stats, dict) else None
    if sampler:
        record["samples"] = sampler.columns
        if point.check_peak:  # a plateau exists only where all C connections open at once
            record["plateau"] = plateau_summary(sampler.columns, point.concurrency)
    fetched = crawl.pop("fetched", None) if crawl else None
    record["crawl"] = crawl
    if finished.code is None:
        record.update(status="timeout", reason=_timeout_reason(run))
    elif finished.code != 0:
        record.update(
            status=EXIT_STATUS.get(finished.code, "crashed"), reason=_exit_reason(finished)
        )
    if crawl is not None:
        verification = verify(
            fetched,
            server.manifest,
            point.concurrency,
            stats,
            point.check_peak,
            crawl.get("deviations") if crawl.get("peer") else None,
        )
        record["verification"] = verification
        if verification["ok"]:
            record.update(status="ok", reason=None)
        else:
            record.update(status="failed-verification", reason=verification_failures(verification))
    return record


def run_counted(
    run: PlannedRun,
    server: SiteClient,
    cpus: CpuSets | None = None,
    python: str = sys.executable,
) -> dict[str, Any]:
    """One crawl (under the interpreter python) under callgrind, cut at its marks:
    instructions per page, verified; on cpus.crawler when pinned.

    The core replay (model "core-replay") first records the site's responses, uncounted,
    then replays them under callgrind: the core's own share of every raw-socket model.
    """
    assert run.point is not None
    record = base_record(run)
    if why := callgrind.missing():
        return record | {"status": "unavailable", "reason": why}
    if run.point.processes > 1:  # the crawler refuses --mark-crawl with --processes too
        return record | {
            "status": "usage-error",
            "reason": f"processes={run.point.processes}: callgrind counts one process",
        }
    server.reset_stats()
    crawler_cpus = cpus.crawler if cpus else None
    with tempfile.TemporaryDirectory(prefix="c10k-callgrind-") as tmp:
        if run.model == catalog.CORE_REPLAY:
            argv, failed = recorded_replay(server, Path(tmp), run.timeout_s, crawler_cpus, python)
            if failed is not None:
                return record | {"reason": f"recording the site: {_exit_reason(failed)}"}
        else:
            argv = crawl_argv(
                server.root,
                run.model,
                run.point.concurrency,
                keep_alive=run.keep_alive,
                mark_crawl=True,
                remote=server.remote,
                python=python,
            )
        out_file = Path(tmp) / "callgrind.out"
        record["argv"] = argv[1:]
        finished = run_process(
            [*callgrind.callgrind_argv(out_file), *argv],
            run.timeout_s,
            env=callgrind.counted_env(),
            cpus=crawler_cpus,
        )
        record.update(_ended(finished, cpus, server))
        if finished.code is None:
            return record | {"status": "timeout", "reason": _timeout_reason(run)}
        if finished.code != 0:
            return record | {"reason": _exit_reason(finished)}
        try:
            crawl = json.loads(finished.stdout)
            count = callgrind.read_count(out_file, int(crawl["pages"]))
        except (ValueError, KeyError, callgrind.CountFailed) as exc:
            return record | {"reason": f"no count: {exc}"}
    verification = verify(crawl.pop("fetched", None), server.manifest, 0, None, False)
    record.update(crawl=crawl, verification=verification)
    record["instructions"] = asdict(count) | {
        "per_page": count.per_page,
        "pythonhashseed": int(callgrind.HASH_SEED),
    }
    if not verification["ok"]:
        return record | {
            "status": "failed-verification",
            "reason": verification_failures(verification),
        }
    return record | {"status": "ok", "reason": None}


def recorded_replay(
    server: SiteClient,
    workdir: Path,
    timeout: float,
    cpus: Collection[int] | None = None,
    python: str = sys.executable,
) -> tuple[list[str], Finished | None]:
    """Record the site's responses into workdir; the replay's argv, or how recording failed."""
    urls, recording = workdir / "urls.json", workdir / "site.rec"
    urls.write_text(json.dumps(server.manifest["urls"]))
    argv = replay_record_argv(server.root, str(urls), str(recording), python)
    done = run_process(argv, timeout, cpus=cpus)
    replay = replay_argv(str(recording), mark_crawl=True, python=python)
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
    """Run argv (in env; None: the harness's) with a sampler on it from its start (on its
    process tree: tree); the sampler is None if it never started."""
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


def run_idle(
    run: PlannedRun, cpus: CpuSets | None = None, python: str = sys.executable
) -> dict[str, Any]:
    """One idle program (under the interpreter python, on cpus.crawler when pinned): its
    costs per unit, or why there are none."""
    assert run.idle is not None
    record = _run_reporting_program(run, idle_argv(run.idle, python), "idle", cpus)
    if record["status"] == "ok" and record["idle"].get("available") is False:
        record.update(status="unavailable", reason=record["idle"].get("note"))
    return record


def run_loop(
    run: PlannedRun, cpus: CpuSets | None = None, python: str = sys.executable
) -> dict[str, Any]:
    """One run of the fixed CPU loop (under the interpreter python, on cpus.crawler when
    pinned): its CPU and wall seconds."""
    return _run_reporting_program(run, loop_argv(python), "loop", cpus)


def _run_reporting_program(
    run: PlannedRun, argv: list[str], key: str, cpus: CpuSets | None
) -> dict[str, Any]:
    """A program that prints one JSON document, run on the crawler's CPUs: the document
    under record[key], or the reason there is none."""
    record = base_record(run)
    record["argv"] = argv[1:]
    finished = run_process(argv, run.timeout_s, cpus=cpus.crawler if cpus else None)
    record.update(_ended(finished, cpus, None))
    if finished.code is None:
        record.update(status="timeout", reason=_timeout_reason(run))
        return record
    if finished.code != 0:
        record.update(status="crashed", reason=_exit_reason(finished))
        return record
    try:
        record[key] = json.loads(finished.stdout)
    except ValueError:
        record.update(status="crashed", reason=f"the {key} program's JSON does not parse")
        return record
    record.update(status="ok", reason=None)
    return record


def _ended(finished: Finished, cpus: CpuSets | None, server: SiteClient | None) -> dict[str, Any]:
    """How a run's process ended, the CPUs each side ran on (read back from the OS) and what
    the harness spent meanwhile."""
    return {
        "elapsed_s": finished.elapsed_s,
        "exit_code": finished.code,
        "stderr_tail": finished.stderr_tail,
        "pinning": {
            "applied": cpus is not None,
            "crawler": finished.cpus,
            "server": affinity_of_all(server.pids()) if server else None,
            "harness": affinity(0),
            "sampler": None,
        },
        "harness": harness_share(finished.harness_cpu_s or 0.0, finished.elapsed_s),
    }


def _busy(
    crawl: dict[str, Any] | None,
    sampler: Sampler | None,
    pinning: dict[str, Any],
    workers: int,
) -> dict[str, Any] | None:
    """Each side's busy share of the CPUs it ran on (docs/results.md, `busy`)."""
    crawler_cpus, server_cpus = pinning["crawler"], pinning["server"]
    if sampler is None or not crawler_cpus or not server_cpus:
        return None
    capacity = server_capacity(len(server_cpus), workers)
    return run_busy(crawl, sampler.columns, len(crawler_cpus), capacity)


def _timeout_reason(run: PlannedRun) -> str:
    return f"killed after {run.timeout_s:.0f} s"


def _exit_reason(finished: Finished) -> str:
    stderr = finished.stderr_tail.strip()
    last = stderr.splitlines()[-1] if stderr else ""
    return f"exit {finished.code}: {last}"[:500]


def _safe(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except (OSError, ValueError) as exc:
        return {"error": str(exc)}
