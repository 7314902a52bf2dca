"""One crawl shared by P processes, without processes: owners, messages, the end rule, and
whole crawls simulated message by message in shuffled orders (impls/core/partition.py and
worker_link.py)."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Mapping

import pytest

from impls.core import CrawlConfig, ErrorKind, Frontier, Job, Response
from impls.core.outcomes import Outcome
from impls.core.partition import (
    FORWARD_BATCH,
    Done,
    Forwarded,
    Idle,
    LineBuffer,
    Partition,
    ProtocolError,
    Termination,
    decode,
    encode,
    owner,
    route,
    shares,
)
from impls.core.worker_link import WorkerLink
from tests.server_helpers import run_script_with_hashseed
from tests.test_core_frontier import ROOT, page, redirect

URLS = [f"{ROOT}p/{n}/" for n in range(200)] + [ROOT, f"{ROOT}caf\u00e9?q=\u2603"]

# -- owners ---------------------------------------------------------------------------------


def test_every_process_owns_some_urls_and_no_url_has_two_owners() -> None:
    for processes in (1, 2, 3, 5):
        owners = [owner(url, processes) for url in URLS]
        assert set(owners) == set(range(processes))
        for index in range(processes):
            partition = Partition(index, processes)
            assert [partition.owns(url) for url in URLS] == [o == index for o in owners]


def test_owners_do_not_depend_on_the_hash_seed() -> None:
    script = (
        "import sys; from impls.core.partition import owner; "
        "print([owner(f'http://127.0.0.1:8080/p/{n}/', 3) for n in range(50)])"
    )
    answers = {run_script_with_hashseed(script, "", seed) for seed in ("0", "1", "4242")}
    assert answers == {str([owner(f"{ROOT}p/{n}/", 3) for n in range(50)])}


def test_a_partition_index_must_exist() -> None:
    with pytest.raises(ValueError, match="does not exist"):
        Partition(3, 3)


@pytest.mark.parametrize(
    ("total", "processes", "expected"),
    [(10, 3, [4, 3, 3]), (6, 3, [2, 2, 2]), (7, 1, [7]), (2, 2, [1, 1])],
)
def test_concurrency_shares_add_up_to_the_total(
    total: int, processes: int, expected: list[int]
) -> None:
    assert shares(total, processes) == expected


def test_route_sends_each_url_to_its_owner_in_order() -> None:
    forwards = [(url, n % 11) for n, url in enumerate(URLS)]
    routed = route(forwards, 3)
    assert sorted(item for items in routed.values() for item in items) == sorted(forwards)
    for index, items in routed.items():
        assert all(owner(url, 3) == index for url, _ in items)
        assert items == [item for item in forwards if owner(item[0], 3) == index]


# -- messages -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        Forwarded([(f"{ROOT}a", 10), (f"{ROOT}caf\u00e9\n?x=\ufffd", 0)]),
        Forwarded([]),
        Idle(0),
        Idle(12345),
        Done(),
    ],
)
def test_messages_survive_the_line_codec(message: Forwarded | Idle | Done) -> None:
    line = encode(message)
    assert line.endswith(b"\n") and line.count(b"\n") == 1  # a newline in a URL is escaped
    assert decode(line) == message


@pytest.mark.parametrize(
    "line",
    [
        b"not json\n",
        b"[1, 2]\n",
        b'{"idle": -1}\n',
        b'{"idle": 1.5}\n',
        b'{"idle": true}\n',
        b'{"done": false}\n',
        b'{"forward": [["http://x/", -1]]}\n',
        b'{"forward": [["http://x/"]]}\n',
        b'{"forward": "http://x/"}\n',
        b'{"idle": 1, "done": true}\n',
        b'{"result": {}}\n',
        b"\xff\xfe\n",
    ],
)
def test_a_bad_line_is_a_protocol_error(line: bytes) -> None:
    with pytest.raises(ProtocolError):
        decode(line)


def test_line_buffer_joins_pieces_and_keeps_the_unfinished_line() -> None:
    data = encode(Idle(1)) + encode(Forwarded([(f"{ROOT}x", 3)])) + encode(Done())
    lines = LineBuffer()
    got = [decode(line) for n in range(0, len(data), 7) for line in lines.feed(data[n : n + 7])]
    assert got == [Idle(1), Forwarded([(f"{ROOT}x", 3)]), Done()]
    assert not lines.pending
    assert lines.feed(b'{"idle"') == [] and lines.pending


# -- the end rule ---------------------------------------------------------------------------


def test_not_over_before_every_worker_reported() -> None:
    rule = Termination(3)
    rule.idle(0, 0)
    rule.idle(1, 0)
    assert not rule.over
    rule.idle(2, 0)
    assert rule.over


def test_a_forward_in_transit_keeps_the_crawl_going() -> None:
    rule = Termination(2)
    rule.idle(1, 0)  # worker 1 has nothing yet
    rule.forwarded(1, 3)  # worker 0 found three of worker 1's URLs: on their way to it
    rule.idle(0, 0)  # worker 0 goes idle while they travel
    assert not rule.over
    rule.idle(1, 2)  # a report written after taking in two of the three: still one to go
    assert not rule.over
    rule.idle(1, 3)
    assert rule.over


def test_a_late_forward_reopens_a_finished_looking_crawl() -> None:
    rule = Termination(2)
    rule.idle(0, 0)
    rule.idle(1, 0)
    assert rule.over  # the coordinator would say Done here, so it must check before routing
    rule.forwarded(0, 1)
    assert not rule.over
    rule.idle(0, 1)
    assert rule.over


def test_a_stale_idle_report_does_not_end_the_crawl() -> None:
    """Worker 1 reports idle, then a URL is routed to it; the report it sent before it
    took the URL in arrives after: its count is behind, so the crawl goes on."""
    rule = Termination(2)
    rule.forwarded(1, 1)
    rule.idle(0, 0)
    rule.idle(1, 0)  # written before the URL reached worker 1
    assert not rule.over
    rule.forwarded(0, 2)  # worker 1 took it in, fetched it and forwarded two URLs...
    rule.idle(1, 1)  # ...then reported idle, after them on the same socket
    assert not rule.over  # worker 0 has two URLs on their way
    rule.idle(0, 2)
    assert rule.over


def test_more_taken_in_than_sent_is_a_protocol_error() -> None:
    rule = Termination(2)
    rule.forwarded(0, 1)
    with pytest.raises(ProtocolError, match="took in 2"):
        rule.idle(0, 2)


# -- the worker's link ----------------------------------------------------------------------


def test_the_link_sends_forwards_before_its_idle_report_and_each_report_once() -> None:
    frontier = frontier_of(0, 2)
    queued: list[Job] = []
    sent: list[bytes] = []
    link = WorkerLink(frontier, queued.append, sent.append)
    link.queue_jobs([Job(ROOT, 10, b"")])
    assert sent == []  # busy, nothing to forward
    theirs = next(url for url in URLS if owner(url, 2) == 1)
    frontier.on_response(Job(ROOT, 10, b""), page(theirs))
    link.finished(0)  # the job ended, queueing nothing here
    assert sent == [encode(Forwarded([(theirs, 10)])) + encode(Idle(0))]
    link.flush()
    assert len(sent) == 1  # said already
    new, known, later = [url for url in URLS if owner(url, 2) == 0][:3]
    frontier.seen.add(known)
    link.take_line(encode(Forwarded([(new, 4), (known, 4)])))
    assert [(job.url, job.redirects_left) for job in queued[1:]] == [(new, 4)]
    assert len(sent) == 1  # busy again
    link.finished(0)
    assert sent[1:] == [encode(Idle(2))]
    link.take_line(encode(Forwarded([(known, 9)])))  # seen: still idle, a new count to report
    assert sent[2:] == [encode(Idle(3))] and len(queued) == 2
    link.take_line(encode(Done()))
    assert link.done and later not in frontier.seen


def test_a_page_that_links_to_a_whole_site_is_forwarded_in_bounded_lines() -> None:
    """The wide root links to every page: its forwards leave as lines of at most
    FORWARD_BATCH URLs, in the order found, so no process decodes the site in one piece."""
    frontier = frontier_of(0, 2)
    sent: list[bytes] = []
    queued: list[Job] = []
    link = WorkerLink(frontier, queued.append, sent.append)
    link.queue_jobs([Job(ROOT, 10, b"")])
    links = [f"{ROOT}w/{n}/" for n in range(3 * FORWARD_BATCH)]
    frontier.on_response(Job(ROOT, 10, b""), page(*links))
    link.finished(0)
    lines = [line for data in sent for line in LineBuffer().feed(data)]
    messages = [decode(line) for line in lines]
    forwards = [m for m in messages if isinstance(m, Forwarded)]
    assert len(forwards) >= 2 and all(len(m.urls) <= FORWARD_BATCH for m in forwards)
    theirs = [url for url in links if owner(url, 2) == 1]
    assert [url for m in forwards for url, _ in m.urls] == theirs
    assert isinstance(messages[-1], Idle)  # after every forward


def test_a_worker_does_not_take_an_idle_report() -> None:
    link = WorkerLink(frontier_of(0, 2), print, print)
    with pytest.raises(ProtocolError):
        link.take_line(encode(Idle(0)))


# -- the frontier with a partition -----------------------------------------------------------


def frontier_of(index: int, processes: int, **options: int) -> Frontier:
    frontier = Frontier(CrawlConfig(root=ROOT, **options))  # type: ignore[arg-type]
    frontier.partition = Partition(index, processes)
    return frontier


def test_only_the_roots_owner_starts() -> None:
    starters = [len(frontier_of(i, 3).start()) for i in range(3)]
    assert starters == [1 if i == owner(ROOT, 3) else 0 for i in range(3)]


def test_urls_of_other_owners_go_to_the_outbox_once_with_their_budget() -> None:
    root_owner = owner(ROOT, 2)
    frontier = frontier_of(root_owner, 2, max_redirect=5)
    (job,) = frontier.start()
    links = [f"/p/{n}/" for n in range(20)]
    jobs = frontier.on_response(job, page(*links, *links))  # every link twice
    ours = [url for url in (ROOT[:-1] + link for link in links) if owner(url, 2) == root_owner]
    assert [j.url for j in jobs] == ours
    outbox = frontier.partition.take_outbox() if frontier.partition else []
    assert outbox == [
        (ROOT[:-1] + link, 5) for link in links if owner(ROOT[:-1] + link, 2) != root_owner
    ]
    # Seen here, so not forwarded again.
    again = Job(ROOT, 5, b"")
    assert frontier.on_response(again, page(*links)) == []


def test_a_forwarded_url_keeps_its_budget_and_is_taken_once() -> None:
    frontier = frontier_of(1, 2, max_redirect=7)
    url = next(u for u in URLS if owner(u, 2) == 1)
    job = frontier.receive(url, 3)
    assert job is not None and (job.url, job.redirects_left) == (url, 3)
    assert frontier.receive(url, 7) is None


def test_an_exhausted_redirect_is_neither_queued_nor_forwarded() -> None:
    for index in range(2):
        frontier = frontier_of(index, 2, max_redirect=0)
        target = next(u for u in URLS if owner(u, 2) == 1 - index)
        assert frontier.on_response(Job(ROOT + "r", 0, b""), redirect(target)) == []
        assert frontier.partition is not None and frontier.partition.outbox == []
        assert target not in frontier.seen  # a later link to it is followed


# -- whole crawls, simulated ------------------------------------------------------------------

Site = Mapping[str, Response | ErrorKind]


def single_crawl(site: Site, **options: int) -> dict[str, Outcome]:
    frontier = Frontier(CrawlConfig(root=ROOT, **options))  # type: ignore[arg-type]
    queue = deque(frontier.start())
    while queue:
        queue.extend(answer(frontier, queue.popleft(), site))
    return frontier.fetched


def answer(frontier: Frontier, job: Job, site: Site) -> list[Job]:
    reply = site.get(job.url.removeprefix(ROOT[:-1]), Response(404))
    if isinstance(reply, ErrorKind):
        return frontier.on_error(job, reply)
    return frontier.on_response(job, reply)


def partitioned_crawl(
    site: Site, processes: int, seed: int, **options: int
) -> tuple[dict[str, Outcome], int]:
    """P frontiers, their links and a coordinator, every step (a fetch, a delivery of one
    message either way) taken in a random order; returns the merged outcomes and the
    number of fetches. Done is 'sent' when the end rule says so: any work left then, or any
    message still in transit, fails the test."""
    rng = random.Random(seed)
    frontiers = [Frontier(CrawlConfig(root=ROOT, **options)) for _ in range(processes)]  # type: ignore[arg-type]
    queues: list[list[Job]] = [[] for _ in range(processes)]
    up: list[deque[bytes]] = [deque() for _ in range(processes)]  # worker -> coordinator
    down: list[deque[bytes]] = [deque() for _ in range(processes)]  # coordinator -> worker
    links = []
    for index, frontier in enumerate(frontiers):
        frontier.partition = Partition(index, processes)
        links.append(WorkerLink(frontier, queues[index].append, up[index].append))
    rule = Termination(processes)
    fetches = 0
    for link in links:
        link.start()
    while not rule.over:
        steps = [("fetch", i) for i in range(processes) if queues[i]]
        steps += [("up", i) for i in range(processes) if up[i]]
        steps += [("down", i) for i in range(processes) if down[i]]
        assert steps, "nothing can move, yet the crawl is not over"
        kind, index = rng.choice(steps)
        if kind == "fetch":  # a random job of the worker's queue: any order of completion
            job = queues[index].pop(rng.randrange(len(queues[index])))
            fetches += 1
            new_jobs = answer(frontiers[index], job, site)
            queues[index].extend(new_jobs)
            links[index].finished(len(new_jobs))
        elif kind == "up":
            for line in LineBuffer().feed(up[index].popleft()):
                message = decode(line)
                if isinstance(message, Forwarded):
                    for target, urls in route(message.urls, processes).items():
                        rule.forwarded(target, len(urls))
                        down[target].append(encode(Forwarded(urls)))
                else:
                    assert isinstance(message, Idle)
                    rule.idle(index, message.received)
        else:
            links[index].take_line(down[index].popleft())
    assert not any(queues) and not any(down), "Done while work was left"
    assert not any(line for pending in up for line in pending), "Done with reports unread"
    merged: dict[str, Outcome] = {}
    for frontier in frontiers:
        assert not merged.keys() & frontier.fetched.keys(), "a URL fetched by two processes"
        merged.update(frontier.fetched)
    return merged, fetches


# A chain of 12 redirects (past the budget), a cycle, a reset, 404s, a slash redirect, and a
# chain of exactly 4 (the edge of a budget of 4).
SITE: dict[str, Response | ErrorKind] = {f"/r{i}": redirect(f"/r{i + 1}") for i in range(12)}
SITE |= {
    "/": page(*(f"/p/{n}/" for n in range(12)), "/r0", "/c0", "/gone", "/slash"),
    "/slash": redirect("/slash/", 301),
    "/slash/": page("/", "/p/3/"),
    "/c0": redirect("/c1"),
    "/c1": redirect("/c2", 307),
    "/c2": redirect("/c0"),
    "/reset": ErrorKind.RESET,
    "/p/0/": page("/reset", "/r-edge0", "/p/1/"),
}
SITE |= {f"/p/{n}/": page(f"/p/{n + 1}/", f"/p/{(n * 7) % 12}/", "/p/0/") for n in range(1, 12)}
SITE |= {f"/r-edge{i}": redirect(f"/r-edge{i + 1}") for i in range(4)}
SITE["/r-edge4"] = page("/p/5/")


@pytest.mark.parametrize("processes", [2, 3, 5])
@pytest.mark.parametrize("max_redirect", [4, 10])
def test_a_partitioned_crawl_fetches_what_one_process_fetches(
    processes: int, max_redirect: int
) -> None:
    expected = single_crawl(SITE, max_redirect=max_redirect, max_tries=2)
    assert (ROOT + "r-edge4" in expected) is (max_redirect >= 4)
    for seed in range(40):
        merged, fetches = partitioned_crawl(
            SITE, processes, seed, max_redirect=max_redirect, max_tries=2
        )
        assert merged == expected, seed
        assert fetches == len(expected) + 1  # every URL once, and the reset's second try
