"""A tiny raw HTTP site for scenario tests: a dict of path -> behaviour, served from a thread.

    with TinySite({"/": page("/a"), "/a": redirect("/b"), "/b": redirect("/a")}) as site:
        assert crawl("threads", site.root) == {"/": 200, "/a": 302, "/b": 302}

Behaviours are raw bytes (so a test can send anything, garbage included) or one of the
misbehaviours below; paths not in the dict get a 404.

A connection carries more requests (keep-alive) unless the request asks for
`Connection: close` or the reply is not a whole framed message (a body until EOF, a
truncated one, a misbehaviour). The reply's own Connection header is not obeyed, on
purpose: a crawler that reuses a connection it was told to close shows up in
`connections` and `reused_hits`.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import TracebackType

import httptools
import pytest
from _pytest.mark.structures import ParameterSet

from c10k.catalog import MODELS
from impls.core import CrawlConfig, Frontier
from impls.core.outcomes import Outcome
from tests.asyncio_helpers import reset


def response(
    status: int = 200,
    body: bytes = b"",
    content_type: str = "text/html",
    headers: Mapping[str, str] | None = None,
) -> bytes:
    head = [f"HTTP/1.1 {status} X", f"Content-Type: {content_type}", f"Content-Length: {len(body)}"]
    head += [f"{name}: {value}" for name, value in (headers or {}).items()]
    head += ["", ""]
    return "\r\n".join(head).encode() + body


def page(*hrefs: str) -> bytes:
    """An HTML page that links to each href."""
    return response(body="".join(f'<a href="{href}">link</a>\n' for href in hrefs).encode())


# Links as a browser reads them: any case, entities decoded, whitespace stripped, the fragment
# dropped, relative ones resolved; an empty href, another element's URL and a commented-out
# link are not followed. BROWSER_LINKS_PAGE's links lead to BROWSER_LINKS (the page included).
BROWSER_LINKS_PAGE = (
    b'<A HREF="/upper">u</A> <a href="  /spaced  ">s</a> <a href="/q?a=1&amp;b=2">q</a>'
    b'<a href="rel/">r</a> <a href="/frag#x">f</a> <a href="">e</a> <img src="/img">'
    b'<!-- <a href="/commented"> -->'
)
BROWSER_LINKS = {"/", "/upper", "/spaced", "/q?a=1&b=2", "/rel/", "/frag"}


def redirect(location: str, status: int = 302) -> bytes:
    return response(status, headers={"Location": location})


@dataclass(frozen=True)
class Trickle:
    """Send the data a few bytes at a time, sleeping between pieces."""

    data: bytes
    piece: int = 8
    pause: float = 0.05


@dataclass(frozen=True)
class Misbehaviour:
    name: str


RESET = Misbehaviour("reset")  # RST before any byte of a response
HANG = Misbehaviour("hang")  # read the request, never answer
CLOSE = Misbehaviour("close")  # close cleanly before any byte


@dataclass(frozen=True)
class StaleOnReuse:
    """On a connection that served a request before, close it (RST with `reset`) without a
    byte, as a server whose idle timeout fires just as the request comes; on a fresh
    connection, answer with data."""

    data: bytes
    reset: bool = False


@dataclass(frozen=True)
class EndWhenIdle:
    """Send the data (a whole reply that allows another request), then, before reading
    the next request, close the connection (RST with `reset`): an idle timeout."""

    data: bytes
    reset: bool = False
    pause: float = 0.1


@dataclass(frozen=True)
class ResetAfter:
    """Send the data, pause so that the client reads it, then reset the connection."""

    data: bytes
    pause: float = 0.2


class Gate:
    """Holds the replies of its Gated routes until `count` of their requests wait at once
    (or `limit` seconds pass, so a crawler that never gets there fails, not hangs): a
    crawl with that concurrency then has every connection open together."""

    def __init__(self, count: int, limit: float = 5.0) -> None:
        self.count = count
        self.limit = limit
        self.arrived = 0
        self._open: asyncio.Event | None = None  # made on the site's own loop

    async def wait(self) -> None:
        if self._open is None:
            self._open = asyncio.Event()
        self.arrived += 1
        if self.arrived >= self.count:
            self._open.set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._open.wait(), self.limit)


@dataclass(frozen=True)
class Gated:
    """Answer with data once the gate opens."""

    gate: Gate
    data: bytes


Behaviour = bytes | Trickle | Misbehaviour | StaleOnReuse | EndWhenIdle | ResetAfter | Gated


class _Framing:
    def __init__(self) -> None:
        self.whole = False

    def on_message_complete(self) -> None:
        self.whole = True


def framed(reply: bytes) -> bool:
    """Whether the reply ends by its own length or chunks, so that its connection can carry
    the next request (a body until EOF, or a truncated one, ends only with the close)."""
    framing = _Framing()
    # Garbage raises, and so do bytes after a whole reply: `whole` tells them apart.
    with contextlib.suppress(httptools.HttpParserError):
        httptools.HttpResponseParser(framing).feed_data(reply)
    return framing.whole


def skip_if_missing(name: str) -> pytest.MarkDecorator:
    """Skip a test of the model when what it needs is not installed, or this interpreter is
    too old for it."""
    if why := MODELS[name].unavailable():
        return pytest.mark.skip(reason=why)
    missing = MODELS[name].missing()
    return pytest.mark.skipif(bool(missing), reason=f"needs {', '.join(missing)}")


def model_modes(
    modes: Iterable[bool] = (False, True), models: Iterable[str] = MODELS
) -> list[ParameterSet]:
    """Every model (or those named) in the connection modes (keep_alive False, True), as
    pytest parameters for ("model", "keep_alive"), with ids like threads-close and
    threads-keep-alive."""
    cases = []
    for name in models:
        for keep_alive in modes:
            marks = [skip_if_missing(name)]
            mode = "keep-alive" if keep_alive else "close"
            cases.append(pytest.param(name, keep_alive, marks=marks, id=f"{name}-{mode}"))
    return cases


class TinySite:
    def __init__(self, routes: Mapping[str, Behaviour], hang_for: float = 30.0) -> None:
        self.routes = dict(routes)
        self.hang_for = hang_for  # every hang ends by itself
        self._hits: Counter[str] = Counter()
        self._reused_hits: Counter[str] = Counter()  # requests on a connection used before
        self._connections = 0
        self.root = ""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None

    def __enter__(self) -> TinySite:
        self._thread.start()
        self._server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._serve, "127.0.0.1", 0, backlog=1024), self._loop
        ).result()
        port = self._server.sockets[0].getsockname()[1]
        self.root = f"http://127.0.0.1:{port}/"
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        server = self._server
        assert server is not None

        async def stop() -> None:
            server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    # Every count is read after settle(): a crawl that gave up on a request (a hang's last
    # try) may end before this thread, starved under load, has read it.
    @property
    def hits(self) -> Counter[str]:
        """Requests per path."""
        self.settle()
        return self._hits

    @property
    def reused_hits(self) -> Counter[str]:
        """Requests per path on a connection used before."""
        self.settle()
        return self._reused_hits

    @property
    def connections(self) -> int:
        """Connections accepted."""
        self.settle()
        return self._connections

    def settle(self, turns: int = 50) -> None:
        """Let the server's loop turn until what was sent to it is read: a count of turns,
        never of time. Whatever a crawl sent before it ended is already in the sockets, so
        the turns accept it and read its request heads."""

        async def turn() -> None:
            for _ in range(turns):
                await asyncio.sleep(0)

        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            asyncio.run_coroutine_threadsafe(turn(), self._loop).result()

    def fresh_hits(self, path: str) -> int:
        """Requests for path that came first on their connection."""
        return self.hits[path] - self.reused_hits[path]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._connections += 1
        reused = False
        try:
            while True:  # until EOF from the client, or a reply that ends the connection
                head = await reader.readuntil(b"\r\n\r\n")
                path = head.split(b" ", 2)[1].decode()
                self._hits[path] += 1
                if reused:
                    self._reused_hits[path] += 1
                behaviour = self.routes.get(path, response(404, b"no such page"))
                keep = await self._behave(behaviour, reused, writer)
                if not keep or b"connection: close" in head.lower():
                    return
                reused = True
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    async def _behave(
        self, behaviour: Behaviour, reused: bool, writer: asyncio.StreamWriter
    ) -> bool:
        """Answer one request; whether the connection may carry another."""
        if isinstance(behaviour, Gated):
            await behaviour.gate.wait()
            return await self._behave(behaviour.data, reused, writer)
        if isinstance(behaviour, StaleOnReuse):
            if not reused:
                return await self._behave(behaviour.data, reused, writer)
            if behaviour.reset:
                reset(writer)
        elif isinstance(behaviour, bytes):
            writer.write(behaviour)
            await writer.drain()
            return framed(behaviour)
        elif isinstance(behaviour, Trickle):
            data = behaviour.data
            for start in range(0, len(data), behaviour.piece):
                writer.write(data[start : start + behaviour.piece])
                await writer.drain()
                await asyncio.sleep(behaviour.pause)
            return framed(data)
        elif isinstance(behaviour, EndWhenIdle):
            writer.write(behaviour.data)
            await writer.drain()
            await asyncio.sleep(behaviour.pause)
            if behaviour.reset:
                reset(writer)
        elif isinstance(behaviour, ResetAfter):
            writer.write(behaviour.data)
            await writer.drain()
            await asyncio.sleep(behaviour.pause)
            reset(writer)
        elif behaviour is RESET:
            reset(writer)
        elif behaviour is HANG:
            await asyncio.sleep(self.hang_for)
        return False


def crawl_frontier(model: str, root: str, **options: float | int | str | None) -> Frontier:
    """Crawl in this process with one model; the frontier, with its outcomes and counts."""
    config = CrawlConfig(root=root, connect_host="127.0.0.1", **options)  # type: ignore[arg-type]
    frontier = Frontier(config)
    MODELS[model].load()(frontier)
    return frontier


def by_path(frontier: Frontier) -> dict[str, Outcome]:
    """The crawl's outcomes keyed by path."""
    prefix = f"{frontier.origin.scheme}://{frontier.origin.netloc}"
    return {url.removeprefix(prefix): outcome for url, outcome in frontier.fetched.items()}


def crawl(model: str, root: str, **options: float | int | str | None) -> dict[str, Outcome]:
    """Crawl in this process with one model; return outcomes keyed by path."""
    return by_path(crawl_frontier(model, root, **options))
