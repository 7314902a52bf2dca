"""The test website as a process: the options of `c10k serve`, started and stopped here."""

from __future__ import annotations

import contextlib
import json
import subprocess
import tempfile
import threading
import urllib.request
from collections import deque
from collections.abc import Collection
from dataclasses import dataclass
from typing import IO, Any, Literal
from urllib.parse import urlsplit

import psutil

from bench.harness.cores import this_thread_on
from bench.harness.processes import STDERR_TAIL, STOP_GRACE_S, track, untrack
from bench.interpreter import python_command
from c10k.durations import NO_LATENCY, Latency
from c10k.system import read_line, stop_process

SERVER_READY_S = 60.0  # a large site's manifest is built before the server says it is ready
# A server on several addresses takes a block 127.0.N.1..127.0.N.A (N >= 1), apart from the
# single-address servers' 127.0.0.k: one block per /24, so at most 254 addresses.
MAX_ADDRESSES = 254
ADDRESS_BLOCKS = 250  # blocks cycle 127.0.1.x .. 127.0.250.x, as single hosts cycle

_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: no proxy


@dataclass(frozen=True)
class ServeOptions:
    """The options of one `c10k serve` process; results.json records them as each crawl's
    params.server (docs/results.md)."""

    pages: int
    links: int = 10
    shape: Literal["deep", "wide", "docs"] = "deep"
    seed: int = 1
    latency: Latency = NO_LATENCY
    bandwidth: str | None = None
    faults: str | None = None
    workers: int = 1
    # `c10k serve --preset NAME`: its values stand where the fields above do not speak
    # (page sizes, link-kind ratios); pages, links and shape are always passed.
    preset: str | None = None
    # Loopback addresses (`c10k serve --listen`), one port: each gives the crawler its own
    # ephemeral ports. Not in argv(): a local Server picks them (over ssh: the host's one).
    addresses: int = 1
    # False: the root page answers at once (`c10k serve --root-now`), the others after their
    # latency; a sleepy crawl then spends no latency on its hub.
    root_latency: bool = True
    # Disjoint parts (`c10k serve --parts`), each crawled by a process of `--processes` or a
    # subinterpreter of the interpreters model (docs/server.md).
    parts: int = 1

    def __post_init__(self) -> None:
        if not 1 <= self.addresses <= MAX_ADDRESSES:
            raise ValueError(f"addresses must be 1..{MAX_ADDRESSES}, got {self.addresses}")

    def argv(self) -> list[str]:
        args = ["--preset", self.preset] if self.preset is not None else []
        args += ["--pages", str(self.pages), "--links", str(self.links), "--shape", self.shape]
        args += ["--seed", str(self.seed), "--latency", self.latency.text]
        args += ["--workers", str(self.workers)]
        if not self.root_latency:
            args.append("--root-now")
        if self.parts > 1:
            args += ["--parts", str(self.parts)]
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
    """GET (or POST, with an empty body) a URL of the server; its JSON, None when empty."""
    request = urllib.request.Request(url, method=method, data=b"" if method == "POST" else None)
    with _opener.open(request, timeout=timeout) as response:
        body = response.read()
    return json.loads(body) if body.strip() else None


class ServerError(Exception):
    """The test website did not start or answer."""


