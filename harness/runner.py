"""One run as a subprocess: the server it crawls, a psutil sampler, verification, a record."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import deque
from collections.abc import Iterator
from typing import IO, Any

import psutil

from c10k.stats import linear_fit
from harness import probes
from harness.plan import CrawlPoint, PlannedRun, ServerConfig

SERVER_READY_S = 60.0  # a large site's manifest is built before the server says it is ready
STOP_GRACE_S = 5.0
PEAK_TOLERANCE = 0.01  # sleepy: the server's peak in flight within 1% of the concurrency
SATURATED_CPU = 0.9  # a server process busier than this (cores) throttles the crawl
USS_BUDGET = 0.2  # USS reads may take at most this share of the sampling interval
STDERR_TAIL = 2000

# Every process this harness started and has not yet reaped: Ctrl-C ends exactly these.
_live: dict[int, psutil.Process] = {}
_live_lock = threading.Lock()
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: no proxy


def python_command(*args: str) -> list[str]:
    """Run a c10k subcommand with this interpreter, never a crawler import in this process."""
    return [sys.executable, "-m", "c10k.cli", *args]


def _track(pid: int) -> None:
    with contextlib.suppress(psutil.Error), _live_lock:
        _live[pid] = psutil.Process(pid)


def _untrack(pid: int) -> None:
    with _live_lock:
        _live.pop(pid, None)


def terminate_all() -> list[int]:
    """SIGTERM every process we started, SIGKILL what is left after a grace; return the PIDs."""
    with _live_lock:
        processes = list(_live.values())
        _live.clear()
    for process in processes:
        with contextlib.suppress(psutil.Error):
            process.terminate()
    _, alive = psutil.wait_procs(processes, timeout=STOP_GRACE_S)
    for process in alive:
        with contextlib.suppress(psutil.Error):
            process.kill()
    psutil.wait_procs(alive, timeout=STOP_GRACE_S)
    return [p.pid for p in processes]


def http_json(url: str, method: str = "GET", timeout: float = 30.0) -> Any:
    request = urllib.request.Request(url, method=method, data=b"" if method == "POST" else None)
    with _opener.open(request, timeout=timeout) as response:
        body = response.read()
    return json.loads(body) if body.strip() else None


# -- the server ---------------------------------------------------------------------------


class ServerError(Exception):
    """The test website did not start or answer."""


class Server:
    """A `c10k serve` process (and its workers), started and stopped by the harness."""

    _next_host = 1

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        # A fresh loopback address per server: each has its own 28k ephemeral ports, so
        # TIME_WAIT sockets left by one scenario never starve the next.
        Server._next_host = Server._next_host % 250 + 1
        self.host = f"127.0.0.{Server._next_host}"
        self.process: subprocess.Popen[bytes] | None = None
        self.workers: list[psutil.Process] = []
        self.root = ""
        self.manifest: dict[str, Any] = {}
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115  # closed in stop()
        self._stdout_tail: deque[bytes] = deque(maxlen=50)

    def start(self) -> None:
        argv = python_command("serve", "--host", self.host, "--port", "0", *self.config.argv())
        self.process = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=self._stderr, start_new_session=True
        )
        _track(self.process.pid)
        assert self.process.stdout is not None
        line = _read_line(self.process.stdout, SERVER_READY_S)
        if not line.startswith(b"http"):
            code = self.process.poll()
            self.stop()
            raise ServerError(
                f"c10k serve gave no URL (exit {code}): {line[:200]!r} {self.stderr_tail()}"
            )
        self.root = line.decode().strip()
        threading.Thread(target=self._drain, args=(self.process.stdout,), daemon=True).start()
        with contextlib.suppress(psutil.Error):
            self.workers = psutil.Process(self.process.pid).children(recursive=True)
        for worker in self.workers:
            _track(worker.pid)
        self.manifest = http_json(self.url("__manifest__"), timeout=SERVER_READY_S)

    def _drain(self, stream: IO[bytes]) -> None:
        # Keep reading so a chatty server never blocks on a full pipe.
        for line in stream:
            self._stdout_tail.append(line)

    def url(self, path: str) -> str:
        return self.root.rstrip("/") + "/" + path

    def stats(self) -> dict[str, Any]:
        result: dict[str, Any] = http_json(self.url("__stats__"))
        return result

    def reset_stats(self) -> None:
        http_json(self.url("__stats__/reset"), method="POST")

    def pids(self) -> list[int]:
        return ([self.process.pid] if self.process else []) + [w.pid for w in self.workers]

    def stderr_tail(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")[-STDERR_TAIL:]

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for worker in self.workers:  # workers outlive a killed parent: end them by PID
            with contextlib.suppress(psutil.Error):
                if worker.is_running():
                    worker.kill()
        for pid in self.pids():
            _untrack(pid)
        self.process = None
        self._stderr.close()


def _read_line(stream: IO[bytes], timeout: float) -> bytes:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([stream], [], [], 0.1)
        if ready:
            return stream.readline()
    return b""


@contextlib.contextmanager
def running_server(config: ServerConfig) -> Iterator[Server]:
    server = Server(config)
    try:
        server.start()
        yield server
    finally:
        server.stop()


# -- sampling -----------------------------------------------------------------------------

SAMPLE_FIELDS = (
    "t",
    "rss_kib",
    "vmrss_kib",
    "uss_kib",
    "cpu_user_s",
    "cpu_sys_s",
    "threads",
    "fds",
    "server_cpu_s",
    "tcp_inuse",
    "tcp_tw",
    "tcp_mem_kib",
    "slab_kib",
    "kernel_stack_kib",
    "page_tables_kib",
)


class Sampler(threading.Thread):
    """Samples a crawler (and the server's CPU) at a steady rate into columns."""

    def __init__(self, pid: int, server_pids: list[int], interval: float) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.interval = interval
        self.columns: dict[str, list[Any]] = {name: [] for name in SAMPLE_FIELDS}
        self.server = [psutil.Process(p) for p in server_pids if psutil.pid_exists(p)]
        self.server_cpu_first: dict[int, float] = {}
        self.server_cpu_last: dict[int, float] = {}
        self.uss_every = 1  # read USS every n-th sample; grows when USS is slow to read
        self.stopping = threading.Event()
        self.started_at = time.perf_counter()

    def run(self) -> None:
        try:
            process = psutil.Process(self.pid)
        except psutil.Error:
            return
        n = 0
        next_at = time.perf_counter()
        while not self.stopping.is_set():
            try:
                self._sample(process, n)
            except psutil.Error:
                break  # the crawler has exited
            n += 1
            next_at += self.interval
            self.stopping.wait(max(0.0, next_at - time.perf_counter()))

    def _sample(self, process: psutil.Process, n: int) -> None:
        now = time.perf_counter() - self.started_at
        with process.oneshot():
            if process.status() == psutil.STATUS_ZOMBIE:
                raise psutil.NoSuchProcess(self.pid)  # exited: its memory reads as 0
            rss = process.memory_info().rss // 1024
            cpu = process.cpu_times()
            threads = process.num_threads()
            fds = process.num_fds()
        uss = None
        if n % self.uss_every == 0:
            began = time.perf_counter()
            with contextlib.suppress(psutil.Error):
                uss = process.memory_full_info().uss // 1024
            if time.perf_counter() - began > USS_BUDGET * self.interval:
                self.uss_every *= 2
        server_cpu = 0.0
        for server in self.server:
            with contextlib.suppress(psutil.Error):
                times = server.cpu_times()
                used = times.user + times.system
                self.server_cpu_first.setdefault(server.pid, used)
                self.server_cpu_last[server.pid] = used
                server_cpu += used
        tcp = probes.sockstat()
        kernel = probes.meminfo(("Slab", "KernelStack", "PageTables"))
        row = {
            "t": round(now, 4),
            "rss_kib": rss,
            "vmrss_kib": probes.proc_status_kib(self.pid),
            "uss_kib": uss,
            "cpu_user_s": cpu.user,
            "cpu_sys_s": cpu.system,
            "threads": threads,
            "fds": fds,
            "server_cpu_s": round(server_cpu, 3),
            "tcp_inuse": tcp.get("inuse"),
            "tcp_tw": tcp.get("tw"),
            "tcp_mem_kib": tcp.get("mem_kib"),
            "slab_kib": kernel.get("Slab"),
            "kernel_stack_kib": kernel.get("KernelStack"),
            "page_tables_kib": kernel.get("PageTables"),
        }
        for name, value in row.items():
            self.columns[name].append(value)

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=5)

    def server_utilisation(self, wall_s: float) -> dict[str, float]:
        """CPU cores each server process used on average while it was sampled."""
        if wall_s <= 0:
            return {}
        return {
            str(pid): (self.server_cpu_last[pid] - first) / wall_s
            for pid, first in self.server_cpu_first.items()
        }


