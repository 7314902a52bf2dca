"""The aiohttp server for a Site: latency, bandwidth, faults, manifest and shared stats."""

from __future__ import annotations

import asyncio
import collections
import itertools
import json
import socket
import struct
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from c10k import probes
from c10k.durations import NO_LATENCY, Latency
from server.counters import Stats
from server.site import Site

# Tries counted per path for the latency draw; forgotten past this many paths.
_MAX_TRACKED_PATHS = 1_000_000
_BANDWIDTH_TICK = 0.05  # seconds between two chunks of a trickled body


# Accept queues per address in each worker: sockets on one port with SO_REUSEPORT, among
# which the kernel spreads new connections. One queue holds at most somaxconn connections
# not yet accepted (4096 on the dev VM, whatever listen() asks); a connection dropped from a
# full queue sends its SYN again only 1 s later, then 2 s after that, past a 2 s site's first
# answers. Four queues hold 16,384 (docs/notes/2026-11-25-accept-queue-overflow.md).
ACCEPT_QUEUES = 4


def listen_backlog() -> int:
    """The kernel's accept-queue cap (somaxconn), at least 4096: 10,000 clients connect at once."""
    return max(4096, probes.sysctl_int("net.core.somaxconn") or 0)


def make_listener(
    host: str, port: int, *, reuse_port: bool, backlog: int, listen: bool = True
) -> socket.socket:
    """A listening TCP socket (SO_REUSEPORT when several workers share the port)."""
    info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, _, _, _, addr = info[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(addr)
        if listen:
            sock.listen(backlog)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


@dataclass
class Delivery:
    """How responses are delivered: latency before each, body bandwidth, hang duration, backlog."""

    latency: Latency = NO_LATENCY
    seed: int = 0  # the site's seed: the latency's draws follow it
    # False: the root page answers at once and only the other pages wait their latency (a
    # sleepy site's hub, which would otherwise hold every crawl up by one latency).
    root_latency: bool = True
    bandwidth: int = 0  # bytes per second per response; 0 is unlimited
    hang: float = 60.0  # a hanging request closes its connection after this long
    backlog: int = 4096


class SiteHandler:
    """The request handler: one instance per worker process."""

    def __init__(
        self,
        site: Site,
        stats: Stats,
        delivery: Delivery,
        *,
        now: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.site = site
        self.stats = stats
        self.delivery = delivery
        # Every wait of the delivery (latency, bandwidth, hang) goes through these two, so a
        # test can give the handler a clock of its own and check the waits it asks for.
        self.now = now
        self.sleep = sleep
        self._tries: dict[str, int] = {}
        self._manifests: dict[tuple[str, int], bytes] = {}

    def manifest_json(self, root_url: str, max_redirect: int = 10) -> bytes:
        """The manifest as JSON, cached per root and budget."""
        key = (root_url, max_redirect)
        body = self._manifests.get(key)
        if body is None:
            urls = self.site.manifest(root_url, max_redirect)
            body = json.dumps({"count": len(urls), "urls": urls}).encode()
            self._manifests[key] = body
        return body

    def part_roots(self, authority: str) -> list[str]:
        """The root URL of each part of the site served as authority (one: its root)."""
        return [f"http://{authority}{path}" for path in self.site.part_paths()]

    async def __call__(self, request: web.BaseRequest) -> web.StreamResponse:
        # The answer is due at arrival + L, arrival being when the head was parsed: the
        # handler's own work (the page, the stats) and the wait for its turn on the loop
        # happen inside L, not after it (docs/notes/2026-11-23-server-latency-due-time.md).
        arrived = _arrival(request)  # taken for every request, to keep the stamps in step
        if arrived is None:
            arrived = self.now()
        path = request.raw_path
        if path.startswith("/__"):
            return self._control(request, path)
        self.stats.begin(self._address_slot(request))
        sent = 0
        try:
            due = arrived + self._latency(path)
            page = self.site.response(path, request.host)
            # Built inside the latency, so that only the sending comes after it.
            whole: web.StreamResponse | None = None
            if page.fault is None and self.delivery.bandwidth <= 0:
                whole = web.Response(status=page.status, body=page.body, headers=page.headers)
            if (wait := due - self.now()) > 0:
                await self.sleep(wait)
            if page.fault is not None or page.status == 500:
                self.stats.fault()  # the model serves 500 only where it places the fault
            if page.fault is not None:
                sent = await self._fault(request, page.fault, page.raw)
                # The transport is closed: aiohttp's attempt to send this one fails quietly.
                return web.Response(status=page.status)
            if whole is not None:
                # Sent here, not after return, so in_flight covers the whole response.
                await whole.prepare(request)
                await whole.write_eof()
                resp = whole
            else:
                resp = await self._trickle(request, page.status, page.headers, page.body)
            sent = request.writer.output_size
            return resp
        finally:
            self.stats.end(sent)

    def _address_slot(self, request: web.BaseRequest) -> int:
        """Which --listen address the request came in on (0 when there is only one)."""
        if len(self.stats.addresses) < 2 or request.transport is None:
            return 0
        local = request.transport.get_extra_info("sockname")
        return self.stats.address_slot(str(local[0])) if local else 0

    def _latency(self, path: str) -> float:
        """This try's latency for path: the n-th try of a path draws the n-th delay."""
        latency = self.delivery.latency
        if latency.is_zero or (path.partition("?")[0] == "/" and not self.delivery.root_latency):
            return 0.0
        n = self._tries.get(path, 0)
        if len(self._tries) >= _MAX_TRACKED_PATHS:
            self._tries.clear()
        self._tries[path] = n + 1
        return latency.delay(path, n, self.delivery.seed)

    async def _trickle(
        self,
        request: web.BaseRequest,
        status: int,
        headers: tuple[tuple[str, str], ...],
        body: bytes,
    ) -> web.StreamResponse:
        resp = web.StreamResponse(status=status, headers=headers)
        resp.content_length = len(body)
        await resp.prepare(request)
        rate = self.delivery.bandwidth
        chunk = max(1, int(rate * _BANDWIDTH_TICK))
        start = self.now()
        for offset in range(0, len(body), chunk):
            # Pace against the clock from the start, so sleep overshoot does not add up.
            due = start + offset / rate
            wait = due - self.now()
            if wait > 0:
                await self.sleep(wait)
            await resp.write(body[offset : offset + chunk])
        await resp.write_eof()
        return resp

    async def _fault(self, request: web.BaseRequest, kind: str, raw: bytes) -> int:
        """Misbehave on the connection; returns the bytes written."""
        transport = request.transport
        if transport is None:
            return 0
        if kind == "reset":
            # SO_LINGER (on, 0 s) turns close into an RST, before any byte is sent.
            sock = transport.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            transport.abort()
            return 0
        if kind == "hang":
            # No answer; the client's timeout must fire. Bounded, so every hang ends by itself.
            await self.sleep(self.delivery.hang)
            transport.close()
            return 0
        # truncate / garbage: write the model's bytes, then close (FIN after they are sent).
        transport.write(raw)
        transport.close()
        return len(raw)

    def _control(self, request: web.BaseRequest, path: str) -> web.Response:
        """The site's own endpoints; they are not counted in the stats."""
        route = path.partition("?")[0]
        if route == "/__manifest__" and request.method == "GET":
            try:
                max_redirect = int(request.query.get("max_redirect", "10"))
                if max_redirect < 0:
                    raise ValueError
            except ValueError:
                return web.json_response({"error": "max_redirect must be an int >= 0"}, status=400)
            roots = self.part_roots(request.host)
            part = request.query.get("part")
            if part is not None and part not in [str(k) for k in range(len(roots))]:
                return web.json_response({"error": f"part must be 0..{len(roots) - 1}"}, status=400)
            root = f"http://{request.host}/" if part is None else roots[int(part)]
            try:
                body = self.manifest_json(root, max_redirect)
            except ValueError as exc:
                return web.json_response({"error": str(exc)}, status=400)
            return web.Response(body=body, content_type="application/json")
        if route == "/__parts__" and request.method == "GET":
            roots = self.part_roots(request.host)
            return web.json_response({"parts": len(roots), "roots": roots})
        if route == "/__stats__" and request.method == "GET":
            return web.json_response(self.stats.snapshot())
        if route == "/__stats__/reset" and request.method == "POST":
            self.stats.reset()
            return web.json_response(self.stats.snapshot())
        if route in ("/__manifest__", "/__parts__", "/__stats__", "/__stats__/reset"):
            return web.json_response({"error": "method not allowed"}, status=405)
        return web.json_response({"error": "not found"}, status=404)


class _StampingProtocol(RequestHandler):
    """aiohttp's connection protocol, stamping when each request head was parsed: its true
    arrival (the handler runs a loop iteration later, behind every request parsed in
    between). It reads aiohttp's private `_messages`; tests/test_server_http.py's pipelined
    requests fail if that changes.
    """

    def __init__(self, manager: _StampingServer, **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self.now = manager.now
        # One stamp per parsed request, in order; the handler takes them in the same order
        # (aiohttp answers a connection's requests one after another). A malformed request
        # gets a stamp and no handler, but aiohttp closes the connection after it.
        self.arrivals: collections.deque[float] = collections.deque()

    def data_received(self, data: bytes) -> None:
        queued = len(self._messages)
        super().data_received(data)
        if (parsed := len(self._messages) - queued) > 0:
            self.arrivals.extend(itertools.repeat(self.now(), parsed))


class _StampingServer(web.Server):
    def __init__(self, handler: SiteHandler, **kwargs: Any) -> None:
        super().__init__(handler, **kwargs)
        self.now = handler.now

    def __call__(self) -> RequestHandler:
        return _StampingProtocol(self, loop=self._loop, **self._kwargs)


def _arrival(request: web.BaseRequest) -> float | None:
    """When the request's head was parsed (None if its protocol did not stamp it)."""
    arrivals = getattr(request.protocol, "arrivals", None)
    return arrivals.popleft() if arrivals else None


async def start_server(
    handler: SiteHandler,
    socks: Sequence[socket.socket],
    *,
    shutdown_timeout: float = 1.0,
) -> web.ServerRunner:
    """Serve handler on already listening sockets (every address of --listen); stop with
    `await runner.cleanup()`."""
    # The low-level server: no router or middlewares, no access log, no TCP keepalive
    # (one connection per fetch), and a handler cancelled when its client goes away so
    # that in_flight drops when the connection does.
    server = _StampingServer(
        handler,
        handler_cancellation=True,
        access_log=None,
        tcp_keepalive=False,
    )
    runner = web.ServerRunner(server, handle_signals=False, shutdown_timeout=shutdown_timeout)
    await runner.setup()
    for sock in socks:
        await web.SockSite(runner, sock, backlog=handler.delivery.backlog).start()
    return runner
