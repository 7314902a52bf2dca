"""A tiny raw HTTP site for scenario tests: a dict of path -> behaviour, served from a thread.

    with TinySite({"/": page("/a"), "/a": redirect("/b"), "/b": redirect("/a")}) as site:
        assert crawl("threads", site.root) == {"/": 200, "/a": 302, "/b": 302}

Behaviours are raw bytes (so a test can send anything, garbage included) or one of the
misbehaviours below; paths not in the dict get a 404.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType

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
    head += ["Connection: close", "", ""]
    return "\r\n".join(head).encode() + body


def page(*hrefs: str) -> bytes:
    """An HTML page that links to each href."""
    return response(body="".join(f'<a href="{href}">link</a>\n' for href in hrefs).encode())


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
Behaviour = bytes | Trickle | Misbehaviour


class TinySite:
    def __init__(self, routes: Mapping[str, Behaviour], hang_for: float = 30.0) -> None:
        self.routes = dict(routes)
        self.hang_for = hang_for  # every hang ends by itself
        self.hits: Counter[str] = Counter()
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

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            path = head.split(b" ", 2)[1].decode()
            self.hits[path] += 1
            await self._behave(self.routes.get(path, response(404, b"no such page")), writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    async def _behave(self, behaviour: Behaviour, writer: asyncio.StreamWriter) -> None:
        if isinstance(behaviour, bytes):
            writer.write(behaviour)
            await writer.drain()
        elif isinstance(behaviour, Trickle):
            data = behaviour.data
            for start in range(0, len(data), behaviour.piece):
                writer.write(data[start : start + behaviour.piece])
                await writer.drain()
                await asyncio.sleep(behaviour.pause)
        elif behaviour is RESET:
            reset(writer)
        elif behaviour is HANG:
            await asyncio.sleep(self.hang_for)


def crawl(model: str, root: str, **options: float | int | None) -> dict[str, Outcome]:
    """Crawl in this process with one model; return outcomes keyed by path."""
    config = CrawlConfig(root=root, connect_host="127.0.0.1", **options)  # type: ignore[arg-type]
    frontier = Frontier(config)
    MODELS[model].load()(frontier)
    prefix = f"{frontier.origin.scheme}://{frontier.origin.netloc}"
    return {url.removeprefix(prefix): outcome for url, outcome in frontier.fetched.items()}
