"""Running the server: in this process, or as W worker processes sharing one port."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import errno
import multiprocessing
import multiprocessing.connection
import os
import signal
import socket
import sys
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from c10k.system import LoopFactory, loop_factory
from server.app import ACCEPT_QUEUES, SiteHandler, make_listener, start_server

_PR_SET_PDEATHSIG = 1
_READY_TIMEOUT = 60.0
_STOP_TIMEOUT = 5.0
_PORT_TRIES = 20  # --port 0 on several addresses: free on the first, maybe taken on another


class ServeError(Exception):
    """The server could not start (e.g. the port is taken); the message is one line."""


class _Stop(Exception):
    """Raised by the parent's signal handler to leave its wait."""


def _run(main: Coroutine[Any, Any, None], loop: str) -> None:
    factory: LoopFactory | None = None
    if loop in ("auto", "uvloop"):
        try:
            factory = loop_factory("uvloop")
        except ImportError:
            if loop == "uvloop":
                raise ServeError("uvloop is not installed") from None
    with asyncio.Runner(loop_factory=factory) as runner:
        runner.run(main)


def listen_all(
    hosts: Sequence[str],
    port: int,
    *,
    reuse_port: bool,
    backlog: int,
    listen: bool = True,
    queues: int = 1,
) -> list[socket.socket]:
    """`queues` sockets on each host, all on one port (with port 0, the first host's free
    port: tried again a few times when another host has it taken); raises ServeError.
    Several queues per host need reuse_port."""
    verb = "listen on" if listen else "bind"
    doors = [host for host in hosts for _ in range(queues)]
    for _ in range(_PORT_TRIES if port == 0 and len(hosts) > 1 else 1):
        socks: list[socket.socket] = []
        chosen = port
        try:
            for host in doors:
                socks.append(
                    make_listener(
                        host, chosen, reuse_port=reuse_port, backlog=backlog, listen=listen
                    )
                )
                chosen = socks[0].getsockname()[1]
            return socks
        except OSError as exc:
            for sock in socks:
                sock.close()
            failed = doors[len(socks)]
            if exc.errno == errno.EADDRINUSE and port == 0 and socks:
                continue  # the first host's free port is taken on another: draw again
            raise ServeError(f"cannot {verb} {failed}:{chosen}: {exc.strerror or exc}") from None
    raise ServeError(f"no port free on all of {', '.join(hosts)} in {_PORT_TRIES} tries")


def listen_with_queues(hosts: Sequence[str], port: int, backlog: int) -> list[socket.socket]:
    """How each worker listens: ACCEPT_QUEUES sockets on every host, one port (SO_REUSEPORT)."""
    return listen_all(hosts, port, reuse_port=True, backlog=backlog, queues=ACCEPT_QUEUES)


def refuse_a_taken_port(hosts: Sequence[str], port: int) -> None:
    """Raise ServeError if another socket holds `port` on any host. The server's own sockets
    share their port (SO_REUSEPORT), and so would a second server's: a plain bind first
    keeps a port in use an error."""
    if port != 0:
        for sock in listen_all(hosts, port, reuse_port=False, backlog=0, listen=False):
            sock.close()


async def _serve_until_signal(
    handler: SiteHandler, socks: Sequence[socket.socket], on_ready: Callable[[], None]
) -> None:
    runner = await start_server(handler, socks)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        on_ready()
        await stop.wait()
    finally:
        await runner.cleanup()


def serve_here(
    handler: SiteHandler,
    socks: Sequence[socket.socket],
    on_ready: Callable[[], None],
    loop: str = "auto",
) -> None:
    """Serve on every socket in this process until SIGINT or SIGTERM."""
    handler.stats.register(0, os.getpid())
    _run(_serve_until_signal(handler, socks, on_ready), loop)


