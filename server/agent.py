"""`c10k serve --agent`: a control endpoint that starts and stops site servers on request."""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import ctypes
import ipaddress
import json
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import IO, Any

from c10k.system import read_line, stop_process
from server.cli import DEFAULT_HOST, UsageError, UsageParser, check_host, parse_options
from server.specs import parse_duration

PROG = "c10k serve --agent"
MAX_SERVERS = 8  # the most --max-servers allows: the harness needs one at a time
_READY_S = 120.0  # a large site renders every page before it prints its URL
_STOP_GRACE_S = 5.0
_PR_SET_PDEATHSIG = 1
_MAX_BODY = 64 * 1024

# The options a client may pass to a site server (the full names; values checked by
# `c10k serve` itself). Where it listens is the agent's choice: its own address, port 0.
VALUE_OPTIONS = frozenset(
    {
        "--preset",
        "--pages",
        "--links",
        "--shape",
        "--seed",
        "--body-size",
        "--chain-length",
        "--ratio",
        "--latency",
        "--bandwidth",
        "--faults",
        "--hang",
        "--workers",
        "--loop",
    }
)
FLAG_OPTIONS = frozenset({"--no-variety"})


class RefusedRequest(Exception):
    """A request the agent will not do; its message goes back to the client."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def build_parser() -> argparse.ArgumentParser:
    p = UsageParser(
        prog=PROG,
        description=(
            "Run a control endpoint that starts `c10k serve` site servers on request, on this "
            "host, for `c10k bench --server URL` on another host (docs/two-hosts.md). Its URL "
            "is the first line of stdout. Only `c10k serve`'s own site and delivery options "
            "are accepted; every server listens on the agent's --host. SIGINT/SIGTERM stop "
            "the agent and every server it started."
        ),
    )
    p.add_argument("--agent", action="store_true", help="run the agent (this mode)")
    p.add_argument("--host", default=DEFAULT_HOST, help=f"address to bind (default {DEFAULT_HOST})")
    p.add_argument("--port", type=int, default=0, help="port (default 0: a free one)")
    p.add_argument(
        "--allow-non-loopback",
        action="store_true",
        help="allow --host to be an address that is not loopback (the agent and its "
        "servers are then reachable from the network: no authentication, trusted networks "
        "only)",
    )
    p.add_argument(
        "--max-servers",
        type=int,
        default=2,
        help=f"site servers running at once (default 2, at most {MAX_SERVERS})",
    )
    p.add_argument(
        "--idle-timeout",
        default="10m",
        help="stop every server after this long without a request to the agent (default 10m)",
    )
    return p


@dataclass
class AgentOptions:
    host: str
    port: int
    allow_non_loopback: bool
    max_servers: int
    idle_timeout_s: float


def parse_agent_options(argv: list[str]) -> AgentOptions:
    """The agent's options; UsageError with a one-line message."""
    args = build_parser().parse_args(argv)
    try:
        if not 0 <= args.port <= 65535:
            raise ValueError(f"--port must be 0..65535, got {args.port}")
        if not 1 <= args.max_servers <= MAX_SERVERS:
            raise ValueError(f"--max-servers must be 1..{MAX_SERVERS}, got {args.max_servers}")
        idle = parse_duration(args.idle_timeout)
        if idle <= 0:
            raise ValueError("--idle-timeout must be more than 0")
        try:
            address = ipaddress.ip_address(args.host)
        except ValueError:
            raise ValueError(f"--host must be an IP address, got {args.host!r}") from None
        if address.is_unspecified:
            # The servers' URLs name this address: it must be one a crawler can reach.
            raise ValueError(f"--host {args.host} is unspecified: name one address of this host")
        check_host(args.host, args.allow_non_loopback)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return AgentOptions(args.host, args.port, args.allow_non_loopback, args.max_servers, idle)


def site_arguments(args: Any) -> list[str]:
    """Check a client's server options: a list of strings, only the allowed full option
    names, each with its value; returns them; RefusedRequest otherwise."""
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise RefusedRequest('"args" must be a list of strings')
    i = 0
    while i < len(args):
        name = args[i]
        if name in FLAG_OPTIONS:
            i += 1
        elif name in VALUE_OPTIONS:
            if i + 1 >= len(args) or args[i + 1].startswith("--"):
                raise RefusedRequest(f"{name} needs a value")
            i += 2
        else:
            raise RefusedRequest(
                f"option {name!r} is not accepted; allowed: "
                + ", ".join(sorted(VALUE_OPTIONS | FLAG_OPTIONS))
            )
    return list(args)


