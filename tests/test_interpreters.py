"""The interpreters model: its partition across subinterpreters, its document, its refusal.

Its contract tests (the scenarios in both connection modes, the manifest at concurrency 1,
10 and 1,000) are the other models' (tests/test_crawl_scenarios.py and the rest read
catalog.MODELS); these check what it does apart from them. Before CPython 3.14 they check
the one-line refusal instead.
"""

from __future__ import annotations

import dataclasses
import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import Any, cast

import pytest

from bench.harness.check import check_runs
from bench.interpreter import missing_models, python_command
from bench.results import Results
from c10k.catalog import INTERPRETERS, SUBINTERPRETER
from c10k.system import usable_cores
from impls.core import CrawlConfig
from impls.core.partition import owner, shares
from impls.models.interpreter_shares import crawl_in_interpreters, share_configs
from impls.partition.coordinator import WorkerFailed
from tests.server_helpers import get_json, serve_process, wait_for
from tests.tinysite import HANG, TinySite, page

TOO_OLD = INTERPRETERS.too_old()  # None from 3.14 on
needs_subinterpreters = pytest.mark.skipif(TOO_OLD is not None, reason=TOO_OLD or "")
# A deep site with redirects, 404s and faults that are not retried: each URL asked once.
SITE = ("--pages", "150", "--latency", "0", "--faults", "500=0.02,garbage=0.01,truncate=0.01")


def c10k_crawl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        python_command("crawl", *args), capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve_process(*SITE) as (_, url):
        yield url


# -- before 3.14: refused, in one line, everywhere it is asked for ---------------------------


@pytest.mark.skipif(TOO_OLD is None, reason="this interpreter runs the model")
def test_an_older_interpreter_refuses_the_model_in_one_line() -> None:
    done = c10k_crawl("http://127.0.0.1:9/", "--model", INTERPRETERS.name)
    assert done.returncode == 2 and TOO_OLD is not None
    assert done.stderr.strip().splitlines() == [f"c10k crawl: error: {TOO_OLD}"]
    assert TOO_OLD.startswith("model interpreters needs CPython 3.14+ (concurrent.interpreters)")
    assert TOO_OLD.endswith(f"this is {sys.version.split()[0]}")


@pytest.mark.skipif(TOO_OLD is None, reason="this interpreter runs the model")
def test_an_older_interpreter_lists_the_model_unavailable_with_its_reason() -> None:
    rows = json.loads(subprocess.check_output(python_command("models", "--json"), timeout=60))
    unavailable = {row["name"]: row["unavailable"] for row in rows}
    assert unavailable[INTERPRETERS.name] == TOO_OLD
    assert {name for name, why in unavailable.items() if why} == {INTERPRETERS.name}
    # What the harness skips it with, in a runtime's venv or its own interpreter.
    assert missing_models([INTERPRETERS.name]) == {INTERPRETERS.name: TOO_OLD}


def skipped_run(version: str) -> dict[str, Any]:
    return {
        "id": "sleepy/interpreters/c100/x",
        "model": INTERPRETERS.name,
        "status": "skipped",
        "reason": "unavailable",
        "runtime": {"tag": version[:4], "version": version, "gil_disabled": False},
    }


def test_check_lets_a_run_pass_that_its_interpreter_is_too_old_for() -> None:
    ok = {"id": "a", "model": "asyncio", "status": "ok", "reason": ""}
    idle = skipped_run("3.11.7") | {"model": SUBINTERPRETER.name, "status": "unavailable"}
    document = cast(Results, {"runs": [ok, skipped_run("3.11.7"), idle]})
    assert check_runs(document) == 0
    # Skipped where it should have run: a failure.
    assert check_runs(cast(Results, {"runs": [ok, skipped_run("3.14.7")]})) == 1


# -- from 3.14: the crawl across subinterpreters ----------------------------------------------


