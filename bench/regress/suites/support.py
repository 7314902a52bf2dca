"""The benchmark suite's pieces: fixed configurations, verified crawls, callgrind, idle costs."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bench.harness import callgrind
from bench.harness.callgrind import InstructionCount
from bench.harness.commands import IDLE_PROGRAM, crawl_argv, idle_argv
from bench.harness.heap import PINNED_MALLOC
from bench.harness.points import IdleSpec
from bench.harness.recipes import recorded_replay
from bench.harness.site import ServeOptions, Server
from bench.interpreter import listed_models
from bench.regress.environment import current_environment, file_slug
from c10k import catalog
from c10k.durations import Latency

CRAWL_TIMEOUT_S = 60.0
CALLGRIND_TIMEOUT_S = 300.0
# Repetitions of each wall-time measurement; set C10K_SUITE_ROUNDS=3 to shorten.
ROUNDS = int(os.environ.get("C10K_SUITE_ROUNDS", "5"))


@dataclass(frozen=True)
class SuiteConfig:
    """One fixed configuration of the suite: a site and a crawl concurrency."""

    name: str
    site: ServeOptions
    concurrency: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "config": self.name,
            "shape": self.site.shape,
            "site_pages": self.site.pages,
            "latency": self.site.latency.text,
            "concurrency": self.concurrency,
        }


class CrawlFailed(AssertionError):
    """A crawl that crashed or returned the wrong set of URLs: its numbers must not count."""


def json_of(argv: list[str], timeout: float, env: dict[str, str], what: str) -> dict[str, Any]:
    """The JSON document a program prints; CrawlFailed, with its last line of stderr, when it
    exits with an error."""
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=timeout, env=env, check=False
    )
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1:] or ["(no stderr)"]
        raise CrawlFailed(f"{what} exited {done.returncode}: {last[0]}")
    document: dict[str, Any] = json.loads(done.stdout)
    return document


def run_crawl(
    argv: list[str], manifest: dict[str, Any] | None, timeout: float, env: dict[str, str]
) -> dict[str, Any]:
    """Run one crawl subprocess, return its JSON document, verified against the manifest."""
    document = json_of(argv, timeout, env, "crawl")
    if manifest is not None and document["fetched"] != manifest:
        raise CrawlFailed(
            f"{document['model']}: fetched {len(document['fetched'])} URLs, "
            f"the manifest has {len(manifest)}; they differ"
        )
    return document


# glibc's heap set by fixed values, not by what the process did while starting: the mmap
# and trim thresholds at glibc's starting values (set, they no longer adjust themselves
# after the first large free) and the top pad at its default, so each counted crawl grows
# and trims its heap at the same points, whatever the install or the run before.
COUNTED_MALLOC = {**PINNED_MALLOC, "MALLOC_TOP_PAD_": "131072"}


def counted_env() -> dict[str, str]:
    """The environment of a crawl under callgrind: the fixed hash seed, glibc's heap pinned."""
    return {**callgrind.counted_env(), **COUNTED_MALLOC}


def counted_crawl(argv: list[str], server: Server, what: str) -> InstructionCount:
    """One crawl under callgrind, cut at its marks (argv carries --mark-crawl), verified."""
    with tempfile.TemporaryDirectory(prefix="c10k-callgrind-") as tmp:
        out_file = Path(tmp) / "callgrind.out"
        command = [*callgrind.callgrind_argv(out_file), *argv]
        document = run_crawl(command, None, CALLGRIND_TIMEOUT_S, counted_env())
        count = callgrind.read_count(out_file, int(document["pages"]))
    if document["fetched"] != server.manifest["urls"]:
        raise CrawlFailed(f"{what} under callgrind fetched a different set of URLs")
    return count


def run_site_crawl(model: str, server: Server, concurrency: int) -> dict[str, Any]:
    """One crawl of a running site, verified against its manifest."""
    argv = crawl_argv(server.root, model, concurrency)
    # The counted runs' fixed hash seed everywhere: set and dict orders repeat.
    return run_crawl(argv, server.manifest["urls"], CRAWL_TIMEOUT_S, callgrind.counted_env())