def _die_with_parent(parent: int) -> None:
    """Ask the kernel to SIGTERM this worker when its parent dies (Linux prctl)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(0)


def _worker(
    index: int,
    handler: SiteHandler,
    hosts: Sequence[str],
    port: int,
    parent: int,
    conn: multiprocessing.connection.Connection,
    loop: str,
) -> None:
    # Forked with the parent's handlers: a Ctrl-C reaches the whole process group, and
    # the parent stops us with SIGTERM, so ignore SIGINT until the loop handles both.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent(parent)
    try:
        socks = listen_with_queues(hosts, port, handler.delivery.backlog)
    except ServeError as exc:
        conn.send(str(exc))
        return
    handler.stats.register(index, os.getpid())
    try:
        _run(_serve_until_signal(handler, socks, lambda: conn.send("ok")), loop)
    except ServeError as exc:
        conn.send(str(exc))


def _raise_stop(signum: int, frame: object) -> None:
    raise _Stop


def serve_workers(
    handler: SiteHandler,
    hosts: Sequence[str],
    port: int,
    workers: int,
    on_ready: Callable[[int], None],
    loop: str = "auto",
    before_fork: Callable[[int], None] | None = None,
) -> None:
    """Run `workers` processes sharing one port on every host until SIGINT or SIGTERM;
    before_fork(port) once the port is known (every worker inherits what it caches),
    on_ready(port) once every worker listens. ServeError when a worker cannot start or dies.
    """
    # Reserve the port (bound, not listening, so it takes no connections) so that
    # --port 0 gives every worker the same port and nobody else takes it meanwhile.
    refuse_a_taken_port(hosts, port)
    reserved = listen_all(hosts, port, reuse_port=True, backlog=0, listen=False)
    port = reserved[0].getsockname()[1]
    if before_fork is not None:
        before_fork(port)
    procs: list[multiprocessing.process.BaseProcess] = []
    old = {sig: signal.signal(sig, _raise_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        conns = _start_workers(procs, handler, hosts, port, workers, loop)
        _await_ready(conns, procs)
        _close_all(reserved)
        on_ready(port)
        multiprocessing.connection.wait([p.sentinel for p in procs])
        dead = [p for p in procs if not p.is_alive()]
        raise ServeError(f"worker {dead[0].name} exited with code {dead[0].exitcode}")
    except _Stop:
        pass
    finally:
        for sig in old:
            signal.signal(sig, signal.SIG_IGN)
        _close_all(reserved)
        _stop_workers(procs)
        for sig, handler_ in old.items():
            signal.signal(sig, handler_)


def _close_all(socks: Sequence[socket.socket]) -> None:
    for sock in socks:
        sock.close()


def _start_workers(
    procs: list[multiprocessing.process.BaseProcess],
    handler: SiteHandler,
    hosts: Sequence[str],
    port: int,
    workers: int,
    loop: str,
) -> list[multiprocessing.connection.Connection]:
    """Fork the workers, appending each to procs as it starts (so that the caller stops
    every started one, even when a later fork fails); returns their readiness pipes."""
    ctx = multiprocessing.get_context("fork")
    conns: list[multiprocessing.connection.Connection] = []
    for i in range(workers):
        parent_end, child_end = ctx.Pipe(duplex=False)
        proc = ctx.Process(
            target=_worker,
            args=(i, handler, hosts, port, os.getpid(), child_end, loop),
            name=f"c10k-serve-{i}",
        )
        proc.start()
        child_end.close()
        procs.append(proc)
        conns.append(parent_end)
    return conns


def _await_ready(
    conns: list[multiprocessing.connection.Connection],
    procs: list[multiprocessing.process.BaseProcess],
) -> None:
    """Wait for every worker's "ok"; raises ServeError with the first one's complaint."""
    for conn, started in zip(conns, procs, strict=True):
        if not conn.poll(_READY_TIMEOUT):
            raise ServeError(f"worker {started.name} did not start")
        try:
            message = conn.recv()
        except EOFError:
            raise ServeError(f"worker {started.name} died while starting") from None
        if message != "ok":
            raise ServeError(message)


def _stop_workers(procs: list[multiprocessing.process.BaseProcess]) -> None:
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    for proc in procs:
        proc.join(_STOP_TIMEOUT)
        if proc.is_alive():
            print(f"c10k serve: worker {proc.pid} did not stop; killing it", file=sys.stderr)
            proc.kill()
            proc.join()
