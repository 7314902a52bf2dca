"""Helpers for the site and server tests: tiny sites, a reference crawler, servers to test."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

import pytest

from server.app import Delivery, SiteHandler, make_listener, start_server
from server.counters import Stats
from server.site import Site
from server.site_params import (
    FAULT_KINDS,
    FAULT_OUTCOMES,
    VARIETY,
    Link,
    Outcome,
    Redirect,
    SiteParams,
)

REPO = Path(__file__).resolve().parent.parent
ROOT = "http://127.0.0.1:8080/"
# Every variety ratio at 0: a site of plain links, to which a test adds what it needs.
QUIET: dict[str, float] = dict.fromkeys(VARIETY, 0.0)


class HandBuiltSite(Site):
    """A site to which a test adds structures by hand: small scenarios are easiest to state
    exactly. Keep the order-independence rule: link only to chain heads and cycle entries,
    never to their later steps."""

    def add_link(self, page: int | None, link: Link | str) -> Link:
        """Add a link to the root (page None) or to /p/<page>/; a str is a plain href."""
        if isinstance(link, str):
            link = Link(link, link if link.startswith("/") else None, "plain")
        (self.root_links if page is None else self.page_links[page]).append(link)
        self._cache.clear()
        return link

    def add_chain(self, statuses: list[int], end: str, end_target: str | None = None) -> str:
        """A redirect chain with one step per status, the last pointing to `end`.

        end_target is the normalised path of `end` (defaults to end itself when it is a
        path, None when it is off-site). Returns the head's path.
        """
        c = len(self.chains)
        if end_target is None and end.startswith("/"):
            end_target = end
        steps = [Redirect(s, f"/r/{c}/{k + 1}", f"/r/{c}/{k + 1}") for k, s in enumerate(statuses)]
        steps[-1] = Redirect(statuses[-1], end, end_target)
        self.chains.append(steps)
        self._cache.clear()
        return f"/r/{c}/0"

    def add_cycle(self, statuses: list[int]) -> str:
        """A redirect cycle /c/<m>/0 -> /c/<m>/1 -> ... -> /c/<m>/0; returns its entry."""
        m = len(self.cycles)
        n = len(statuses)
        self.cycles.append(
            [
                Redirect(s, f"/c/{m}/{(k + 1) % n}", f"/c/{m}/{(k + 1) % n}")
                for k, s in enumerate(statuses)
            ]
        )
        self._cache.clear()
        return f"/c/{m}/0"

    def set_fault(self, page: int, kind: str | None) -> None:
        """Make /p/<page>/ fault with kind (one of FAULT_KINDS), or stop faulting (None)."""
        if kind is None:
            self.page_faults.pop(page, None)
        elif kind in FAULT_KINDS:
            self.page_faults[page] = kind
        else:
            raise ValueError(f"unknown fault kind {kind!r}")
        self._cache.clear()


def make_site(**params: Any) -> HandBuiltSite:
    """A site with plain links only, unless params set ratios: make_site(pages=3, links=1)."""
    return HandBuiltSite(SiteParams(**{**QUIET, **params}))


def paths(manifest: dict[str, Outcome], root: str = ROOT) -> dict[str, Outcome]:
    """The manifest with the origin stripped, for readable expectations."""
    origin = root.rstrip("/")
    return {url.removeprefix(origin): outcome for url, outcome in manifest.items()}


# -- a reference crawler that reads the HTML the site serves ---------------------------


class _Anchors(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.hrefs.extend(v for k, v in attrs if k == "href" and v is not None)


def normalise(base: str, href: str) -> str:
    """The contract's normalisation: urljoin, no fragment, lowercase scheme and host, no
    default port, empty path is /."""
    url = urldefrag(urljoin(base, href))[0]
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        return url
    host = parts.hostname.lower()
    port = parts.port
    netloc = host if port in (None, {"http": 80, "https": 443}[scheme]) else f"{host}:{port}"
    query = f"?{parts.query}" if parts.query else ""
    return f"{scheme}://{netloc}{parts.path or '/'}{query}"


def reference_crawl(site: Site, root: str = ROOT, max_redirect: int = 10) -> dict[str, Outcome]:
    """Crawl the site through Site.response, parsing its HTML: an independent check of the
    manifest, which the model computes from its own link table."""
    origin = urlsplit(root)
    authority = origin.netloc
    seen = {root}
    frontier: deque[tuple[str, int]] = deque([(root, max_redirect)])
    fetched: dict[str, Outcome] = {}
    while frontier:
        url, budget = frontier.popleft()
        parts = urlsplit(url)
        resp = site.response(parts.path + (f"?{parts.query}" if parts.query else ""), authority)
        if resp.fault is not None:
            fetched[url] = FAULT_OUTCOMES[resp.fault]
            continue
        fetched[url] = resp.status
        headers = {k.lower(): v for k, v in resp.headers}
        if resp.status == 200:
            ctype = headers.get("content-type", "").split(";")[0].strip().lower()
            if ctype != "text/html":
                continue
            parser = _Anchors()
            parser.feed(resp.body.decode("utf-8", "replace"))
            for href in parser.hrefs:
                if not href.strip():
                    continue
                target = normalise(url, href.strip())
                if _allowed(target, root) and target not in seen:
                    seen.add(target)
                    frontier.append((target, max_redirect))
        elif resp.status in (301, 302, 303, 307, 308) and "location" in headers:
            target = normalise(url, headers["location"])
            if _allowed(target, root) and target not in seen and budget > 0:
                seen.add(target)
                frontier.append((target, budget - 1))
    return fetched


def _allowed(url: str, root: str) -> bool:
    a, b = urlsplit(url), urlsplit(root)
    return a.scheme in ("http", "https") and (a.scheme, a.netloc) == (b.scheme, b.netloc)


# -- raw HTTP over real sockets ----------------------------------------------------------


@dataclass
class RawReply:
    data: bytes  # every byte received
    error: str | None  # 'reset', 'timeout' or None (clean EOF)

    @property
    def status(self) -> int:
        return int(self.data.split(b" ", 2)[1])

    @property
    def head(self) -> dict[str, str]:
        lines = self.data.partition(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")[1:]
        return {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines)}

    @property
    def body(self) -> bytes:
        return self.data.partition(b"\r\n\r\n")[2]


def raw_get(url: str, path: str, timeout: float = 5.0, method: str = "GET") -> RawReply:
    """One request on a fresh connection, read to EOF; reports resets and timeouts."""
    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
    data = b""
    error: str | None = None
    try:
        sock.sendall(
            f"{method} {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nConnection: close\r\n"
            "User-Agent: c10k-bench\r\n\r\n".encode()
        )
        while chunk := sock.recv(65536):
            data += chunk
    except ConnectionResetError:
        error = "reset"
    except TimeoutError:
        error = "timeout"
    finally:
        sock.close()
    return RawReply(data, error)


def get_json(url: str, method: str = "GET") -> Any:
    req = urllib.request.Request(url, method=method)
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


def run_script_with_hashseed(script: str, argument: str, hashseed: str) -> str:
    """A Python snippet's stdout in a fresh process with this PYTHONHASHSEED (determinism)."""
    env = {**os.environ, "PYTHONHASHSEED": hashseed, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-c", script, argument],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return out.stdout.strip()


def wait_for(check: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Poll until check() is true; False on timeout (so a test can assert with a message)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return check()


# -- servers ----------------------------------------------------------------------------


@dataclass
class Running:
    url: str
    handler: SiteHandler


class SteppedClock:
    """A clock for the server that moves only when the server sleeps, and keeps every wait.

    The tests check the waits the server asks for, never how long a reply took."""

    def __init__(self) -> None:
        self.time = 0.0
        self.waits: list[float] = []

    def now(self) -> float:
        return self.time

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.time += seconds
        await asyncio.sleep(0)  # still a point where the loop serves other requests


@contextlib.contextmanager
def serve_in_thread(
    site: Site, delivery: Delivery | None = None, clock: SteppedClock | None = None
) -> Iterator[Running]:
    """Serve site on 127.0.0.1 (a free port) from a thread of this process; with a clock,
    the server's waits go to it instead of the real one."""
    sock = make_listener("127.0.0.1", 0, reuse_port=False, backlog=128)
    clocked: dict[str, Any] = {} if clock is None else {"now": clock.now, "sleep": clock.sleep}
    handler = SiteHandler(site, Stats(1), delivery or Delivery(), **clocked)
    handler.stats.register(0, os.getpid())
    ready = threading.Event()
    control: dict[str, Any] = {}

    async def main() -> None:
        runner = await start_server(handler, [sock], shutdown_timeout=0.2)
        control["loop"] = asyncio.get_running_loop()
        control["stop"] = stop = asyncio.Event()
        ready.set()
        try:
            await stop.wait()
        finally:
            await runner.cleanup()

    thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
    thread.start()
    assert ready.wait(10), "the server thread did not start"
    try:
        yield Running(f"http://127.0.0.1:{sock.getsockname()[1]}/", handler)
    finally:
        control["loop"].call_soon_threadsafe(control["stop"].set)
        thread.join(10)
        sock.close()


@contextlib.contextmanager
def serve_process(*args: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`python -m server ARGS` in a subprocess; yields it and the URL it printed first."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "server", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        if not url.startswith("http://127.0.0.1:"):
            proc.kill()
            assert proc.stderr is not None
            raise AssertionError(f"no URL first (got {url!r}); stderr: {proc.stderr.read()}")
        yield proc, url
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def site_fixture(*args: str) -> Any:
    """A module-scoped fixture: the URL of `c10k serve ARGS`, served in its own process."""

    @pytest.fixture(scope="module")
    def site() -> Iterator[str]:
        with serve_process(*args) as (_, url):
            yield url

    return site
