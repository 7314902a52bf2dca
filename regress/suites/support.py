"""The benchmark suite's pieces: fixed configurations, servers, verified crawls, callgrind."""

from __future__ import annotations

import json
import os
import re
import selectors
import subprocess
import sys
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from c10k import catalog

# Every child runs the working tree's `c10k` through the interpreter running the suite, so
# the suite needs no console script on PATH and never imports a crawler itself.
C10K = [sys.executable, "-m", "c10k.cli"]
CRAWL_TIMEOUT_S = 60.0
CALLGRIND_TIMEOUT_S = 300.0
SERVER_START_TIMEOUT_S = 30.0
# Repetitions of each wall-time measurement; `C10K_SUITE_ROUNDS=3 pytest regress/suites` to shorten.
ROUNDS = int(os.environ.get("C10K_SUITE_ROUNDS", "5"))


@dataclass(frozen=True)
class SiteConfig:
    """What `c10k serve` is started with."""

    shape: str
    pages: int
    latency: str

    def argv(self) -> list[str]:
        return ["--pages", str(self.pages), "--shape", self.shape, "--latency", self.latency]


@dataclass(frozen=True)
class CrawlConfig:
    """One fixed configuration of the suite: a site and a crawl concurrency."""

    name: str
    site: SiteConfig
    concurrency: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "config": self.name,
            "shape": self.site.shape,
            "site_pages": self.site.pages,
            "latency": self.site.latency,
            "concurrency": self.concurrency,
        }


@dataclass
class RunningSite:
    root: str
    manifest: dict[str, Any]
    process: subprocess.Popen[str]


class CrawlFailed(AssertionError):
    """A crawl that crashed or returned the wrong set of URLs: its numbers must not count."""


def read_first_line(process: subprocess.Popen[str], timeout: float) -> str:
    """The server's first stdout line (its root URL), without waiting forever for it."""
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(timeout):
            raise RuntimeError(f"c10k serve printed nothing within {timeout} s")
    return process.stdout.readline().strip()


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def start_site(config: SiteConfig) -> RunningSite:
    process = subprocess.Popen(
        [*C10K, "serve", "--port", "0", *config.argv()],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        root = read_first_line(process, SERVER_START_TIMEOUT_S)
        if not root.startswith("http://127."):
            raise RuntimeError(f"c10k serve did not print its root URL (got {root!r})")
        with urllib.request.urlopen(root + "__manifest__", timeout=30) as response:
            manifest = json.load(response)
    except BaseException:
        stop(process)
        raise
    return RunningSite(root, manifest["urls"], process)


def crawl_argv(model: str, root: str, concurrency: int) -> list[str]:
    return [*C10K, "crawl", root, "--model", model, "--concurrency", str(concurrency), "--json"]


def run_crawl(
    argv: list[str], manifest: dict[str, Any] | None, timeout: float, env: dict[str, str]
) -> dict[str, Any]:
    """Run one crawl subprocess, return its JSON document, verified against the manifest."""
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=timeout, env=env, check=False
    )
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1:] or ["(no stderr)"]
        raise CrawlFailed(f"crawl exited {done.returncode}: {last[0]}")
    document: dict[str, Any] = json.loads(done.stdout)
    if manifest is not None and document["fetched"] != manifest:
        raise CrawlFailed(
            f"{document['model']}: fetched {len(document['fetched'])} URLs, "
            f"the manifest has {len(manifest)}; they differ"
        )
    return document


def child_env() -> dict[str, str]:
    # A fixed hash seed makes set and dict orders, hence the instruction counts, repeatable.
    return {**os.environ, "PYTHONHASHSEED": "0"}


IR_PATTERN = re.compile(r"^summary:\s+(\d+)", re.MULTILINE)


def callgrind_instructions(argv: list[str], workdir: Path) -> tuple[int, dict[str, Any]]:
    """Instructions (Ir) that one crawl process executes under callgrind, and its document.

    Only the crawler runs under valgrind; the server is an ordinary process.
    """
    out_file = workdir / "callgrind.out"
    valgrind = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out_file}",
        "--trace-children=no",
    ]
    document = run_crawl([*valgrind, *argv], None, CALLGRIND_TIMEOUT_S, child_env())
    match = IR_PATTERN.search(out_file.read_text())
    if match is None:
        raise CrawlFailed(f"no 'summary:' line in {out_file}")
    out_file.unlink()
    return int(match.group(1)), document


@dataclass(frozen=True)
class InstructionCount:
    """Marginal instructions per page: the crawl minus a one-page crawl (start-up, imports)."""

    total_ir: int
    startup_ir: int
    pages: int

    @property
    def per_page(self) -> float:
        return (self.total_ir - self.startup_ir) / (self.pages - 1)


def run_site_crawl(model: str, running: RunningSite, concurrency: int) -> dict[str, Any]:
    """One crawl of a running site, verified against its manifest."""
    argv = crawl_argv(model, running.root, concurrency)
    return run_crawl(argv, running.manifest, CRAWL_TIMEOUT_S, child_env())


def instruction_count(model: str, running: RunningSite, concurrency: int) -> InstructionCount:
    """Callgrind counts of a full crawl and of a one-page crawl of the same site."""
    argv = crawl_argv(model, running.root, concurrency)
    with tempfile.TemporaryDirectory(prefix="c10k-callgrind-") as tmp:
        startup_ir, _ = callgrind_instructions([*argv, "--max-pages", "1"], Path(tmp))
        total_ir, document = callgrind_instructions(argv, Path(tmp))
    if document["fetched"] != running.manifest:
        raise CrawlFailed(f"{model} under callgrind fetched a different set of URLs")
    return InstructionCount(total_ir, startup_ir, int(document["pages"]))


def available_models() -> list[str]:
    """The registry's models whose dependencies are installed, asked of `c10k models`."""
    done = subprocess.run(
        [*C10K, "models", "--json"], capture_output=True, text=True, timeout=60, check=True
    )
    return [entry["name"] for entry in json.loads(done.stdout) if not entry["missing"]]


def idle_costs(kind: str, count: int, traced: bool) -> dict[str, Any] | None:
    """`python -m impls.idle`'s cost per unit of one kind; None where the kind is unavailable."""
    argv = [sys.executable, "-m", "impls.idle", "--kind", kind, "--count", str(count)]
    if traced:
        argv.append("--tracemalloc")
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=CRAWL_TIMEOUT_S, env=child_env(), check=False
    )
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1:] or ["(no stderr)"]
        raise CrawlFailed(f"impls.idle --kind {kind} exited {done.returncode}: {last[0]}")
    document: dict[str, Any] = json.loads(done.stdout)
    if not document["available"]:
        return None
    costs: dict[str, Any] = document["per_unit"]
    return costs


# The fixed configurations. Small enough that a round takes well under a second here.
DEEP = CrawlConfig("deep300-c10-lat0", SiteConfig("deep", 300, "0"), concurrency=10)
WIDE = CrawlConfig("wide300-c100-lat20ms", SiteConfig("wide", 300, "20ms"), concurrency=100)
CONFIGS = (DEEP, WIDE)
# Idle units parked by `python -m impls.idle` (kind -> count).
IDLE_KINDS = {k.name: k.suite_count for k in catalog.IDLE_KINDS.values() if k.suite_count}
