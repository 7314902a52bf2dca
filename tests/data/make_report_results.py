"""Make the report's recorded test results from a quick bench run (python -m, once, by hand).

    c10k bench --profile quick --out /tmp/q
    python -m tests.data.make_report_results /tmp/q/results.json

writes report-failures.json (every scenario, with failed, crashed, timed-out, skipped and
limit runs injected) and report-partial.json (an interrupted run: idle and few-active only).
Samples are cut to a few rows: the report never reads them.

    python -m tests.data.make_report_results --rederive

recomputes the derived section of both files from their runs (after bench/analysis/derive.py
changes), leaving the runs as they are; a file is read through bench.results.load, so an older
file is written back as the current schema.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any, cast

from bench import results
from bench.analysis.derive import derive, profiled_scenarios
from bench.results import Results

HERE = Path(__file__).parent
KEEP_SAMPLES = 3


def _trim(run: dict[str, Any]) -> None:
    samples = run.get("samples")
    if isinstance(samples, dict):
        run["samples"] = {k: v[:KEEP_SAMPLES] for k, v in samples.items()}
    idle = run.get("idle")
    if isinstance(idle, dict) and len(idle.get("points") or []) > 3:
        idle["points"] = idle["points"][:2] + idle["points"][-1:]


def _fail(run: dict[str, Any], status: str, reason: str, keep_crawl: bool) -> None:
    run["status"], run["reason"] = status, reason
    if not keep_crawl:
        for key in ("crawl", "plateau", "verification"):
            run.pop(key, None)
        run["exit_code"] = None if status == "timeout" else 1


def _find(runs: list[dict[str, Any]], prefix: str) -> dict[str, Any]:
    return next(r for r in runs if r["id"].startswith(prefix))


def _write(name: str, document: dict[str, Any]) -> None:
    # Fit memory per connection over every sleepy point: the quick profile's C stay below
    # the default's 1,000, and the charts need a fit to draw.
    profiled = profiled_scenarios(cast(Results, document))
    document["derived"] = derive(document["runs"], {"sleepy": 0}, document["environment"], profiled)
    results.write_atomic(HERE / name, document)


def rederive() -> None:
    for name in ("report-failures.json", "report-partial.json"):
        _write(name, dict(results.load(HERE / name)))


def main(source: Path) -> None:
    quick: dict[str, Any] = dict(results.load(source))
    for run in quick["runs"]:
        _trim(run)

    failures = copy.deepcopy(quick)
    runs = failures["runs"]
    _fail(
        _find(runs, "sleepy/asyncio/c100/"),
        "failed-verification",
        "server peak in flight 80 < 99 required",
        keep_crawl=True,
    )
    _fail(
        _find(runs, "few-active/threads/c4/"),
        "crashed",
        "exit 1: RuntimeError: can't start new thread",
        keep_crawl=False,
    )
    _fail(_find(runs, "latency-sweep/aiohttp/c20/s5/"), "timeout", "killed after 30 s", False)
    _fail(_find(runs, "realistic/aiohttp-uvloop/"), "skipped", "missing uvloop", False)
    _fail(_find(runs, "idle/uvloop-task/slope/"), "crashed", "exit 1: MemoryError", False)
    _fail(
        _find(runs, "sleepy/threads/c100/"),
        "limit",
        "exit 3: can't start new thread (vm.max_map_count)",
        keep_crawl=False,
    )
    _write("report-failures.json", failures)

    partial = copy.deepcopy(quick)
    partial["status"] = "interrupted"
    partial["runs"] = [r for r in partial["runs"] if r["scenario"] in ("idle", "few-active")]
    for run in partial["runs"]:
        if run["model"] == "aiohttp":
            _fail(run, "server-error", "the test server failed: address in use", False)
    _write("report-partial.json", partial)


if __name__ == "__main__":
    if sys.argv[1:] == ["--rederive"]:
        rederive()
    else:
        main(Path(sys.argv[1]))
