"""`c10k crawl --processes P` as a user runs it: P plain crawls of the site's P parts, merged
into one document equal to the parts' manifests, every URL fetched once; --connect-to; its
errors; and a child that dies, a Ctrl-C, a child that cannot start."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import signal
import subprocess

import psutil
import pytest

from bench.interpreter import python_command
from c10k.catalog import CRAWLERS, MODELS
from impls.cli import parts
from impls.cli.checks import UsageError, check_processes
from impls.cli.options import crawl_parser
from impls.core.frontier import shares
from impls.core.summary import format_summary
from tests.server_helpers import get_json, site_fixture, wait_for
from tests.tinysite import TinySite, page, skip_if_missing

# Redirects (slash, chains of 2..12 across the budget, cycles), 404s, non-HTML, queries and
# non-retryable faults, in 3 parts: no URL is asked twice, so the server's count of requests
# says that each URL was fetched once.
SITE = (
    *("--pages", "200", "--parts", "3", "--latency", "0", "--listen", "127.0.0.1-127.0.0.3"),
    "--ratio",
    "redirect_chain=0.03,redirect_cycle=0.02,missing=0.02,slash_redirect=0.02,"
    "non_html=0.01,query=0.01",
    *("--faults", "500=0.02,garbage=0.01,truncate=0.01"),
)
CONCURRENCY = 7
# One model of each style; keep-alive, --connect-to and a small redirect budget spread
# over them.
STYLES = [
    pytest.param(model, keep_alive, max_redirect, connect_to, marks=skip_if_missing(model))
    for model, keep_alive, max_redirect, connect_to in [
        ("threads", False, 10, False),
        ("callbacks", True, 10, False),
        ("generators", False, 2, False),
        ("asyncio", True, 10, True),
        ("trio", False, 10, False),
    ]
]


site = site_fixture(*SITE)
# Two parts whose pages answer after a minute, their roots at once: a crawl waits.
slow_site = site_fixture(
    *("--pages", "20", "--parts", "2", "--no-variety", "--latency", "60s", "--root-now")
)


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


@pytest.mark.parametrize(("model", "keep_alive", "max_redirect", "connect_to"), STYLES)
def test_the_merged_crawl_is_its_parts_manifests_with_each_url_fetched_once(
    site: str, model: str, keep_alive: bool, max_redirect: int, connect_to: bool
) -> None:
    # With --connect-to, part k connects to 127.0.0.2 or .3: the URLs still name .1.
    addresses = ["--connect-to", "127.0.0.2,127.0.0.3"] if connect_to else []
    result, stats = crawl_counted(
        site,
        *("--model", model, "--processes", "3", "--concurrency", str(CONCURRENCY)),
        *("--max-redirect", str(max_redirect), *addresses),
        *(["--keep-alive"] if keep_alive else []),
    )
    roots = get_json(site + "__parts__")["roots"]
    manifests = [
        get_json(f"{site}__manifest__?part={k}&max_redirect={max_redirect}")["urls"]
        for k in range(3)
    ]
    union = {url: outcome for manifest in manifests for url, outcome in manifest.items()}
    assert result["fetched"] == union
    assert stats["requests"] == len(union) == result["tries"] == result["pages"]
    processes = result["processes"]
    assert [p["root"] for p in processes] == roots
    assert [p["pages"] for p in processes] == [len(manifest) for manifest in manifests]
    assert [p["concurrency"] for p in processes] == shares(CONCURRENCY, 3)
    assert len({p["pid"] for p in processes} | {result["parent"]["pid"]}) == 4
    assert result["peak_in_flight"] == sum(p["peak_in_flight"] for p in processes) <= CONCURRENCY
    assert result["cpu_user_s"] == sum(p["cpu_user_s"] for p in processes)  # not the parent's
    assert result["latency_s"]["count"] == result["tries"]
    assert (result["root"], result["concurrency"]) == (site, CONCURRENCY)
    assert result["options"]["keep_alive"] is keep_alive
    if connect_to:
        assert [p["connect_to"] for p in processes] == ["127.0.0.2", "127.0.0.3", "127.0.0.2"]
        by_address = [len(manifests[0]) + len(manifests[2]), len(manifests[1])]
        assert stats["requests_by_address"] == [0, *by_address]
    lines = format_summary(result).splitlines()
    assert "3 processes" in lines[0]
    assert [line.split(" (pid")[0].strip() for line in lines[-3:]] == [
        "process 0",
        "process 1",
        "process 2",
    ]


def test_one_process_crawls_the_whole_site_and_connects_where_told(site: str) -> None:
    result, stats = crawl_counted(
        site, "--model", "threads", "--processes", "1", "--connect-to", "127.0.0.3"
    )
    assert result["fetched"] == get_json(site + "__manifest__")["urls"]
    assert "processes" not in result and "latencies_s" not in result
    assert stats["requests_by_address"] == [0, 0, result["tries"]]


def one_line_and_exit_2(done: subprocess.CompletedProcess[str], message: str) -> None:
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]  # argparse's usage comes first, if at all
    assert last.startswith("c10k crawl: error:") and message in last


def test_a_site_that_is_not_c10k_serve_is_crawled_by_one_process() -> None:
    with TinySite({"/": page("/a")}) as tiny:
        done = c10k_crawl(tiny.root, "--model", "threads", "--processes", "2")
        assert tiny.hits["/"] == 0  # nothing crawled
    message = "--processes 2 needs the project's own server: " + tiny.root + "__parts__"
    one_line_and_exit_2(done, message)


def test_a_site_of_another_number_of_parts_is_refused(site: str) -> None:
    done = c10k_crawl(site, "--model", "threads", "--processes", "2")
    one_line_and_exit_2(done, f"the site at {site} has 3 part(s); --processes 2 needs a site")
    done = c10k_crawl(site + "p/3/", "--model", "threads", "--processes", "3")
    one_line_and_exit_2(done, "--processes 3 crawls a site's parts from its root")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--processes", "0"], "--processes: must be at least 1"),
        (["--processes", "3", "--concurrency", "2"], "--processes 3 is more than --concurrency 2"),
        (["--processes", "2", "--max-pages", "5"], "--max-pages cannot be used with --processes"),
        (["--processes", "2", "--mark-crawl"], "--mark-crawl counts one process"),
        (["--connect-to", "127.0.0.2,localhost"], "not an IP address: 'localhost'"),
        (["--connect-to", "192.0.2.1"], "--connect-to 192.0.2.1 is not a loopback address"),
    ],
)
def test_mistakes_get_one_line_and_exit_2(args: list[str], message: str) -> None:
    one_line_and_exit_2(c10k_crawl("http://127.0.0.1:9/", "--model", "threads", *args), message)


def test_a_model_without_the_capability_is_refused_in_one_line() -> None:
    refusing = dataclasses.replace(MODELS["threads"], processes=False)
    args = crawl_parser().parse_args(["http://127.0.0.1:9/", "--model", "x", "--processes", "2"])
    with pytest.raises(UsageError, match=r"^model threads does not support --processes$"):
        check_processes(args, refusing)


def test_the_catalog_names_the_crawlers_that_refuse() -> None:
    refusing = [name for name, model in CRAWLERS.items() if not model.processes]
    # A peer runs as Scrapy does: one process; the interpreters model crawls parts itself.
    assert refusing == ["interpreters", "scrapy"]
    for name in refusing:
        if not CRAWLERS[name].missing() and not CRAWLERS[name].unavailable():  # else refused first
            done = c10k_crawl("http://127.0.0.1:9/", "--model", name, "--processes", "2")
            assert done.returncode == 2
            assert done.stderr.strip().endswith(f"model {name} does not support --processes")


def waiting_crawl(slow_site: str) -> tuple[subprocess.Popen[str], list[int]]:
    """A crawl of two parts whose pages answer after a minute; it and its children's PIDs,
    once both children wait for their pages."""
    get_json(slow_site + "__stats__/reset", method="POST")
    options = ("--processes", "2", "--concurrency", "4", "--timeout", "60", "--json")
    crawl = subprocess.Popen(
        python_command("crawl", slow_site, "--model", "asyncio", *options),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # SIGINT at its default, as under a terminal: a shell starts background jobs (CI's,
        # or pytest under nohup) with SIGINT ignored, and the crawler would inherit that.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    both_wait = wait_for(lambda: get_json(slow_site + "__stats__")["in_flight"] >= 4, 30)
    by_part = sorted(psutil.Process(crawl.pid).children(), key=lambda c: c.cmdline()[4])
    children = [child.pid for child in by_part]  # by the root each crawls
    if not both_wait:
        crawl.kill()
    assert both_wait, "the children did not reach their pages"
    assert len(children) == 2
    return crawl, children


def assert_ended(crawl: subprocess.Popen[str], children: list[int]) -> str:
    """The parent ends by itself, its children gone with it; its stderr."""
    try:
        _, stderr = crawl.communicate(timeout=60)  # a guard against a hang, not a measure
    except subprocess.TimeoutExpired:
        crawl.kill()
        for pid in children:
            psutil.Process(pid).kill()
        raise
    for pid in children:
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == "zombie"
    return stderr


def test_a_killed_child_stops_the_crawl_with_one_line(slow_site: str) -> None:
    crawl, children = waiting_crawl(slow_site)
    psutil.Process(children[1]).send_signal(signal.SIGKILL)
    stderr = assert_ended(crawl, children)
    assert crawl.returncode == 1
    (line,) = stderr.strip().splitlines()
    assert f"part 1 (pid {children[1]}, {slow_site}?part=1)" in line
    assert "exited with code -9" in line


def test_ctrl_c_stops_the_children(slow_site: str) -> None:
    crawl, children = waiting_crawl(slow_site)
    crawl.send_signal(signal.SIGINT)
    stderr = assert_ended(crawl, children)
    assert crawl.returncode == 130
    assert stderr.strip() == "c10k crawl: interrupted"


def test_a_child_that_cannot_start_stops_those_started_before(
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
    args.concurrency, args.core = 4, "c"
    roots = ["http://127.0.0.1:1/?part=0", "http://127.0.0.1:1/?part=1"]
    with contextlib.ExitStack() as files, pytest.raises(OSError, match="no more processes"):
        parts.start(args, roots, files)
    assert started[0].poll() is not None  # stopped, not left running