def _die_with_agent() -> None:
    """In the child before exec: SIGTERM when the thread that started it dies (Linux prctl:
    the agent's launcher thread, which lives as long as the agent), so a killed agent
    leaves no server behind."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


@dataclass
class SiteServer:
    """One `c10k serve` the agent started."""

    id: int
    args: list[str]
    process: subprocess.Popen[bytes]
    stderr: IO[bytes]
    url: str = ""
    started: float = field(default_factory=time.time)

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "url": self.url,
            "pid": self.process.pid,
            "args": self.args,
            "alive": self.process.poll() is None,
        }

    def stderr_tail(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")[-500:].strip()

    def stop(self) -> None:
        stop_process(self.process, _STOP_GRACE_S)
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.stderr.close()


class Agent:
    """The site servers started on request: at most max_servers, all stopped on stop(), on
    request and after idle_timeout_s without a request."""

    def __init__(self, options: AgentOptions) -> None:
        self.options = options
        self.servers: dict[int, SiteServer] = {}
        self._next_id = 1
        self._starting = 0
        self._lock = threading.Lock()
        self.last_request = time.monotonic()
        # Servers are started from this one long-lived thread: the kernel's parent-death
        # signal fires when the thread that forked exits, and a request's thread ends with it.
        self._launcher = concurrent.futures.ThreadPoolExecutor(1, "c10k-agent-launcher")

    def touch(self) -> None:
        self.last_request = time.monotonic()

    def describe(self) -> dict[str, Any]:
        with self._lock:
            servers = [s.describe() for s in self.servers.values()]
        return {
            "agent": "c10k serve --agent",
            "host": self.options.host,
            "max_servers": self.options.max_servers,
            "idle_timeout_s": self.options.idle_timeout_s,
            "servers": servers,
        }

    def start(self, args: list[str]) -> dict[str, Any]:
        """Start a site server with these (checked) options; its description with its URL."""
        network = ["--host", self.options.host, "--port", "0"]
        if self.options.allow_non_loopback:
            network.append("--allow-non-loopback")
        try:
            parse_options([*args, *network])  # refused here, with c10k serve's own message
        except UsageError as exc:
            raise RefusedRequest(f"c10k serve: {exc}") from None
        with self._lock:
            if len(self.servers) + self._starting >= self.options.max_servers:
                raise RefusedRequest(
                    f"{self.options.max_servers} server(s) already running; stop one first", 409
                )
            self._starting += 1
            server_id = self._next_id
            self._next_id += 1
        try:
            server = self._launcher.submit(self._launch, server_id, args, network).result()
        finally:
            with self._lock:
                self._starting -= 1
        with self._lock:
            self.servers[server_id] = server
        print(f"{PROG}: started server {server_id} at {server.url}", file=sys.stderr, flush=True)
        return server.describe()

    def _launch(self, server_id: int, args: list[str], network: list[str]) -> SiteServer:
        stderr = tempfile.TemporaryFile()  # noqa: SIM115  # closed by SiteServer.stop()
        process = subprocess.Popen(
            [sys.executable, "-m", "server", *args, *network],
            stdout=subprocess.PIPE,
            stderr=stderr,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C to the agent's terminal is the agent's to pass on
            preexec_fn=_die_with_agent,  # prctl only, before exec
        )
        server = SiteServer(server_id, args, process, stderr)
        assert process.stdout is not None
        line = read_line(process.stdout, _READY_S)
        if not line.startswith(b"http://"):
            tail = server.stderr_tail()
            server.stop()
            raise RefusedRequest(f"the server did not start: {tail or line[:200]!r}", 500)
        server.url = line.decode().strip()
        # Keep reading so that a chatty server never blocks on a full pipe.
        threading.Thread(target=_drain, args=(process.stdout,), daemon=True).start()
        return server

    def stop(self, server_id: int | None = None) -> list[int]:
        """Stop one server (None: every one); the ids stopped."""
        with self._lock:
            ids = list(self.servers) if server_id is None else [server_id]
            if server_id is not None and server_id not in self.servers:
                raise RefusedRequest(f"no server {server_id}", 404)
            chosen = [self.servers.pop(i) for i in ids]
        for server in chosen:
            server.stop()
            print(f"{PROG}: stopped server {server.id}", file=sys.stderr, flush=True)
        return ids

    def stop_when_idle(self, stopping: threading.Event) -> None:
        """Until stopping is set: stop every server after idle_timeout_s without a request."""
        while not stopping.wait(1.0):
            idle = time.monotonic() - self.last_request
            if self.servers and idle > self.options.idle_timeout_s:
                print(f"{PROG}: idle {idle:.0f} s: stopping every server", file=sys.stderr)
                self.stop()


def _drain(stream: IO[bytes]) -> None:
    with contextlib.suppress(OSError, ValueError):
        for _ in stream:
            pass


class _Handler(BaseHTTPRequestHandler):
    """GET / (state), POST /servers {"args": [...]}, GET or DELETE /servers/ID, DELETE
    /servers (all)."""

    server: _AgentHTTPServer
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the agent logs what it starts and stops

    def _reply(self, status: int, document: dict[str, Any]) -> None:
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _route(self, method: str) -> None:
        agent = self.server.agent
        agent.touch()
        path = self.path.partition("?")[0].rstrip("/")
        try:
            if method == "GET" and path == "":
                self._reply(200, agent.describe())
            elif method == "POST" and path == "/servers":
                self._reply(201, agent.start(site_arguments(self._json().get("args"))))
            elif method == "DELETE" and path == "/servers":
                self._reply(200, {"stopped": agent.stop()})
            elif path.startswith("/servers/") and method in ("GET", "DELETE"):
                server_id = _server_id(path)
                if method == "DELETE":
                    self._reply(200, {"stopped": agent.stop(server_id)})
                else:
                    found = agent.describe()["servers"]
                    match = [s for s in found if s["id"] == server_id]
                    if not match:
                        raise RefusedRequest(f"no server {server_id}", 404)
                    self._reply(200, match[0])
            else:
                raise RefusedRequest(f"no {method} {self.path}", 404)
        except RefusedRequest as exc:
            self._reply(exc.status, {"error": str(exc)})

    def _json(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        if length > _MAX_BODY:
            raise RefusedRequest("request body too large")
        try:
            document = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            raise RefusedRequest("the body is not JSON") from None
        if not isinstance(document, dict):
            raise RefusedRequest("the body must be a JSON object")
        return document

    def do_GET(self) -> None:
        self._route("GET")

    def do_POST(self) -> None:
        self._route("POST")

    def do_DELETE(self) -> None:
        self._route("DELETE")


def _server_id(path: str) -> int:
    try:
        return int(path.rsplit("/", 1)[1])
    except ValueError:
        raise RefusedRequest(f"bad server id in {path}", 404) from None


class _AgentHTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], agent: Agent) -> None:
        self.address_family = _family(address[0])
        super().__init__(address, _Handler)
        self.agent = agent


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ipaddress.ip_address(host).version == 6 else socket.AF_INET


def agent_url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def _raise_exit(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run_agent(options: AgentOptions) -> None:
    """Serve the control endpoint until SIGINT or SIGTERM, then stop every server."""
    agent = Agent(options)
    try:
        httpd = _AgentHTTPServer((options.host, options.port), agent)
    except OSError as exc:
        raise OSError(f"cannot listen on {options.host}:{options.port}: {exc.strerror}") from None
    stopping = threading.Event()
    watcher = threading.Thread(target=agent.stop_when_idle, args=(stopping,), daemon=True)
    watcher.start()
    previous = signal.signal(signal.SIGTERM, _raise_exit)
    url = agent_url(options.host, httpd.server_address[1])
    print(url, flush=True)
    print(
        f"{PROG}: at most {options.max_servers} server(s), idle timeout "
        f"{options.idle_timeout_s:g} s, serving {url}",
        file=sys.stderr,
        flush=True,
    )
    try:
        httpd.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        stopping.set()
        httpd.server_close()
        agent.stop()
        signal.signal(signal.SIGTERM, previous)
