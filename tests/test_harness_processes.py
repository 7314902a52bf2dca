"""The harness and `c10k crawl --processes`: servers on several addresses, the sampled tree."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any, cast

import psutil
import pytest

from bench.harness import sampler as sampler_module
from bench.harness.plan import build_plan
from bench.harness.points import CrawlPoint, Profile, Scenario
from bench.harness.processes import run_process, terminate_all, track
from bench.harness.recipes import _record_server, run_crawl
from bench.harness.sampler import Sampler, read_process, read_rollups, read_tree
from bench.harness.site import ServeOptions, Server, SiteClient
from c10k import catalog
from c10k.durations import parse_latency
from c10k.system import read_line
from tests.server_helpers import wait_for

# Pins CPUs, loads the machine or changes its limits: one xdist worker runs these (tox.ini).
pytestmark = pytest.mark.xdist_group("machine")

HELD_MIB = 64  # what the forked child holds beyond its parent

# A parent that forks two children: one that writes HELD_MIB of its own and sleeps, and one
# that exits at once and stays a zombie (its parent never reaps it), as a worker that ended
# between the listing and its read. The holder says when its memory is written.
PARENT = f"""
import os, time

if os.fork() == 0:
    os._exit(0)
if os.fork() == 0:
    held = b"x" * ({HELD_MIB} << 20)
    os.write(1, b"ready\\n")
    time.sleep(120)
    os._exit(0)