class SiteClient:
    """A `c10k serve` this harness runs as a child (here, or over ssh), and what the harness
    asks of the running site over HTTP: its URLs, stats and manifest. Its URL is the first
    line of the child's stdout, the rest drained, its stderr kept for the error messages."""

    remote = False  # the server runs on another host: none of its processes is visible here

    def __init__(self) -> None:
        self.process: subprocess.Popen[bytes] | None = None
        self.root = ""
        self.manifest: dict[str, Any] = {}
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115  # closed in _forget()
        self._stdout_tail: deque[bytes] = deque(maxlen=50)

    def start(self) -> None:
        """Start the server, wait for its URL, then read its manifest; whatever fails (no
        URL: ServerError), the server is stopped before the error propagates."""
        try:
            self._start()
            self.manifest = http_json(self.url("__manifest__"), timeout=SERVER_READY_S)
        except BaseException:
            self.stop()
            raise

    def _start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def pids(self) -> list[int]:
        return []

    @property
    def addresses(self) -> list[str]:
        """The addresses the site listens on, the one its URLs name first (the crawler's
        --connect-to); a single-address site's is the host of its root."""
        return [urlsplit(self.root).hostname or ""]

    def url(self, path: str) -> str:
        return self.root.rstrip("/") + "/" + path

    def stats(self) -> dict[str, Any]:
        result: dict[str, Any] = http_json(self.url("__stats__"))
        return result

    def manifest_of(self, root: str) -> dict[str, Any]:
        """The manifest of a crawl from root: the site's, or a part's (its root /?part=K)."""
        if not (query := urlsplit(root).query):
            return self.manifest
        result: dict[str, Any] = http_json(
            self.url(f"__manifest__?{query}"), timeout=SERVER_READY_S
        )
        return result

    def reset_stats(self) -> None:
        http_json(self.url("__stats__/reset"), method="POST")

    def _launch(
        self, argv: list[str], cpus: Collection[int] | None = None, stdin: int | None = None
    ) -> None:
        """Start argv (on cpus), wait for the URL on its first line (ServerError when none
        comes), then keep reading its stdout so that a chatty server never blocks."""
        with this_thread_on(cpus):
            self.process = subprocess.Popen(
                argv,
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                start_new_session=True,
            )
        track(self.process.pid)
        assert self.process.stdout is not None
        line = read_line(self.process.stdout, SERVER_READY_S)
        if not line.startswith(b"http"):
            raise ServerError(
                f"c10k serve gave no URL (exit {self.process.poll()}): {line[:200]!r} "
                f"{self.stderr_tail()}"
            )
        self.root = line.decode().strip()
        threading.Thread(target=self._drain, args=(self.process.stdout,), daemon=True).start()

    def _drain(self, stream: IO[bytes]) -> None:
        for line in stream:
            self._stdout_tail.append(line)

    def stderr_tail(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")[-STDERR_TAIL:]

    def _forget(self) -> None:
        if self.process is not None:
            untrack(self.process.pid)
        self.process = None
        self._stderr.close()


class Server(SiteClient):
    """A `c10k serve` process (and its workers), started and stopped by the harness."""

    _next_host = 1
    _next_block = 0

    def __init__(self, options: ServeOptions, cpus: Collection[int] | None = None) -> None:
        super().__init__()
        self.options = options
        self.cpus = cpus  # the server's CPU set; its workers inherit it (None: anywhere)
        # Fresh loopback addresses per server: each has its own 28k ephemeral ports, so
        # TIME_WAIT sockets left by one scenario never starve the next.
        if options.addresses == 1:
            Server._next_host = Server._next_host % 250 + 1
            self.listen = [f"127.0.0.{Server._next_host}"]
        else:
            Server._next_block = Server._next_block % ADDRESS_BLOCKS + 1
            block = Server._next_block
            self.listen = [f"127.0.{block}.{k}" for k in range(1, options.addresses + 1)]
        self.host = self.listen[0]
        self.workers: list[psutil.Process] = []

    def _start(self) -> None:
        where = ["--host", self.host]
        if len(self.listen) > 1:
            where = ["--listen", f"{self.listen[0]}-{self.listen[-1]}"]
        self._launch(
            python_command("serve", *where, "--port", "0", *self.options.argv()), self.cpus
        )
        assert self.process is not None
        with contextlib.suppress(psutil.Error):
            self.workers = psutil.Process(self.process.pid).children(recursive=True)
        for worker in self.workers:
            track(worker.pid)

    def pids(self) -> list[int]:
        return ([self.process.pid] if self.process else []) + [w.pid for w in self.workers]

    @property
    def addresses(self) -> list[str]:
        return list(self.listen)

    def stop(self) -> None:
        """Stop the server and its workers, once."""
        if self.process is None:
            return
        stop_process(self.process, STOP_GRACE_S)
        for worker in self.workers:  # workers outlive a killed parent: end them by PID
            with contextlib.suppress(psutil.Error):
                if worker.is_running():
                    worker.kill()
            untrack(worker.pid)
        self._forget()
