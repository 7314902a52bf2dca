"""Benchmarks: each model's crawl, its instructions per page, idle units (docs/regression.md)."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import pytest

from bench.harness import callgrind
from bench.harness.callgrind import InstructionCount
from bench.harness.site import Server
from bench.regress.suites.support import (
    CONFIGS,
    COUNTED,
    COUNTED_MALLOC,
    IDLE_KINDS,
    ROUNDS,
    SuiteConfig,
    idle_costs,
    run_site_crawl,
    suite_models,
)
from c10k import catalog

MODELS = suite_models()


def record(benchmark: Any, info: dict[str, Any], samples: dict[str, list[float]]) -> None:
    benchmark.extra_info.update(info)
    benchmark.extra_info["samples"] = samples
    benchmark.extra_info["figures"] = {
        name: statistics.median(values) for name, values in samples.items()
    }


def record_instructions(
    benchmark: Any, model: str, count_once: Callable[[], InstructionCount]
) -> None:
    """One callgrind count on the counted configuration, in the instructions group: the figure
    is in extra_info (the timing pytest-benchmark records is valgrind's, and means nothing)."""
    benchmark.group = f"instructions {COUNTED.name}"
    counts: list[InstructionCount] = []
    benchmark.pedantic(lambda: counts.append(count_once()), rounds=1, iterations=1)
    count = counts[0]
    info = {
        **COUNTED.as_dict(),
        "model": model,
        "pages": count.pages,
        "crawl_ir": count.crawl_ir,
        "startup_ir": count.startup_ir,
        "exit_ir": count.exit_ir,
        "pythonhashseed": int(callgrind.HASH_SEED),
        "malloc": dict(COUNTED_MALLOC),
    }
    record(benchmark, info, {"instructions_per_page": [count.per_page]})


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.name)
@pytest.mark.parametrize("model", MODELS)
def test_crawl(benchmark: Any, site: Any, model: str, config: SuiteConfig) -> None:
    """Wall time of one whole crawl process; CPU, throughput and memory figures beside it."""
    benchmark.group = f"crawl {config.name}"
    server: Server = site(config.site)
    documents: list[dict[str, Any]] = []

    def crawl_once() -> None:
        documents.append(run_site_crawl(model, server, config.concurrency))

    benchmark.pedantic(crawl_once, rounds=ROUNDS, iterations=1)
    # max_rss_kib is the process's peak, imports included: a regression check on the whole
    # footprint, not memory per connection (the harness's sleepy scenario fits that slope).
    samples: dict[str, list[float]] = {
        "pages_per_s": [d["pages_per_s"] for d in documents],
        "cpu_us_per_page": [d["cpu_us_per_page"] for d in documents],
        "crawl_wall_s": [d["wall_s"] for d in documents],
        "max_rss_kib": [d["max_rss_kib"] for d in documents],
    }
    info = {**config.as_dict(), "model": model, "pages": documents[0]["pages"]}
    record(benchmark, info, samples)


@pytest.mark.deterministic
@pytest.mark.timeout(900)  # the session's counted crawls under callgrind: minutes in all
@pytest.mark.parametrize("model", MODELS)
def test_instructions(
    benchmark: Any, counts: dict[str, Future[InstructionCount]], model: str
) -> None:
    """Instructions per page under callgrind: the figure that holds still on a busy machine
    (one page at a time against a site whose every answer is late: support.COUNTED)."""
    record_instructions(benchmark, model, counts[model].result)


@pytest.mark.deterministic
@pytest.mark.timeout(900)
def test_core_instructions(benchmark: Any, counts: dict[str, Future[InstructionCount]]) -> None:
    """Instructions per page of the core alone (parser, links, URLs, frontier), no I/O: the
    counted configuration's responses replayed by `python -m impls.tools.replay`, the part of
    every raw-socket model's count that is not its own (model "core-replay" in their group)."""
    record_instructions(benchmark, catalog.CORE_REPLAY, counts[catalog.CORE_REPLAY].result)


@pytest.mark.deterministic
@pytest.mark.parametrize("kind", IDLE_KINDS)
def test_idle(benchmark: Any, kind: str) -> None:
    """Memory per idle unit (thread, task, coroutine): RSS slope and tracemalloc slope."""
    benchmark.group = "idle"
    count = IDLE_KINDS[kind]
    rss: list[float] = []
    traced: list[float] = []

    def park_once() -> None:
        costs = idle_costs(kind, count, traced=False)
        if costs is None:
            pytest.skip(f"{kind} is not available here")
        rss.append(costs["rss_bytes"])

    def trace_once() -> None:  # untimed: tracemalloc slows the parking down
        costs = idle_costs(kind, count, traced=True)
        if costs is not None:
            traced.append(costs["tracemalloc_bytes"])

    benchmark.pedantic(park_once, setup=trace_once, rounds=ROUNDS, iterations=1)
    samples = {"rss_bytes_per_unit": rss, "tracemalloc_bytes_per_unit": traced}
    record(benchmark, {"kind": kind, "count": count}, samples)
