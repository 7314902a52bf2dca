"""Which event loop and which of its APIs each asyncio model runs (the catalog's `loop` and
`loop_api`, recorded in the crawl document), and why asyncio-rloop reads sockets, not streams."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib.metadata
import json
import os
import platform
import socket
import struct
import subprocess
import threading
from collections.abc import Coroutine
from typing import Any

import pytest

from bench.interpreter import python_command
from c10k.catalog import ASYNCIO_RLOOP, MODELS
from c10k.system import LoopFactory, rloop_loop_factory
from impls.cli.crawl import loop_version
from impls.models import asyncio_rloop, asyncio_streams
from tests.tinysite import TinySite, crawl, page, skip_if_missing

LOOP_MODELS = [name for name, model in MODELS.items() if model.loop]
NEEDS_RLOOP = skip_if_missing(ASYNCIO_RLOOP.name)


def loop_package(loop: asyncio.AbstractEventLoop) -> str:
    """The package whose loop this is: the first class in its MRO that is not the suite's own
    (c10k.rloop_loop wraps rloop's)."""
    packages = (cls.__module__.partition(".")[0] for cls in type(loop).__mro__)
    return next(package for package in packages if package != "c10k")


@pytest.mark.parametrize("model", [pytest.param(m, marks=skip_if_missing(m)) for m in LOOP_MODELS])
def test_each_model_runs_on_the_loop_the_catalog_names(
    model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    loops: list[str] = []
    real_run_on = asyncio_streams.run_on

    def recording_run_on(
        main: Coroutine[Any, Any, None], loop_factory: LoopFactory | None = None
    ) -> None:
        async def noting_the_loop() -> None:
            loops.append(loop_package(asyncio.get_running_loop()))
            await main

        real_run_on(noting_the_loop(), loop_factory)

    monkeypatch.setattr(asyncio_streams, "run_on", recording_run_on)
    with TinySite({"/": page("/a"), "/a": page()}) as site:
        assert crawl(model, site.root) == {"/": 200, "/a": 200}
    assert set(loops) == {MODELS[model].loop}  # asyncio-threads: one loop per thread


@NEEDS_RLOOP
def test_the_crawl_document_names_the_loop_and_its_api() -> None:
    with TinySite({"/": page()}) as site:
        done = subprocess.run(
            python_command("crawl", site.root, "--model", ASYNCIO_RLOOP.name, "--json"),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["loop"] == {
        "name": "rloop",
        "api": "sockets",
        "version": importlib.metadata.version("rloop"),
    }


# --- rloop 0.5: a reset by the peer, through its transports and through its sockets ---------


def reset_after_the_request() -> tuple[socket.socket, int]:
    """A listener whose one connection is reset (RST, SO_LINGER 0) once the request comes."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def serve() -> None:
        conn, _ = listener.accept()
        conn.recv(1024)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    return listener, listener.getsockname()[1]


async def read_through_streams(port: int) -> type[BaseException] | bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET / HTTP/1.1\r\n\r\n")
    try:
        async with asyncio.timeout(1.0):
            return await reader.read(1024)
    except (TimeoutError, OSError) as exc:
        return type(exc)  # not the exception: its traceback would keep the stream alive
    finally:
        writer.close()


async def read_through_sockets(port: int) -> type[BaseException] | bytes:
    sock = socket.socket()
    sock.setblocking(False)
    loop = asyncio.get_running_loop()
    try:
        await loop.sock_connect(sock, ("127.0.0.1", port))
        await loop.sock_sendall(sock, b"GET / HTTP/1.1\r\n\r\n")
        async with asyncio.timeout(1.0):
            return await loop.sock_recv(sock, 1024)
    except (TimeoutError, OSError) as exc:
        return type(exc)
    finally:
        sock.close()


def on_rloop(read: Any) -> type[BaseException] | bytes:
    listener, port = reset_after_the_request()
    with listener, asyncio.Runner(loop_factory=rloop_loop_factory()) as runner:
        result: type[BaseException] | bytes = runner.run(read(port))
    # rloop's transports may be freed only on the thread that made them (pyo3 "unsendable":
    # elsewhere the process aborts); free what is left here, not in another test's thread.
    gc.collect()
    return result


@NEEDS_RLOOP
def test_rloop_streams_still_lose_a_reset() -> None:
    """When this fails, rloop's transports report a reset: asyncio-rloop can run the asyncio
    model's streams unchanged (impls/models/asyncio_rloop.py; catalog loop_api "streams")."""
    # rloop's read handle drops the read's error (ECONNRESET): the read then waits for the
    # timeout, or, when another readable event finds the socket closed, ends as a clean close
    # (b"", seen once in 17 CI runs). Either way no ConnectionResetError reaches the stream.
    assert on_rloop(read_through_streams) in (TimeoutError, b"")


@NEEDS_RLOOP
def test_rloop_sockets_report_a_reset() -> None:
    assert on_rloop(read_through_sockets) is ConnectionResetError


# --- rloop 0.5: its self-socket's descriptors, closed once ---------------------------------


async def nothing() -> None:
    pass


@NEEDS_RLOOP
def test_stopping_an_rloop_loop_closes_no_other_threads_descriptor() -> None:
    """A thread opens and closes files while loops start and stop: every close it makes
    succeeds. rloop's own loop closes its self-socket twice (in Rust, then from Python) and
    fails this within a few dozen loops (docs/notes/2026-11-28-rloop-self-socket.md)."""
    lost: list[int] = []
    done = threading.Event()

    def open_and_close() -> None:
        while not done.is_set():
            fd = os.open(os.devnull, os.O_RDONLY)
            try:
                os.close(fd)
            except OSError:
                lost.append(fd)  # someone else closed it: a stale close

    churn = threading.Thread(target=open_and_close, daemon=True)
    churn.start()
    try:
        for _ in range(300):
            with asyncio.Runner(loop_factory=rloop_loop_factory()) as runner:
                runner.run(nothing())
            if lost:
                break
    finally:
        done.set()
        churn.join()
    assert lost == []


def open_sockets() -> int:
    """This process's socket descriptors (an rloop loop is never freed, so its poller and
    waker stay open whatever the self-socket does: they are not counted)."""
    found = 0
    for fd in os.listdir("/proc/self/fd"):
        # (the descriptor listdir read the directory through is closed by now)
        with contextlib.suppress(FileNotFoundError):
            found += os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
    return found


@NEEDS_RLOOP
@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_stopped_rloop_loops_leave_no_socket_open() -> None:
    """The other half of closing once: when rloop stops closing its self-socket in Rust, the
    Python sockets let go of descriptors nobody closes, and this fails."""
    gc.collect()
    before = open_sockets()
    for _ in range(50):
        with asyncio.Runner(loop_factory=rloop_loop_factory()) as runner:
            runner.run(nothing())
    gc.collect()
    assert open_sockets() <= before


# --- asyncio-rloop's stream: a request larger than the socket's send buffer ------------------

SMALL_BUFFER = 4096  # bytes asked of SO_SNDBUF and SO_RCVBUF (Linux doubles, then floors it)


async def write_then_read(port: int, request: bytes, written: threading.Event) -> bytes:
    """The asyncio model's fetch through asyncio-rloop's stream: write, then read the reply."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SMALL_BUFFER)
    sock.setblocking(False)
    stream = None
    try:
        await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
        stream = asyncio_rloop.SocketStream(sock)
        stream.write(request)
        written.set()  # only now does the peer start reading
        async with asyncio.timeout(30):
            return await stream.read(1024)
    finally:
        written.set()
        sock.close()


@NEEDS_RLOOP
def test_a_request_larger_than_the_send_buffer_arrives_whole() -> None:
    """The socket's buffer takes only part of the request while the peer reads nothing: the
    rest goes through the loop. A plain sendall() on the non-blocking socket raises
    BlockingIOError there: a failed try, counted as the server's reset."""
    request = bytes(range(256)) * 8192  # 2 MiB: far more than both buffers hold
    received = bytearray()
    written = threading.Event()
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SMALL_BUFFER)
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            written.wait(30)
            while len(received) < len(request) and (data := conn.recv(65536)):
                received.extend(data)
            conn.sendall(b"HTTP/1.1 204 No Content\r\n\r\n")

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    with listener, asyncio.Runner(loop_factory=rloop_loop_factory()) as runner:
        reply = runner.run(write_then_read(listener.getsockname()[1], request, written))
    server.join(30)
    gc.collect()
    assert reply.startswith(b"HTTP/1.1 204")
    assert bytes(received) == request


def test_the_loop_version_is_the_installed_packages_and_asyncios_the_pythons() -> None:
    assert loop_version(MODELS["asyncio"]) == platform.python_version()
    assert loop_version(MODELS["asyncio-uvloop"]) == importlib.metadata.version("uvloop")