@needs_subinterpreters
def test_each_url_is_fetched_once_by_the_interpreter_that_owns_it() -> None:
    routes = {"/": page(*(f"/p{n}" for n in range(30)))} | {
        f"/p{n}": page("/", f"/p{(n + 7) % 30}", f"/q{n}") for n in range(30)
    }
    with TinySite(routes) as tiny:
        config = CrawlConfig(root=tiny.root, connect_host="127.0.0.1", concurrency=7)
        crawled = crawl_in_interpreters(share_configs(config, 3))
        assert set(tiny.hits.values()) == {1}
    parts = crawled.documents
    assert [part["concurrency"] for part in parts] == shares(7, 3)
    assert [part["options"]["core"] for part in parts] == [INTERPRETERS.core] * 3
    for index, part in enumerate(parts):
        assert part["fetched"] and {owner(url, 3) for url in part["fetched"]} == {index}
    fetched = [url for part in parts for url in part["fetched"]]
    assert len(fetched) == len(set(fetched)) == 1 + 30 + 30  # the /q pages are 404s
    assert crawled.threads_cpu_user_s > sum(part["cpu_user_s"] for part in parts)


def document_of(site: str, *args: str) -> dict[str, Any]:
    done = c10k_crawl(site, "--json", *args)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@needs_subinterpreters
@pytest.mark.parametrize("keep_alive", [False, True], ids=["close", "keep-alive"])
def test_the_document_is_a_partitioned_crawls_and_the_manifest(site: str, keep_alive: bool) -> None:
    mode = ["--keep-alive"] if keep_alive else []
    ours = document_of(site, "--model", "interpreters", "--interpreters", "3", *mode)
    processes = document_of(site, "--model", "callbacks", "--processes", "2", *mode)
    assert ours["fetched"] == get_json(site + "__manifest__")["urls"]
    assert ours.keys() == processes.keys()
    assert ours["processes"][0].keys() == processes["processes"][0].keys()
    assert ours["coordinator"].keys() == processes["coordinator"].keys()
    parts = ours["processes"]
    assert [p["index"] for p in parts] == [0, 1, 2]
    assert {p["pid"] for p in parts} == {ours["coordinator"]["pid"]}  # one process
    assert ours["peak_in_flight"] == sum(p["peak_in_flight"] for p in parts) <= 10
    assert ours["max_rss_kib"] == ours["coordinator"]["max_rss_kib"]  # not summed
    assert ours["options"]["core"] == INTERPRETERS.core
    assert ours["model"] == INTERPRETERS.name


@needs_subinterpreters
def test_by_default_one_interpreter_per_usable_core_at_most_the_concurrency(site: str) -> None:
    for concurrency in (1, 5):
        result = document_of(site, "--model", "interpreters", "--concurrency", str(concurrency))
        assert len(result["processes"]) == min(usable_cores(), concurrency)


@needs_subinterpreters
def test_the_summary_names_each_interpreter(site: str) -> None:
    done = c10k_crawl(site, "--model", "interpreters", "--interpreters", "2")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "2 interpreters" in lines[0]
    assert lines[4].endswith(" MiB")  # one process's RSS, not summed
    assert [line.split(" (pid")[0].strip() for line in lines[-2:]] == [
        "interpreter 0",
        "interpreter 1",
    ]


@needs_subinterpreters
def test_an_interpreter_that_fails_fails_the_crawl_in_one_line() -> None:
    config = CrawlConfig(root="http://127.0.0.1:9/", connect_host="127.0.0.1")
    with pytest.raises(WorkerFailed) as failed:
        crawl_in_interpreters([dataclasses.replace(config, core="no-such-core")])
    message = str(failed.value)
    assert message.startswith("interpreter 0 exited before the crawl started and stopped: ")
    assert "ValueError: unknown core 'no-such-core'" in message
    assert "\n" not in message and failed.value.exit_code == 1


@needs_subinterpreters
def test_ctrl_c_stops_every_interpreter() -> None:
    with TinySite({"/": page("/h", "/a"), "/h": HANG}, hang_for=60) as tiny:
        crawl = subprocess.Popen(
            python_command("crawl", tiny.root, "--model", "interpreters", "--timeout", "60"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            # SIGINT at its default, as under a terminal (see tests/test_processes.py).
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        assert wait_for(lambda: tiny.hits["/h"] >= 1, 30), "the crawl did not reach the hang"
        crawl.send_signal(signal.SIGINT)
        try:
            _, stderr = crawl.communicate(timeout=60)  # a guard against a hang, not a measure
        except subprocess.TimeoutExpired:
            crawl.kill()
            raise
    assert crawl.returncode == 130
    assert stderr.strip() == "c10k crawl: interrupted"