time.sleep(120)
"""


@pytest.fixture
def family() -> Iterator[psutil.Process]:
    """A parent and its children, as above; killed with its whole session at the end."""
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT], stdout=subprocess.PIPE, start_new_session=True
    )
    try:
        assert parent.stdout is not None
        assert read_line(parent.stdout, 30) == b"ready\n"
        yield psutil.Process(parent.pid)
    finally:
        os.killpg(parent.pid, signal.SIGKILL)
        parent.wait()


def holder_of(parent: psutil.Process) -> psutil.Process:
    (holder,) = [c for c in parent.children() if c.status() != psutil.STATUS_ZOMBIE]
    return holder


def test_the_tree_sums_every_live_process_and_leaves_out_an_exited_one(
    family: psutil.Process,
) -> None:
    holder = holder_of(family)
    alone, pids = read_tree(family, tree=False)
    assert pids == [family.pid] and alone.processes == 1
    total, pids = read_tree(family, tree=True)
    assert pids == [family.pid, holder.pid]  # the zombie is not read
    assert total.processes == 2
    assert total.rss_kib >= alone.rss_kib + HELD_MIB * 1024
    assert total.threads == alone.threads + holder.num_threads()
    assert total.fds == alone.fds + holder.num_fds()
    own = read_rollups([family.pid])
    both = read_rollups(pids)
    assert both["Anonymous"] is not None and own["Anonymous"] is not None
    assert both["Anonymous"] >= own["Anonymous"] + HELD_MIB * 1024


def test_a_child_gone_before_its_read_is_left_out(
    family: psutil.Process, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = subprocess.Popen(["sleep", "60"])
    listed = psutil.Process(gone.pid)
    gone.kill()
    gone.wait()  # reaped: its PID names nothing now
    holder = holder_of(family)
    monkeypatch.setattr(family, "children", lambda recursive: [listed, holder])
    total, pids = read_tree(family, tree=True)
    assert total.processes == 2 and gone.pid not in pids
    # Its smaps_rollup cannot be read: the sums say unknown rather than a part.
    assert read_rollups([family.pid, gone.pid]) == dict.fromkeys(read_rollups([family.pid]))


def test_a_single_process_reads_the_same_as_a_tree_of_one() -> None:
    sleeper = "import time; print('ready', flush=True); time.sleep(120)"
    single = subprocess.Popen([sys.executable, "-c", sleeper], stdout=subprocess.PIPE)
    try:
        assert single.stdout is not None
        assert read_line(single.stdout, 30) == b"ready\n"  # started: its figures hold still
        process = psutil.Process(single.pid)
        plain, tree_of_one = read_tree(process, tree=False), read_tree(process, tree=True)
        assert plain == tree_of_one == (read_process(process), [single.pid])
    finally:
        single.kill()
        single.communicate()


def test_the_sampler_records_the_tree_in_every_column(family: psutil.Process) -> None:
    sampler = Sampler(family.pid, [], 0.02, tree=True)
    sampler.start()
    try:
        assert wait_for(lambda: len(sampler.columns["t"]) >= 2, 30)
    finally:
        sampler.stop()
    columns = sampler.columns
    assert set(columns["processes"]) == {2}
    assert min(columns["rss_kib"]) >= HELD_MIB * 1024
    assert all(v is None or v >= HELD_MIB * 1024 for v in columns["vmrss_kib"])
    assert columns["uss_kib"][0] is not None and columns["uss_kib"][0] >= HELD_MIB * 1024


def test_a_server_gone_mid_run_is_a_failed_read_and_the_crawlers_exit_is_none() -> None:
    crawler, server = (subprocess.Popen(["sleep", "60"]) for _ in range(2))
    sampler = Sampler(crawler.pid, [server.pid], 0.02)
    sampler.start()
    try:
        assert wait_for(lambda: len(sampler.columns["t"]) >= 2, 30)
        server.kill()
        server.wait()  # reaped: its PID names nothing now
        assert wait_for(lambda: "server_cpu" in sampler.failures, 30)
        crawler.kill()
        crawler.wait()
        assert wait_for(lambda: not sampler.is_alive(), 30)  # the crawler's exit ends it
    finally:
        sampler.stop()
        for process in (crawler, server):
            process.kill()
            process.wait()
    lost = sampler.failures.pop("server_cpu")
    assert lost["count"] >= 1 and "NoSuchProcess" in lost["reason"]
    assert sampler.failures == {}
    server_cpu = sampler.columns["server_cpu_s"]
    assert server_cpu[0] is not None and server_cpu[-1] is None  # unknown, not a smaller sum
    record: Any = {"elapsed_s": 1.0, "pinning": {"crawler": [0], "server": [0]}}
    record["sampler_failures"] = {"server_cpu": lost}
    site = cast(SiteClient, SimpleNamespace(root="http://127.0.0.1:1/", remote=False))
    _record_server(record, site, {}, None, sampler, 1)  # sampled columns: a busy to compute
    assert record["busy"] is None
    assert record["server"]["saturated"] is None and record["server"]["cpu_cores"] is None


def test_a_crawler_read_that_fails_while_it_runs_is_recorded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def denied(root: psutil.Process, tree: bool) -> None:
        raise psutil.AccessDenied(root.pid)

    monkeypatch.setattr(sampler_module, "read_tree", denied)
    sampler = Sampler(os.getpid(), [], 0.02)
    sampler.start()
    assert wait_for(lambda: not sampler.is_alive(), 30)
    assert sampler.failures["crawler"]["count"] == 1
    assert "AccessDenied" in sampler.failures["crawler"]["reason"]


# A process that starts a child of its own, as `--processes` starts its children.
SPAWNER = (
    "import subprocess, sys, time\n"
    "child = subprocess.Popen(['sleep', '120'])\n"
    "print(child.pid, flush=True)\n"
    "time.sleep(120)\n"
)


def test_a_run_killed_at_its_timeout_takes_its_children_with_it() -> None:
    # A parent's children would outlive it: the whole session goes at the timeout.
    finished = run_process([sys.executable, "-c", SPAWNER], 5.0)
    assert finished.code is None
    child = int(finished.stdout)
    assert wait_for(lambda: not psutil.pid_exists(child) or _gone(child), 30)


def test_ctrl_c_ends_the_processes_ours_started() -> None:
    # terminate_all (the harness's Ctrl-C) reaches a parent's children, not just it.
    spawner = subprocess.Popen(
        [sys.executable, "-c", SPAWNER], stdout=subprocess.PIPE, start_new_session=True
    )
    try:
        assert spawner.stdout is not None
        child = int(read_line(spawner.stdout, 30))
        track(spawner.pid)
        assert spawner.pid in terminate_all()
        assert wait_for(lambda: _gone(child), 30)
        assert spawner.wait(30) is not None
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(spawner.pid, signal.SIGKILL)
        spawner.wait()


def _gone(pid: int) -> bool:
    """A process that has exited: reaped, or a zombie waiting for init to reap it."""
    try:
        return bool(psutil.Process(pid).status() == psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return True


# -- servers on several addresses ------------------------------------------------------------


def test_a_server_on_several_addresses_takes_a_block_of_its_own() -> None:
    single = Server(ServeOptions(pages=10))
    first = Server(ServeOptions(pages=10, addresses=3))
    second = Server(ServeOptions(pages=10, addresses=2))
    assert single.addresses == [single.host] and single.host.startswith("127.0.0.")
    for server in (first, second):
        block = {a.rsplit(".", 1)[0] for a in server.addresses}
        (prefix,) = block
        assert prefix != "127.0.0" and server.host == server.addresses[0]
        assert [a.rsplit(".", 1)[1] for a in server.addresses] == [
            str(k) for k in range(1, len(server.addresses) + 1)
        ]
    assert len(first.addresses) == 3 and first.addresses[0] != second.addresses[0]
    # Where it listens is the Server's: the options' argv is what a server over ssh gets.
    assert "--listen" not in first.options.argv() and "--addresses" not in first.options.argv()


# -- a partitioned crawl through the harness, for real ----------------------------------------

PARTITIONED = CrawlPoint(
    ServeOptions(
        pages=60,
        links=0,
        shape="wide",
        latency=parse_latency("200ms"),
        addresses=2,
        workers=2,
        parts=2,
    ),
    concurrency=30,
    processes=2,
    check_peak=True,
)


@pytest.fixture(scope="module")
def two_address_site() -> Iterator[Server]:
    server = Server(PARTITIONED.server)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.slow
def test_a_partitioned_crawl_runs_sampled_and_verified(two_address_site: Server) -> None:
    server = two_address_site
    # The run as a plan makes it: its id, params and time limit.
    scenario = Scenario(catalog.SLEEPY, points=(PARTITIONED,))
    profile = Profile("test", "one partitioned point", 60.0, 0.05, (scenario,))
    plan = build_plan(profile, [catalog.ASYNCIO.name], [catalog.SLEEPY.name])
    (run,) = [r for r in plan if r.kind == "measured"]
    assert run.id == "sleepy/asyncio/c30/p2/s0/measured0"
    record = run_crawl(run, server, profile.sample_interval_s)
    assert record["status"] == "ok", record["reason"]
    assert record["verification"]["ok"] and record["verification"]["peak_ok"]
    argv = record["argv"]
    assert argv[argv.index("--processes") + 1] == "2"
    assert argv[argv.index("--connect-to") + 1] == ",".join(server.addresses)
    assert record["params"]["processes"] == 2 and record["params"]["server"]["addresses"] == 2
    # The parent and both children, read while every connection was open.
    assert record["plateau"]["plateau_samples"] > 0 and record["plateau"]["processes"] == 3
    assert max(record["samples"]["processes"]) == 3
    stats = record["server"]["stats"]
    assert stats["addresses"] == server.addresses and len(server.addresses) == 2
    assert all(n > 0 for n in stats["requests_by_address"])
    crawl = record["crawl"]
    assert crawl is not None
    assert [p["connect_to"] for p in crawl["processes"]] == server.addresses
    # Each process crawled its part, verified against the part's manifest.
    assert [p["root"] for p in crawl["processes"]] == [f"{server.root}?part={k}" for k in (0, 1)]
    assert record["verification"]["manifest_count"] == 60 + 2  # the pages and the part roots
    assert record["verification"]["examples"]["parts"] == []
