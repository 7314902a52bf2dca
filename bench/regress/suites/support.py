"""The benchmark suite's pieces: fixed configurations, verified crawls, callgrind, idle costs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.harness.plan import IdleSpec
from bench.harness.processes import listed_models
from bench.harness.recipes import crawl_argv, idle_argv, replay_argv, replay_record_argv
from bench.harness.site import ServeOptions, Server
from c10k import catalog

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
            "latency": self.site.latency,
            "concurrency": self.concurrency,
        }


class CrawlFailed(AssertionError):
    """A crawl that crashed or returned the wrong set of URLs: its numbers must not count."""


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


def run_site_crawl(model: str, server: Server, concurrency: int) -> dict[str, Any]:
    """One crawl of a running site, verified against its manifest."""
    argv = crawl_argv(server.root, model, concurrency)
    return run_crawl(argv, server.manifest["urls"], CRAWL_TIMEOUT_S, child_env())


def instruction_count(model: str, server: Server, concurrency: int) -> InstructionCount:
    """Callgrind counts of a full crawl and of a one-page crawl of the same site."""
    return counted_run(crawl_argv(server.root, model, concurrency), server, model)


def core_instruction_count(server: Server) -> InstructionCount:
    """The same for the core alone: the site's recorded responses replayed with no I/O."""
    with tempfile.TemporaryDirectory(prefix="c10k-replay-") as tmp:
        urls, recording = Path(tmp) / "urls.json", Path(tmp) / "site.rec"
        urls.write_text(json.dumps(server.manifest["urls"]))
        argv = replay_record_argv(server.root, str(urls), str(recording))
        subprocess.run(argv, capture_output=True, timeout=CRAWL_TIMEOUT_S, check=True)
        return counted_run(replay_argv(str(recording)), server, "the core replay")


def counted_run(argv: list[str], server: Server, what: str) -> InstructionCount:
    with tempfile.TemporaryDirectory(prefix="c10k-callgrind-") as tmp:
        startup_ir, _ = callgrind_instructions([*argv, "--max-pages", "1"], Path(tmp))
        total_ir, document = callgrind_instructions(argv, Path(tmp))
    if document["fetched"] != server.manifest["urls"]:
        raise CrawlFailed(f"{what} under callgrind fetched a different set of URLs")
    return InstructionCount(total_ir, startup_ir, int(document["pages"]))


def available_models() -> list[str]:
    """The catalog's models whose dependencies are installed, asked of `c10k models`."""
    return [entry["name"] for entry in listed_models() if not entry["missing"]]


def idle_costs(kind: str, count: int, traced: bool) -> dict[str, Any] | None:
    """`python -m impls.idle`'s cost per unit of one kind; None where the kind is unavailable."""
    argv = idle_argv(IdleSpec(kind, count, "tracemalloc" if traced else "slope"))
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
# Seed 0 is `c10k serve`'s default: the sites the baselines were measured on.
DEEP = SuiteConfig(
    "deep300-c10-lat0", ServeOptions(pages=300, shape="deep", seed=0, latency="0"), concurrency=10
)
WIDE = SuiteConfig(
    "wide300-c100-lat20ms",
    ServeOptions(pages=300, shape="wide", seed=0, latency="20ms"),
    concurrency=100,
)
CONFIGS = (DEEP, WIDE)
# Idle units parked by `python -m impls.idle` (kind -> count).
IDLE_KINDS = {k.name: k.suite_count for k in catalog.IDLE_KINDS.values() if k.suite_count}
