"""`c10k crawl --processes P` as a user runs it: one merged document equal to the manifest,
every URL fetched once, --connect-to, its errors, and a worker that dies or a Ctrl-C."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import signal
import subprocess
from collections.abc import Iterator

import psutil
import pytest

from bench.interpreter import python_command
from c10k.catalog import CRAWLERS, MODELS
from impls.cli.checks import UsageError, check_processes
from impls.cli.options import crawl_parser
from impls.core.partition import owner, shares
from impls.partition import coordinator
from tests.server_helpers import get_json, serve_process, wait_for
from tests.tinysite import HANG, TinySite, model_modes, page, skip_if_missing

PARTITIONED = [name for name, model in MODELS.items() if model.processes]  # every model
# Redirects (slash, chains of 2..12 across the budget of 10, cycles), 404s, non-HTML, queries
# and non-retryable faults: no URL is asked twice, so the server's count of requests says
# that each URL was fetched once.
SITE = (
    "--pages",
    "200",
    "--latency",
    "0",
    "--listen",
    "127.0.0.1-127.0.0.3",
    "--ratio",
    "redirect_chain=0.03,redirect_cycle=0.02,missing=0.02,slash_redirect=0.02,"
    "non_html=0.01,query=0.01",
    "--faults",
    "500=0.02,garbage=0.01,truncate=0.01",
)
CONCURRENCY = 7


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve_process(*SITE) as (_, url):
        yield url


def c10k_crawl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        python_command("crawl", *args), capture_output=True, text=True, timeout=120
    )


def crawl_counted(site: str, *args: str) -> tuple[dict, dict]:  # type: ignore[type-arg]
    """The crawl's document and the server's request counts during it."""
    get_json(site + "__stats__/reset", method="POST")
    done = c10k_crawl(site, "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), get_json(site + "__stats__")


@pytest.mark.slow
@pytest.mark.parametrize(("model", "keep_alive"), model_modes(models=PARTITIONED))
@pytest.mark.parametrize(("processes", "max_redirect"), [(2, 2), (3, 10)])
def test_the_merged_crawl_is_the_manifest_with_each_url_fetched_once(
    site: str, model: str, keep_alive: bool, processes: int, max_redirect: int
) -> None:
    # With three processes, process i connects to 127.0.0.2 or .3: the URLs still name .1.
    connect_to = ["--connect-to", "127.0.0.2,127.0.0.3"] if processes == 3 else []
    result, stats = crawl_counted(
        site,
        *("--model", model, "--processes", str(processes), "--concurrency", str(CONCURRENCY)),
        *("--max-redirect", str(max_redirect), *connect_to),
        *(["--keep-alive"] if keep_alive else []),
    )
    manifest = get_json(f"{site}__manifest__?max_redirect={max_redirect}")["urls"]
    assert result["fetched"] == manifest
    assert stats["requests"] == len(manifest) == result["tries"] == result["pages"]
    parts = result["processes"]
    assert [p["index"] for p in parts] == list(range(processes))
    assert [p["concurrency"] for p in parts] == shares(CONCURRENCY, processes)
    assert len({p["pid"] for p in parts}) == processes
    # Each process fetched exactly the URLs it owns.
    owned = [sum(owner(url, processes) == i for url in manifest) for i in range(processes)]
    assert [p["pages"] for p in parts] == owned
    assert result["peak_in_flight"] == sum(p["peak_in_flight"] for p in parts) <= CONCURRENCY
    assert result["peak_in_flight_upper_bound"] is True
    assert result["latency_s"]["count"] == result["tries"]
    assert result["concurrency"] == CONCURRENCY
    assert result["options"]["keep_alive"] is keep_alive
    if connect_to:
        by_address = [owned[0] + owned[2], owned[1]]
        assert [p["connect_to"] for p in parts] == ["127.0.0.2", "127.0.0.3", "127.0.0.2"]
        assert stats["requests_by_address"] == [0, *by_address]


def test_one_process_crawls_as_before_and_connects_where_told(site: str) -> None:
    result, stats = crawl_counted(
        site, "--model", "threads", "--processes", "1", "--connect-to", "127.0.0.3"
    )
    assert result["fetched"] == get_json(site + "__manifest__")["urls"]
    assert "processes" not in result and "latencies_s" not in result
    assert stats["requests_by_address"] == [0, 0, result["tries"]]


def test_the_summary_names_each_process() -> None:
    with TinySite({"/": page("/a", "/b", "/c"), "/a": page("/d")}) as tiny:
        done = c10k_crawl(tiny.root, "--model", "threads", "--processes", "2")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "2 processes" in lines[0]
    assert "5 URLs" in lines[1]
    assert "peak at most" in done.stdout
    assert [line.split(" (pid")[0].strip() for line in lines[-2:]] == ["process 0", "process 1"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--processes", "0"], "--processes: must be at least 1"),
        (["--processes", "3", "--concurrency", "2"], "--processes 3 is more than --concurrency 2"),
        (["--processes", "2", "--max-pages", "5"], "--max-pages cannot be used with --processes"),
        (["--processes", "2", "--mark-crawl"], "--mark-crawl counts one process"),
        (["--connect-to", "127.0.0.2,localhost"], "not an IP address: 'localhost'"),
        (["--connect-to", "192.0.2.1"], "--connect-to 192.0.2.1 is not a loopback address"),
        (["--partition", "2/2", "--channel-fd", "5"], "not INDEX/PROCESSES"),
        (["--partition", "0/2"], "--partition and --channel-fd go together"),
    ],
)
def test_mistakes_get_one_line_and_exit_2(args: list[str], message: str) -> None:
    model = [] if "--model" in args else ["--model", "threads"]
    done = c10k_crawl("http://127.0.0.1:9/", *model, *args)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]  # argparse's usage comes first, if at all
    assert last.startswith("c10k crawl: error:") and message in last


def test_a_model_without_the_capability_is_refused_in_one_line() -> None:
    refusing = dataclasses.replace(MODELS["threads"], processes=False)
    args = crawl_parser().parse_args(["http://127.0.0.1:9/", "--model", "x", "--processes", "2"])
    with pytest.raises(UsageError, match=r"^model threads does not support --processes$"):
        check_processes(args, refusing)


def test_the_catalog_names_the_crawlers_that_refuse() -> None:
    refusing = [name for name, model in CRAWLERS.items() if not model.processes]
    # A peer runs as Scrapy does: one process; the interpreters model shares its crawl itself.
    assert refusing == ["interpreters", "scrapy"]
    for name in refusing:
        if not CRAWLERS[name].missing() and not CRAWLERS[name].too_old():  # else refused first
            done = c10k_crawl("http://127.0.0.1:9/", "--model", name, "--processes", "2")
            assert done.returncode == 2
            assert done.stderr.strip().endswith(f"model {name} does not support --processes")


def hanging_crawl(tiny: TinySite, model: str) -> tuple[subprocess.Popen[str], list[int]]:
    """A partitioned crawl held up by a hanging page; it and its workers' PIDs, once the
    hanging request has arrived (so both workers are crawling)."""
    options = ("--processes", "2", "--concurrency", "4", "--timeout", "60", "--json")
    crawl = subprocess.Popen(
        python_command("crawl", tiny.root, "--model", model, *options),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # SIGINT at its default, as under a terminal: a shell starts background jobs (CI's,
        # or pytest under nohup) with SIGINT ignored, and the crawler would inherit that.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert wait_for(lambda: tiny.hits["/h"] >= 1, 30), "the crawl did not reach the hang"
    workers = [child.pid for child in psutil.Process(crawl.pid).children()]
    assert len(workers) == 2
    return crawl, workers


def assert_ended(crawl: subprocess.Popen[str], workers: list[int]) -> str:
    """The coordinator ends by itself, its workers gone with it; its stderr."""
    try:
        _, stderr = crawl.communicate(timeout=60)  # a guard against a hang, not a measure
    except subprocess.TimeoutExpired:
        crawl.kill()
        for pid in workers:
            psutil.Process(pid).kill()
        raise
    for pid in workers:
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == "zombie"
    return stderr


@pytest.mark.parametrize("model", [pytest.param(m, marks=skip_if_missing(m)) for m in PARTITIONED])
def test_a_killed_worker_stops_the_crawl_with_one_line(model: str) -> None:
    with TinySite({"/": page("/h", "/a", "/b", "/c"), "/h": HANG}, hang_for=60) as tiny:
        crawl, workers = hanging_crawl(tiny, model)
        psutil.Process(workers[1]).send_signal(signal.SIGKILL)
        stderr = assert_ended(crawl, workers)
    assert crawl.returncode == 1
    (line,) = stderr.strip().splitlines()
    assert f"worker 1 (pid {workers[1]})" in line
    assert "exited with code -9" in line


def test_ctrl_c_stops_the_workers() -> None:
    with TinySite({"/": page("/h", "/a"), "/h": HANG}, hang_for=60) as tiny:
        crawl, workers = hanging_crawl(tiny, "asyncio")
        crawl.send_signal(signal.SIGINT)
        stderr = assert_ended(crawl, workers)
    assert crawl.returncode == 130
    assert stderr.strip() == "c10k crawl: interrupted"


def test_a_worker_that_cannot_start_stops_those_started_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started: list[subprocess.Popen[bytes]] = []
    real_popen = subprocess.Popen

    def popen(argv: list[str], **options: object) -> subprocess.Popen[bytes]:
        if started:
            raise OSError("no more processes")
        started.append(real_popen(["sleep", "30"]))
        return started[0]

    monkeypatch.setattr(subprocess, "Popen", popen)
    args = crawl_parser().parse_args(["http://127.0.0.1:1/", "--model", "threads"])
    args.concurrency, args.processes = 4, 2
    with contextlib.ExitStack() as files, pytest.raises(OSError, match="no more processes"):
        coordinator.start_workers(args, files)
    assert started[0].poll() is not None  # stopped, not left running