# -- summaries of samples -----------------------------------------------------------------


def plateau_summary(columns: dict[str, list[Any]], concurrency: int) -> dict[str, Any]:
    """RSS while (nearly) all connections are open, and just before they were opened."""
    fds = columns["fds"]
    if not fds:
        return {"samples": 0}
    base = min(fds)
    threshold = base + 0.95 * concurrency
    above = [i for i, f in enumerate(fds) if f >= threshold]
    # The first stretch with (nearly) every connection open: in sleepy that is the first
    # wave, before any response has been processed, so every C is measured alike.
    plateau = [i for n, i in enumerate(above) if i - n == (above[0] if above else 0)]
    summary: dict[str, Any] = {
        "samples": len(fds),
        "base_fds": base,
        "threshold_fds": threshold,
        "plateau_samples": len(plateau),
        "samples_above_threshold": len(above),
    }
    if not plateau:
        return summary

    def median_of(name: str, indices: list[int]) -> float | None:
        values = sorted(columns[name][i] for i in indices if columns[name][i] is not None)
        return values[len(values) // 2] if values else None

    summary.update(
        {
            "rss_kib": median_of("rss_kib", plateau),
            "vmrss_kib": median_of("vmrss_kib", plateau),
            "uss_kib": median_of("uss_kib", plateau),
            "fds": median_of("fds", plateau),
            "threads": median_of("threads", plateau),
            "tcp_mem_kib": median_of("tcp_mem_kib", plateau),
            "tcp_inuse": median_of("tcp_inuse", plateau),
            "slab_kib": median_of("slab_kib", plateau),
            "kernel_stack_kib": median_of("kernel_stack_kib", plateau),
            "page_tables_kib": median_of("page_tables_kib", plateau),
        }
    )
    summary["max_rss_kib_above_threshold"] = max(columns["rss_kib"][i] for i in above)
    summary["t_start"] = columns["t"][plateau[0]]
    summary["t_end"] = columns["t"][plateau[-1]]
    # The last sample before the ramp: the independent, in-run cross-check of the fit.
    first = plateau[0]
    before = [i for i in range(first) if fds[i] <= base + max(2, 0.02 * concurrency)]
    if before:
        i = before[-1]
        summary["before_ramp"] = {name: columns[name][i] for name in SAMPLE_FIELDS}
        opened = (summary["fds"] or 0) - fds[i]
        if opened > 0 and summary["vmrss_kib"] is not None and columns["vmrss_kib"][i]:
            summary["ramp_vmrss_bytes_per_connection"] = (
                (summary["vmrss_kib"] - columns["vmrss_kib"][i]) * 1024 / opened
            )
        # VmRSS against open fds while the connections open: fixed costs that land in the
        # ramp (first-use allocations) go to the intercept, not the slope. Needs a ramp
        # longer than a few samples, i.e. thousands of connections.
        ramp = [j for j in range(i, first + 1) if columns["vmrss_kib"][j] is not None]
        if len(ramp) >= 4:
            fit = linear_fit(
                [float(fds[j]) for j in ramp], [columns["vmrss_kib"][j] * 1024.0 for j in ramp]
            )
            summary["ramp_fit_bytes_per_fd"] = fit.as_dict()
    return summary


# -- verification -------------------------------------------------------------------------


def verify(
    fetched: dict[str, Any] | None,
    manifest: dict[str, Any],
    concurrency: int,
    server_stats: dict[str, Any] | None,
    check_peak: bool,
) -> dict[str, Any]:
    """fetched must equal the manifest; in sleepy the server's peak must reach C (±1%)."""
    expected: dict[str, Any] = manifest.get("urls", {})
    got = fetched or {}
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    differ = sorted(u for u in set(got) & set(expected) if got[u] != expected[u])
    result: dict[str, Any] = {
        "manifest_count": len(expected),
        "fetched_count": len(got),
        "missing": len(missing),
        "extra": len(extra),
        "different": len(differ),
        "examples": {
            "missing": missing[:5],
            "extra": extra[:5],
            "different": [[u, got[u], expected[u]] for u in differ[:5]],
        },
        "manifest_ok": fetched is not None and not (missing or extra or differ),
    }
    peak = (server_stats or {}).get("peak_in_flight")
    result["server_peak_in_flight"] = peak
    result["peak_required"] = None
    result["peak_ok"] = True
    if check_peak:
        required = min(concurrency, len(expected) - 1) * (1 - PEAK_TOLERANCE)
        result["peak_required"] = required
        result["peak_ok"] = peak is not None and peak >= required
    result["ok"] = result["manifest_ok"] and result["peak_ok"]
    return result


# -- runs ---------------------------------------------------------------------------------

EXIT_STATUS = {2: "usage-error", 3: "limit", 130: "interrupted", -signal.SIGINT: "interrupted"}


def _run_process(
    argv: list[str], timeout: float, on_start: Any = None
) -> tuple[int | None, bytes, str, float]:
    """Run argv in its own session; kill it at the timeout. (exit code|None, stdout, stderr)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(argv, stdout=out, stderr=err, start_new_session=True)
        _track(process.pid)
        try:
            if on_start is not None:
                on_start(process.pid)
            try:
                code: int | None = process.wait(timeout)
            except subprocess.TimeoutExpired:
                code = None
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            _untrack(process.pid)
        elapsed = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        return code, out.read(), err.read().decode(errors="replace")[-STDERR_TAIL:], elapsed


def crawl_argv(root: str, model: str, point: CrawlPoint) -> list[str]:
    return python_command(
        "crawl",
        root,
        "--model",
        model,
        "--concurrency",
        str(point.concurrency),
        "--timeout",
        str(point.timeout_s),
        "--max-tries",
        str(point.max_tries),
        "--json",
    )


def run_crawl(run: PlannedRun, server: Server, sample_interval: float) -> dict[str, Any]:
    """One crawler process against a running server: sampled, verified, summarised."""
    assert run.point is not None
    point = run.point
    record = base_record(run)
    server.reset_stats()
    record["kernel_before"] = {"meminfo_kib": probes.meminfo(), "sockstat": probes.sockstat()}
    sampler: list[Sampler] = []

    def start_sampling(pid: int) -> None:
        sampler.append(Sampler(pid, server.pids(), sample_interval))
        sampler[0].start()

    argv = crawl_argv(server.root, run.model, point)
    record["argv"] = argv[1:]
    try:
        code, stdout, stderr, elapsed = _run_process(argv, run.timeout_s, start_sampling)
    finally:
        if sampler:
            sampler[0].stop()
    record["elapsed_s"] = elapsed
    record["exit_code"] = code
    record["stderr_tail"] = stderr
    stats = _safe(server.stats)
    crawl: dict[str, Any] | None = None
    if code == 0:
        try:
            crawl = json.loads(stdout)
        except ValueError:
            record.update(status="crashed", reason="the crawler's JSON does not parse")
    # The server works only while the crawl runs: its busy share is over the crawl's time,
    # not over the crawler's interpreter start.
    busy_s = crawl["wall_s"] if crawl and crawl.get("wall_s") else elapsed
    record["server"] = {
        "root": server.root,
        "stats": stats,
        "cpu_cores": sampler[0].server_utilisation(busy_s) if sampler else {},
    }
    busiest = max(record["server"]["cpu_cores"].values(), default=0.0)
    record["server"]["saturated"] = busiest >= SATURATED_CPU
    if sampler:
        record["samples"] = sampler[0].columns
        if point.check_peak:  # a plateau exists only where all C connections open at once
            record["plateau"] = plateau_summary(sampler[0].columns, point.concurrency)
    fetched = crawl.pop("fetched", None) if crawl else None
    record["crawl"] = crawl
    if code is None:
        record.update(status="timeout", reason=f"killed after {run.timeout_s:.0f} s")
    elif code != 0:
        status = EXIT_STATUS.get(code, "crashed")
        last = stderr.strip().splitlines()[-1] if stderr.strip() else ""
        record.update(status=status, reason=f"exit {code}: {last}"[:500])
    if crawl is not None:
        verification = verify(fetched, server.manifest, point.concurrency, stats, point.check_peak)
        record["verification"] = verification
        if verification["ok"]:
            record.update(status="ok", reason=None)
        else:
            why = []
            if not verification["manifest_ok"]:
                why.append(
                    f"fetched != manifest (missing {verification['missing']}, extra "
                    f"{verification['extra']}, different {verification['different']})"
                )
            if not verification["peak_ok"]:
                why.append(
                    f"server peak in flight {verification['server_peak_in_flight']} < "
                    f"{verification['peak_required']:.0f}"
                )
            record.update(status="failed-verification", reason="; ".join(why))
    return record


def run_idle(run: PlannedRun) -> dict[str, Any]:
    assert run.idle is not None
    record = base_record(run)
    argv = [sys.executable, "-m", "impls.idle", *run.idle.argv()]
    record["argv"] = argv[1:]
    code, stdout, stderr, elapsed = _run_process(argv, run.timeout_s)
    record.update(elapsed_s=elapsed, exit_code=code, stderr_tail=stderr)
    if code is None:
        record.update(status="timeout", reason=f"killed after {run.timeout_s:.0f} s")
        return record
    if code != 0:
        last = stderr.strip().splitlines()[-1] if stderr.strip() else ""
        record.update(status="crashed", reason=f"exit {code}: {last}"[:500])
        return record
    try:
        record["idle"] = json.loads(stdout)
    except ValueError:
        record.update(status="crashed", reason="the idle program's JSON does not parse")
        return record
    if record["idle"].get("available") is False:
        record.update(status="unavailable", reason=record["idle"].get("note"))
    else:
        record.update(status="ok", reason=None)
    return record


def base_record(run: PlannedRun) -> dict[str, Any]:
    return {
        "id": run.id,
        "scenario": run.scenario,
        "model": run.model,
        "kind": run.kind,
        "repetition": run.repetition,
        "params": run.params,
        "estimate_s": run.estimate_s,
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "status": "crashed",
        "reason": "no result",
    }


def _safe(call: Any) -> Any:
    try:
        return call()
    except (OSError, ValueError) as exc:
        return {"error": str(exc)}


def load_average() -> list[float]:
    return list(os.getloadavg())
