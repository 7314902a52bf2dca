"""One crawl shared by P processes (sans-I/O): URL owners, the wire messages, the end rule."""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from typing import Any

# A forwarded URL and the redirect budget it travels with (the contract's, unchanged).
Forward = tuple[str, int]
# The most URLs one Forwarded line carries. A page may link to a whole site (the wide root
# of 200,000 pages); in one line its URLs would be decoded and re-encoded at once by the
# coordinator, tens of MB more at 100,000 connections (docs/notes/2026-11-25-c100k.md).
FORWARD_BATCH = 1000


def owner(url: str, processes: int) -> int:
    """The index of the process that fetches url: a stable hash (crc32 of its UTF-8 bytes),
    the same in every process and every run, unlike hash() with its per-process seed."""
    return zlib.crc32(url.encode("utf-8", "surrogatepass")) % processes


@dataclass
class Partition:
    """This process's share of the crawl: the URLs it owns, and an outbox for the others.

    The Frontier hands an unseen URL owned by another process to forward() (it has marked
    it seen, so it leaves this process once); the WorkerLink sends the outbox to the
    coordinator.
    """

    index: int
    processes: int
    channel_fd: int = -1  # the descriptor of this worker's socket to the coordinator
    outbox: list[Forward] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not 0 <= self.index < self.processes:
            raise ValueError(f"partition {self.index} of {self.processes} does not exist")

    def owns(self, url: str) -> bool:
        return owner(url, self.processes) == self.index

    def forward(self, url: str, redirects_left: int) -> bool:
        """Put url in the outbox if another process owns it; whether it did."""
        if owner(url, self.processes) == self.index:
            return False
        self.outbox.append((url, redirects_left))
        return True

    def take_outbox(self) -> list[Forward]:
        taken, self.outbox = self.outbox, []
        return taken


# -- the messages: one JSON object per line, both ways over a worker's socket -------------


class ProtocolError(Exception):
    """A line that is not one of the messages below."""


class CoordinatorLost(Exception):
    """A worker's socket to the coordinator closed before the coordinator said Done."""


@dataclass(frozen=True)
class Forwarded:
    """URLs another process owns (worker -> coordinator), or that this one owns (back)."""

    urls: list[Forward]


@dataclass(frozen=True)
class Idle:
    """Worker -> coordinator: nothing queued, nothing in flight, the outbox sent, and
    `received` forwarded URLs taken in so far (all of them dealt with)."""

    received: int


@dataclass(frozen=True)
class Done:
    """Coordinator -> worker: the crawl is over; end it and print the document."""


Message = Forwarded | Idle | Done


def encode(message: Message) -> bytes:
    record: dict[str, Any]
    if isinstance(message, Forwarded):
        record = {"forward": [[url, budget] for url, budget in message.urls]}
    elif isinstance(message, Idle):
        record = {"idle": message.received}
    else:
        record = {"done": True}
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def decode(line: bytes) -> Message:
    """One line (its newline optional) -> its message; ProtocolError if it is none."""
    try:
        record = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"not a JSON line: {line[:80]!r}") from exc
    if not isinstance(record, dict) or len(record) != 1:
        raise ProtocolError(f"not a message: {line[:80]!r}")
    if "forward" in record:
        urls = record["forward"]
        if not isinstance(urls, list) or not all(_is_forward(item) for item in urls):
            raise ProtocolError(f"bad forward: {line[:80]!r}")
        return Forwarded([(url, budget) for url, budget in urls])
    if "idle" in record:
        received = record["idle"]
        if type(received) is not int or received < 0:
            raise ProtocolError(f"bad idle count: {line[:80]!r}")
        return Idle(received)
    if record.get("done") is True:
        return Done()
    raise ProtocolError(f"unknown message: {line[:80]!r}")


def _is_forward(item: Any) -> bool:
    return (
        isinstance(item, list)
        and len(item) == 2
        and isinstance(item[0], str)
        and type(item[1]) is int
        and item[1] >= 0
    )


class LineBuffer:
    """Bytes as they arrive -> whole lines, for readers that get a socket's bytes in pieces."""

    def __init__(self) -> None:
        self._partial = b""

    def feed(self, data: bytes) -> list[bytes]:
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        return lines

    @property
    def pending(self) -> bool:
        """Bytes of a line not yet ended: at EOF, a message cut short."""
        return bool(self._partial)


# -- the coordinator's side ----------------------------------------------------------------


class Termination:
    """The coordinator's end rule: the crawl is over when every worker's last report says
    idle and it had then taken in every URL the coordinator has sent it.

    Why that suffices (a counting argument in the manner of Dijkstra and Safra, made simple
    by the star: every forward passes through the coordinator, and each socket keeps order).
    A worker gets new work only from a forwarded URL. It sends the URLs it found before the
    Idle that follows them, so when the coordinator reads Idle(r) from worker i it has
    already routed (and counted in sent[j]) everything i found until then. If, at one moment,
    every worker's last report is Idle(r_i) with r_i == sent[i], then no URL is in transit to
    any worker (all sent were taken in before the report), no worker has work (it was idle
    after taking them in, and nothing but a forward wakes it), and every URL a worker found
    has been routed. A worker that reported idle while a URL was on its way to it has r_i <
    sent[i], so the crawl goes on until its next report.
    """

    def __init__(self, workers: int) -> None:
        self.sent = [0] * workers  # forwarded URLs the coordinator sent each worker
        self.reported: list[int | None] = [None] * workers  # its last Idle count, None: busy

    def forwarded(self, worker: int, urls: int) -> None:
        """The coordinator sent (or queued for sending) urls URLs to worker."""
        self.sent[worker] += urls

    def idle(self, worker: int, received: int) -> None:
        if received > self.sent[worker]:
            raise ProtocolError(
                f"worker {worker} took in {received} URLs, but was sent {self.sent[worker]}"
            )
        self.reported[worker] = received

    @property
    def over(self) -> bool:
        return all(r is not None and r == s for r, s in zip(self.reported, self.sent, strict=True))


def route(urls: list[Forward], processes: int) -> dict[int, list[Forward]]:
    """The coordinator's routing: each forwarded URL to its owner."""
    routed: dict[int, list[Forward]] = {}
    for url, budget in urls:
        routed.setdefault(owner(url, processes), []).append((url, budget))
    return routed


def shares(total: int, processes: int) -> list[int]:
    """--concurrency split across the processes: C // P each, one more for the first C % P."""
    base, extra = divmod(total, processes)
    return [base + (1 if i < extra else 0) for i in range(processes)]
