"""The interpreters model: a part of the site per subinterpreter, its document, its refusal.

Its contract tests (the scenarios in both connection modes, the manifest at concurrency 1,
10 and 1,000) are the other models' (tests/test_crawl_scenarios.py and the rest read
catalog.MODELS); these check what it does apart from them. Before CPython 3.14 they check
the one-line refusal, and the parts' crawl with interpreters stood in for by threads.
"""

from __future__ import annotations

import dataclasses
import json
import signal
import subprocess
import sys
from collections.abc import Callable
from typing import Any, cast

import pytest

from bench.harness.runner import check_runs
from bench.interpreter import missing_models, python_command
from bench.results import Results
from c10k.catalog import INTERPRETERS, MODELS, SUBINTERPRETER
from impls.cli.options import crawl_parser
from impls.core import CrawlConfig, Frontier
from impls.core.frontier import shares
from impls.core.outcomes import PartFailed
from impls.models import interpreter_shares, interpreters
from impls.models.interpreter_shares import crawl_in_interpreters, part_configs
from server.site import Site
from server.site_params import SiteParams
from tests.server_helpers import get_json, serve_in_thread, serve_process, site_fixture, wait_for

TOO_OLD = INTERPRETERS.unavailable()  # None from 3.14 on
needs_subinterpreters = pytest.mark.skipif(TOO_OLD is not None, reason=TOO_OLD or "")
# A deep site in 3 parts with redirects, 404s and faults that are not retried: each URL
# asked once.
FAULTS = "500=0.02,garbage=0.01,truncate=0.01"
SITE = ("--pages", "150", "--parts", "3", "--latency", "0", "--faults", FAULTS)


def c10k_crawl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        python_command("crawl", *args), capture_output=True, text=True, timeout=120
    )


site = site_fixture(*SITE)


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
    too_old = {m.name for m in MODELS.values() if m.runtimes.oldest > sys.version_info[:2]}
    assert {name for name, why in unavailable.items() if why} == too_old
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


# -- the parts' crawl, with threads standing in for subinterpreters (any Python) -------------


class InThisInterpreter:
    """An interpreter that runs what it is given in the calling thread, in this one."""

    def call(self, function: Callable[..., Any], /, *args: Any) -> Any:
        return function(*args)

    def close(self) -> None:
        pass


@pytest.fixture
def in_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(interpreter_shares, "new_interpreter", InThisInterpreter)


def parted_site(parts: int = 3) -> Site:
    return Site(SiteParams(pages=90, links=4, seed=3, parts=parts, missing=0.05, error500=0.05))


@pytest.mark.usefixtures("in_threads")
def test_each_part_is_crawled_by_its_interpreter_and_merged() -> None:
    site = parted_site()
    with serve_in_thread(site) as srv:
        roots = [f"{srv.url}?part={k}" for k in range(3)]
        args = crawl_parser().parse_args([srv.url, "--model", INTERPRETERS.name])
        args.concurrency, args.core = 7, INTERPRETERS.core
        result = interpreters.crawl_parts(args, "127.0.0.1", roots)
        requests = srv.handler.stats.snapshot()["requests"]
    manifests = [site.manifest(root) for root in roots]
    assert result["fetched"] == {url: o for manifest in manifests for url, o in manifest.items()}
    assert requests == result["tries"] == result["pages"]  # each URL asked once
    entries = result["processes"]
    assert [p["root"] for p in entries] == roots
    assert [p["pages"] for p in entries] == [len(manifest) for manifest in manifests]
    assert [p["concurrency"] for p in entries] == shares(7, 3)
    assert {p["pid"] for p in entries} == {result["parent"]["pid"]}  # one process
    assert result["max_rss_kib"] == result["parent"]["max_rss_kib"]  # not summed
    assert result["cpu_user_s"] == sum(p["cpu_user_s"] for p in entries)
    assert result["parent"]["workers_cpu_user_s"] >= result["cpu_user_s"]
    assert (result["root"], result["options"]["core"]) == (srv.url, INTERPRETERS.core)


@pytest.mark.usefixtures("in_threads")
def test_in_process_one_interpreter_crawls_the_config() -> None:
    site = parted_site(parts=1)
    with serve_in_thread(site) as srv:
        frontier = Frontier(CrawlConfig(root=srv.url, connect_host="127.0.0.1"))
        interpreters.run(frontier)
    assert frontier.fetched == site.manifest(srv.url)
    assert frontier.tries == len(frontier.latencies) == len(frontier.fetched)


