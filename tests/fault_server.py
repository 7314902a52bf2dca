"""A raw server that answers each path with one fault, and fetches through it: the outcome
every model must report, fault by fault, for the tests of the library-based models."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import TypeVar

from impls.core import CrawlConfig, ErrorKind, FetchError, Frontier, Job, Response, build_request
from impls.models import asyncio_streams
from tests.asyncio_helpers import reset

OK_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100\r\n\r\n"
MAX_BODY = 1000
TIMEOUT = 0.5

Reply = Callable[[asyncio.StreamWriter, asyncio.Event], Awaitable[None]]


def send(data: bytes, then: str = "close") -> Reply:
    """A reply that writes `data`, then closes ('close'), resets ('reset') or waits ('hang')."""

    async def reply(writer: asyncio.StreamWriter, stop: asyncio.Event) -> None:
        writer.write(data)
        await writer.drain()
        if then == "reset":
            reset(writer)
        elif then == "hang":
            await stop.wait()  # until the test is over
        writer.close()

    return reply


async def trickle(writer: asyncio.StreamWriter, stop: asyncio.Event) -> None:
    """A valid response, one byte at a time, slower than the whole fetch may take."""
    for byte in OK_HEAD + b"x" * 100:
        if stop.is_set():
            break
        writer.write(bytes([byte]))
        await writer.drain()
        await asyncio.sleep(TIMEOUT / 10)


# path -> (the server's reply, the outcome every model must report)
FAULTS: dict[str, tuple[Reply, int | ErrorKind]] = {
    "/ok": (send(OK_HEAD + b"x" * 100), 200),
    "/eof-body": (send(b"HTTP/1.1 200 OK\r\n\r\n" + b"x" * 100), 200),
    "/chunked": (
        send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"),
        200,
    ),
    "/reset": (send(b"", "reset"), ErrorKind.RESET),
    "/close": (send(b"", "close"), ErrorKind.RESET),
    "/reset-mid-body": (send(OK_HEAD + b"x" * 50, "reset"), ErrorKind.RESET),
    "/reset-mid-eof-body": (send(b"HTTP/1.1 200 OK\r\n\r\n" + b"x" * 50, "reset"), ErrorKind.RESET),
    "/reset-mid-chunk": (
        send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc", "reset"),
        ErrorKind.RESET,
    ),
    "/reset-mid-head": (send(b"HTTP/1.1 200 OK\r\nContent-Le", "reset"), ErrorKind.RESET),
    "/close-mid-head": (send(b"HTTP/1.1 200 OK\r\nContent-Le"), ErrorKind.PROTOCOL),
    "/close-mid-status": (send(b"HTTP/1.1 2"), ErrorKind.PROTOCOL),
    "/truncate": (send(OK_HEAD + b"x" * 50), ErrorKind.PROTOCOL),
    "/truncate-chunked": (
        send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc"),
        ErrorKind.PROTOCOL,
    ),
    "/garbage": (
        send(b"\x16\x03\x01\x00\xa5SSH-2.0-NOT-HTTP\xff\xfe\x00garbage\r\n\r\n"),
        ErrorKind.PROTOCOL,
    ),
    "/bad-status": (send(b"HTTP/1.1 2x0 OK\r\n\r\n"), ErrorKind.PROTOCOL),
    "/bad-chunk": (
        send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"),
        ErrorKind.PROTOCOL,
    ),
    "/bad-length": (send(b"HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n"), ErrorKind.PROTOCOL),
    "/head-over-64k": (
        send(b"HTTP/1.1 200 OK\r\n" + b"X-Big: %b\r\n" % (b"v" * 1000) * 70 + b"\r\n"),
        ErrorKind.PROTOCOL,
    ),
    "/many-headers": (send(b"HTTP/1.1 200 OK\r\n" + b"X-Many: v\r\n" * 300 + b"\r\n"), 200),
    "/hang": (send(b"", "hang"), ErrorKind.TIMEOUT),
    "/hang-mid-body": (send(OK_HEAD + b"x" * 50, "hang"), ErrorKind.TIMEOUT),
    "/trickle": (trickle, ErrorKind.TIMEOUT),
    "/big-declared": (
        send(b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n"),
        ErrorKind.TOO_LARGE,
    ),
    "/big-counted": (send(b"HTTP/1.1 200 OK\r\n\r\n" + b"x" * 5000), ErrorKind.TOO_LARGE),
    "/big-chunked": (
        send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1388\r\n" + b"x" * 5000),
        ErrorKind.TOO_LARGE,
    ),
}


# A path the fault server answers with a whole response, keeping the connection for the next.
KEPT = "/kept"
KEPT_REPLY = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


@contextlib.asynccontextmanager
async def fault_server(requests: list[str]) -> AsyncIterator[int]:
    """A raw server on 127.0.0.1 that answers each path of FAULTS with its fault.

    Yields its port; each request's path is appended to `requests`. After a request for
    KEPT, the connection stays open for the next request.
    """
    stop = asyncio.Event()
    handlers: set[asyncio.Task[None]] = set()

    async def reply(writer: asyncio.StreamWriter, path: str) -> None:
        with contextlib.suppress(ConnectionError):  # the client gave up first
            await REPLIES[path](writer, stop)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            requests.append(head.split(b" ")[1].decode())
            if requests[-1] != KEPT:
                break
            writer.write(KEPT_REPLY)
        handler = asyncio.create_task(reply(writer, requests[-1]))
        handlers.add(handler)
        await handler

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        stop.set()
        server.close()
        await asyncio.gather(*handlers)


def frontier_for(port: int, keep_alive: bool = False) -> Frontier:
    config = CrawlConfig(
        root=f"http://127.0.0.1:{port}/",
        connect_host="127.0.0.1",
        max_body=MAX_BODY,
        timeout=TIMEOUT,
        keep_alive=keep_alive,
    )
    return Frontier(config)


def job_for(frontier: Frontier, path: str) -> Job:
    url = frontier.origin.root + path.lstrip("/")
    return Job(url, 10, build_request(frontier.origin.request_target(url), frontier.origin.netloc))


async def outcome(fetch: Callable[[Job], Awaitable[Response]], job: Job) -> int | ErrorKind:
    try:
        return (await fetch(job)).status
    except FetchError as exc:
        return exc.kind


HEADERS_REPLY = (
    b"HTTP/1.1 301 Moved\r\nLocation: /caf\xc3\xa9?q=\xff\r\nX-Twice: a\r\nx-twice:  b \r\n"
    b"Content-Length: 3\r\n\r\nabc"
)
FAULTS["/headers"] = (send(HEADERS_REPLY), 301)


# The faults that end a reused connection before any byte of the response, as a server
# does that closes an idle connection just as it is reused: keep-alive mode sends the
# request once more, on a new connection (where the fault comes again and counts).
ENDED_BEFORE_ANY_BYTE = {"/reset", "/close"}


# Bytes that a strict parser refuses and aiohttp accepts (it sets llhttp's lenient flags
# unless in dev mode); the core sets the same flags, so every model agrees.
LENIENT_IN_AIOHTTP_ONLY = {
    "/bare-lf": send(b"HTTP/1.1 200 OK\nContent-Length: 0\n\n"),
    "/obs-fold": send(b"HTTP/1.1 200 OK\r\nX-A: b\r\n c\r\nContent-Length: 0\r\n\r\n"),
    "/control-in-value": send(b"HTTP/1.1 200 OK\r\nX-A: b\x01c\r\nContent-Length: 0\r\n\r\n"),
    "/space-after-chunk-size": send(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3 \r\nabc\r\n0\r\n\r\n"
    ),
}
# What the fault server answers, by path.
REPLIES: dict[str, Reply] = {path: reply for path, (reply, _) in FAULTS.items()}
REPLIES.update(LENIENT_IN_AIOHTTP_ONLY)


Fetch = Callable[[Job], Awaitable[Response]]
# A library's client for a frontier, open while the context lasts, as its fetch.
Client = Callable[[Frontier], AbstractAsyncContextManager[Fetch]]
Outcome = int | ErrorKind
Session = TypeVar("Session")


def client_of(
    open_session: Callable[[Frontier], AbstractAsyncContextManager[Session]],
    fetch: Callable[[Session, Job, Frontier], Awaitable[Response]],
) -> Client:
    """A library's client: a session it opens for the frontier, and its model's fetch on it."""

    @contextlib.asynccontextmanager
    async def client(frontier: Frontier) -> AsyncIterator[Fetch]:
        async with open_session(frontier) as session:
            yield lambda job: fetch(session, job, frontier)

    return client


async def both_outcomes(
    client: Client, path: str, keep_alive: bool = False
) -> tuple[Outcome, Outcome, list[str]]:
    """The outcome of one fetch by the raw streams and by the client, and the requests made."""
    requests: list[str] = []
    async with fault_server(requests) as port:
        frontier = frontier_for(port, keep_alive)
        async with client(frontier) as fetch:
            raw, via_client = await asyncio.gather(
                outcome(
                    lambda job: asyncio_streams.fetch(
                        job, frontier, [], asyncio_streams.open_stream
                    ),
                    job_for(frontier, path),
                ),
                outcome(fetch, job_for(frontier, path)),
            )
    return raw, via_client, requests


async def outcome_on_a_reused_connection(client: Client, path: str) -> tuple[Outcome, list[str]]:
    """The outcome of a fetch on a connection that served KEPT first, and the requests."""
    requests: list[str] = []
    async with fault_server(requests) as port:
        frontier = frontier_for(port, keep_alive=True)
        async with client(frontier) as fetch:
            assert await outcome(fetch, job_for(frontier, KEPT)) == 200
            return await outcome(fetch, job_for(frontier, path)), requests


def requests_on_a_reused_connection(path: str) -> list[str]:
    """What a fetch of path after KEPT sends: ENDED_BEFORE_ANY_BYTE's paths twice."""
    return [KEPT, *([path, path] if path in ENDED_BEFORE_ANY_BYTE else [path])]


async def refused_outcome(client: Client) -> tuple[Outcome, Frontier]:
    """The outcome of a fetch from a port that is bound but never listens, and its frontier."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        frontier = frontier_for(sock.getsockname()[1])
        async with client(frontier) as fetch:
            return await outcome(fetch, job_for(frontier, "/")), frontier