def instruction_count(model: str, server: Server, concurrency: int) -> InstructionCount:
    """Callgrind's count of the crawl alone (start-up and exit cut off at the marks)."""
    argv = crawl_argv(server.root, model, concurrency, mark_crawl=True)
    return counted_crawl(argv, server, model)


def core_instruction_count(server: Server) -> InstructionCount:
    """The same for the core alone: the site's recorded responses replayed with no I/O."""
    with tempfile.TemporaryDirectory(prefix="c10k-replay-") as tmp:
        argv, failed = recorded_replay(server, Path(tmp), CRAWL_TIMEOUT_S)
        if failed is not None:
            how = "killed at the timeout" if failed.code is None else f"exit {failed.code}"
            raise CrawlFailed(f"recording the site: {how}: {failed.stderr_tail.strip()}")
        return counted_crawl(argv, server, "the replay")


def available_models() -> list[str]:
    """The catalog's models that run here (dependencies installed, interpreter new enough),
    asked of `c10k models`; never a peer (Scrapy): the regression gate judges the models only."""
    return [
        entry["name"]
        for entry in listed_models()
        if not entry["missing"] and not entry.get("peer") and not entry.get("unavailable")
    ]


NOT_IN_BASELINE = "not in this environment's baseline, nothing to compare (tox -e baseline)"


def suite_models() -> list[Any]:
    """available_models() as the suite's parameters. Under the gate (C10K_GATE_BASELINES
    names the baselines' folder), a model this environment's baseline lacks is a skipped test
    that says so: it has nothing to be compared with until `tox -e baseline` takes it in."""
    held = baseline_models(os.environ.get("C10K_GATE_BASELINES"))
    return [
        model
        if held is None or model in held
        else pytest.param(model, marks=pytest.mark.skip(reason=f"{model}: {NOT_IN_BASELINE}"))
        for model in available_models()
    ]


def baseline_models(folder: str | None) -> set[str] | None:
    """The models in the folder's baseline for this environment; None (every model runs,
    and the comparison says why) without a folder, or a readable baseline for this
    environment that holds a model."""
    if not folder:
        return None
    try:
        path = Path(folder) / file_slug(current_environment())
        entries = json.loads(path.read_text())["benchmarks"]
        held = {e["extra_info"]["model"] for e in entries if "model" in e.get("extra_info", {})}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return held or None


def idle_costs(kind: str, count: int, traced: bool) -> dict[str, Any] | None:
    """The idle program's cost per unit of one kind; None where the kind is unavailable."""
    argv = idle_argv(IdleSpec(kind, count, "tracemalloc" if traced else "slope"))
    env = callgrind.counted_env()
    document = json_of(argv, CRAWL_TIMEOUT_S, env, f"{IDLE_PROGRAM} --kind {kind}")
    if not document["available"]:
        return None
    costs: dict[str, Any] = document["per_unit"]
    return costs


TWENTY_MS = Latency("fixed", 0.02)
# The fixed configurations. Small enough that a round takes well under a second here.
# Seed 0 is `c10k serve`'s default: the sites the baselines were measured on.
DEEP = SuiteConfig(
    "deep300-c10-lat0", ServeOptions(pages=300, shape="deep", seed=0), concurrency=10
)
WIDE = SuiteConfig(
    "wide300-c100-lat20ms",
    ServeOptions(pages=300, shape="wide", seed=0, latency=TWENTY_MS),
    concurrency=100,
)
CONFIGS = (DEEP, WIDE)
# The counted crawls' configuration: a deep site of 100 pages, every response (the root's
# too) 20 ms late, one page at a time. The crawler is then always waiting when its answer
# comes, so each fetch takes the same path through its loop whatever the machine's load (or
# valgrind's pace), and no poll, timer or task order depends on the moment. Its counts repeat
# to within a fraction of the 3% gate (docs/notes/2026-11-29-gate-size.md: 0.01-0.08% at
# 100 pages), and 100 pages take a third of the waiting.
COUNTED = SuiteConfig(
    "deep100-c1-lat20ms",
    ServeOptions(pages=100, shape="deep", seed=0, latency=TWENTY_MS),
    concurrency=1,
)
# Idle units parked by the idle program (kind -> count).
IDLE_KINDS = {k.name: k.suite_count for k in catalog.IDLE_KINDS.values() if k.suite_count}