@pytest.mark.usefixtures("in_threads")
def test_an_interpreter_that_fails_fails_the_crawl_in_one_line() -> None:
    config = CrawlConfig(root="http://127.0.0.1:9/", connect_host="127.0.0.1")
    with pytest.raises(PartFailed) as failed:
        crawl_in_interpreters([dataclasses.replace(config, core="no-such-core")])
    message = str(failed.value)
    assert message.startswith("interpreter 0 exited before the crawl started and stopped: ")
    assert "unknown core 'no-such-core'" in message
    assert "\n" not in message and failed.value.exit_code == 1


def test_each_interpreter_gets_its_part_and_its_share() -> None:
    config = CrawlConfig(root="http://127.0.0.1:1/", concurrency=5, connect_host="127.0.0.1")
    roots = ["http://127.0.0.1:1/?part=0", "http://127.0.0.1:1/?part=1"]
    configs = part_configs(config, roots, ["127.0.0.2", "127.0.0.3", "127.0.0.4"])
    assert [(c.root, c.concurrency, c.connect_host) for c in configs] == [
        (roots[0], 3, "127.0.0.2"),
        (roots[1], 2, "127.0.0.3"),
    ]
    assert {c.core for c in configs} == {INTERPRETERS.core}


# -- from 3.14: the crawl across subinterpreters ----------------------------------------------


def document_of(site: str, *args: str) -> dict[str, Any]:
    done = c10k_crawl(site, "--json", *args)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@needs_subinterpreters
@pytest.mark.parametrize("keep_alive", [False, True], ids=["close", "keep-alive"])
def test_the_document_is_a_crawl_of_parts_and_the_parts_manifests(
    site: str, keep_alive: bool
) -> None:
    mode = ["--keep-alive"] if keep_alive else []
    ours = document_of(site, "--model", "interpreters", *mode)  # as many as the site's parts
    processes = document_of(site, "--model", "callbacks", "--processes", "3", *mode)
    assert ours["fetched"] == processes["fetched"]
    assert ours.keys() == processes.keys()
    assert ours["processes"][0].keys() == processes["processes"][0].keys()
    assert ours["parent"].keys() == processes["parent"].keys()
    parts = ours["processes"]
    assert [p["root"] for p in parts] == get_json(site + "__parts__")["roots"]
    assert {p["pid"] for p in parts} == {ours["parent"]["pid"]}  # one process
    assert ours["peak_in_flight"] == sum(p["peak_in_flight"] for p in parts) <= 10
    assert ours["max_rss_kib"] == ours["parent"]["max_rss_kib"]  # not summed
    assert ours["options"]["core"] == INTERPRETERS.core
    assert ours["model"] == INTERPRETERS.name


@needs_subinterpreters
def test_a_site_of_one_part_is_crawled_by_one_interpreter() -> None:
    with serve_process("--pages", "30", "--latency", "0") as (_, url):
        result = document_of(url, "--model", "interpreters")
        assert result["fetched"] == get_json(url + "__manifest__")["urls"]
    assert [p["root"] for p in result["processes"]] == [url]


@needs_subinterpreters
def test_another_number_of_interpreters_than_the_site_has_parts_is_refused(site: str) -> None:
    done = c10k_crawl(site, "--model", "interpreters", "--interpreters", "2")
    assert done.returncode == 2
    assert done.stderr.strip().endswith(
        f"the site at {site} has 3 part(s); --interpreters 2 needs a site served with --parts 2"
    )


@needs_subinterpreters
def test_the_summary_names_each_interpreter(site: str) -> None:
    done = c10k_crawl(site, "--model", "interpreters")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "3 interpreters" in lines[0]
    assert lines[4].endswith(" MiB")  # one process's RSS, not summed
    assert [line.split(" (pid")[0].strip() for line in lines[-3:]] == [
        f"interpreter {k}" for k in range(3)
    ]


@needs_subinterpreters
def test_ctrl_c_ends_the_process_and_every_interpreter() -> None:
    slow = ("--pages", "20", "--parts", "2", "--no-variety", "--latency", "60s", "--root-now")
    with serve_process(*slow) as (_, url):
        crawl = subprocess.Popen(
            python_command("crawl", url, "--model", "interpreters", "--timeout", "60"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            # SIGINT at its default, as under a terminal (see tests/test_processes.py).
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        waiting = wait_for(lambda: get_json(url + "__stats__")["in_flight"] >= 2, 30)
        crawl.send_signal(signal.SIGINT)
        try:
            _, stderr = crawl.communicate(timeout=60)  # a guard against a hang, not a measure
        except subprocess.TimeoutExpired:
            crawl.kill()
            raise
    assert waiting, "the interpreters did not reach their pages"
    assert crawl.returncode == 130
    assert stderr.strip() == "c10k crawl: interrupted"
