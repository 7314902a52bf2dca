"""The test website as a process: the options of `c10k serve`, and starting and stopping it."""

from __future__ import annotations

import contextlib
import json
import select
import signal
import subprocess
import tempfile
import threading
import time
import urllib.request
from collections import deque
from collections.abc import Collection
from dataclasses import dataclass
from typing import IO, Any, Literal

import psutil

from bench.harness.cores import this_thread_on
from bench.harness.processes import STDERR_TAIL, STOP_GRACE_S, python_command, track, untrack

SERVER_READY_S = 60.0  # a large site's manifest is built before the server says it is ready

_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: no proxy


@dataclass(frozen=True)
class ServeOptions:
    """The options of one `c10k serve` process: the site and how it is served.

    results.json records these fields as each crawl's params.server (docs/results.md).
    """

    pages: int
    links: int = 10
    shape: Literal["deep", "wide", "docs"] = "deep"
    seed: int = 1
    latency: str = "0"
    bandwidth: str | None = None
    faults: str | None = None
    workers: int = 1
    # `c10k serve --preset NAME`: its values stand where the fields above do not speak
    # (page sizes, link-kind ratios); pages, links and shape are always passed.
    preset: str | None = None

    def argv(self) -> list[str]:
        args = ["--preset", self.preset] if self.preset is not None else []
        args += ["--pages", str(self.pages), "--links", str(self.links), "--shape", self.shape]
        args += ["--seed", str(self.seed), "--latency", self.latency]
        args += ["--workers", str(self.workers)]
        if self.bandwidth is not None:
            args += ["--bandwidth", self.bandwidth]
        if self.faults is not None:
            args += ["--faults", self.faults]
        return args

    @property
    def urls_estimate(self) -> int:
        # Wide sites without links have exactly the root plus the pages; other sites add
        # about 15% redirects, 404s, files and queries (server/site.py defaults).
        if self.shape == "wide" and self.links == 0:
            return self.pages + 1
        if self.shape == "docs":  # section indexes, query copies, variants: about 35% more
            return int(self.pages * 1.35) + 1
        return int(self.pages * 1.15) + 1


def http_json(url: str, method: str = "GET", timeout: float = 30.0) -> Any:
    """GET (or POST, empty) a URL of the server; its JSON body, or None when it is empty."""
    request = urllib.request.Request(url, method=method, data=b"" if method == "POST" else None)
    with _opener.open(request, timeout=timeout) as response:
        body = response.read()
    return json.loads(body) if body.strip() else None


class ServerError(Exception):
    """The test website did not start or answer."""


class Server:
    """A `c10k serve` process (and its workers), started and stopped by the harness."""

    _next_host = 1

    def __init__(self, options: ServeOptions, cpus: Collection[int] | None = None) -> None:
        self.options = options
        self.cpus = cpus  # the server's CPU set; its workers inherit it (None: anywhere)
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
        """Start the server, wait for its URL, then read its manifest; ServerError if it
        prints no URL. Whatever fails, the server is stopped before the error propagates."""
        try:
            self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self) -> None:
        argv = python_command("serve", "--host", self.host, "--port", "0", *self.options.argv())
        with this_thread_on(self.cpus):
            self.process = subprocess.Popen(
                argv, stdout=subprocess.PIPE, stderr=self._stderr, start_new_session=True
            )
        track(self.process.pid)
        assert self.process.stdout is not None
        line = _read_line(self.process.stdout, SERVER_READY_S)
        if not line.startswith(b"http"):
            raise ServerError(
                f"c10k serve gave no URL (exit {self.process.poll()}): {line[:200]!r} "
                f"{self.stderr_tail()}"
            )
        self.root = line.decode().strip()
        threading.Thread(target=self._drain, args=(self.process.stdout,), daemon=True).start()
        with contextlib.suppress(psutil.Error):
            self.workers = psutil.Process(self.process.pid).children(recursive=True)
        for worker in self.workers:
            track(worker.pid)
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
        """Stop the server and its workers; a stopped server stays stopped."""
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
            untrack(pid)
        self.process = None
        self._stderr.close()


def _read_line(stream: IO[bytes], timeout: float) -> bytes:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([stream], [], [], 0.1)
        if ready:
            return stream.readline()
    return b""
