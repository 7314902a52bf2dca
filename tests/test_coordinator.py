"""The coordinator's loop against scripted workers on socketpairs (no processes, no crawl)."""

from __future__ import annotations

import socket
import tempfile
import threading
from collections.abc import Iterator

import pytest

from impls.core.partition import Done, Forwarded, Idle, LineBuffer, Message, decode, encode, owner
from impls.partition.coordinator import Coordinator, Worker, WorkerFailed

ROOT = "http://127.0.0.1:8080/"


class RunningProcess:
    """Stands in for a worker's Popen: still running, exits with 0 when waited for."""

    pid = 0

    def poll(self) -> int | None:
        return None

    def wait(self, timeout: float | None = None) -> int:
        return 0


class Scripted:
    """The worker's end of a socketpair: what a worker would send and read."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.lines = LineBuffer()
        self.read: list[Message] = []

    def send(self, message: Message) -> None:
        self.sock.sendall(encode(message))

    def receive(self, count: int) -> list[Message]:
        """The next `count` messages (a guard of 30 s against a hang, not a measure)."""
        self.sock.settimeout(30)
        while len(self.read) < count:
            self.read += [decode(line) for line in self.lines.feed(self.sock.recv(65536))]
        taken, self.read = self.read[:count], self.read[count:]
        return taken


@pytest.fixture
def crew() -> Iterator[tuple[list[Worker], list[Scripted]]]:
    workers, scripted = [], []
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        for index in range(2):
            ours, theirs = socket.socketpair()
            ours.setblocking(False)
            process = RunningProcess()
            workers.append(Worker(index, 1, "", process, ours, out, err))  # type: ignore[arg-type]
            scripted.append(Scripted(theirs))
        yield workers, scripted
    for worker, script in zip(workers, scripted, strict=True):
        worker.channel.close()
        script.sock.close()


def run_in_thread(coordinator: Coordinator) -> tuple[threading.Thread, list[BaseException]]:
    failures: list[BaseException] = []

    def run() -> None:
        try:
            coordinator.run()
        except BaseException as exc:
            failures.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, failures


def test_forwards_reach_their_owner_and_idle_in_transit_does_not_end_the_crawl(
    crew: tuple[list[Worker], list[Scripted]],
) -> None:
    workers, (first, second) = crew
    # One message far larger than a socket's buffer (about 100 KB): the coordinator keeps
    # what did not fit and sends it as worker 1 reads, while it goes on reading.
    theirs = [f"{ROOT}p/{n}/" for n in range(40_000) if owner(f"{ROOT}p/{n}/", 2) == 1]
    thread, failures = run_in_thread(Coordinator(workers))
    second.send(Idle(0))  # worker 1: nothing to do yet
    first.send(Forwarded([(url, 10) for url in theirs]))
    first.send(Idle(0))  # worker 0 is idle while its URLs travel to worker 1
    assert second.receive(1) == [Forwarded([(url, 10) for url in theirs])]
    assert thread.is_alive() and not failures  # worker 1 has not said it took them in
    second.send(Idle(len(theirs)))
    assert first.receive(1) == [Done()] and second.receive(1) == [Done()]
    first.sock.close()
    second.sock.close()
    thread.join(30)
    assert not thread.is_alive() and not failures


def test_a_worker_that_closes_its_socket_early_fails_the_crawl(
    crew: tuple[list[Worker], list[Scripted]],
) -> None:
    workers, (first, second) = crew
    thread, failures = run_in_thread(Coordinator(workers))
    second.send(Idle(0))
    first.sock.close()
    thread.join(30)
    (failure,) = failures
    assert isinstance(failure, WorkerFailed)
    assert "worker 0 (pid 0) closed its socket before the crawl ended" in str(failure)


def test_a_worker_that_breaks_the_protocol_fails_the_crawl(
    crew: tuple[list[Worker], list[Scripted]],
) -> None:
    workers, (_, second) = crew
    thread, failures = run_in_thread(Coordinator(workers))
    second.send(Idle(3))  # nothing was sent to it
    thread.join(30)
    (failure,) = failures
    assert isinstance(failure, WorkerFailed)
    assert "worker 1 (pid 0) broke the protocol" in str(failure)
