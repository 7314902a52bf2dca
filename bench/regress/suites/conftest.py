"""Fixtures of the benchmark suite: `c10k serve` subprocesses, started once and stopped."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest

from bench.harness.callgrind import InstructionCount
from bench.harness.site import ServeOptions, Server
from bench.regress.environment import ENVIRONMENT_KEY, current_environment
from bench.regress.suites.support import COUNTED, core_instruction_count, instruction_count
from c10k.catalog import CORE_REPLAY


def pytest_benchmark_update_machine_info(config: Any, machine_info: dict[str, Any]) -> None:
    # The crawlers run under this same interpreter (sys.executable), so this is theirs too.
    machine_info[ENVIRONMENT_KEY] = current_environment()


@pytest.fixture(scope="session")
def site() -> Iterator[Callable[[ServeOptions], Server]]:
    """A factory of running sites, one server process per configuration, stopped at the end."""
    running: dict[ServeOptions, Server] = {}

    def get(options: ServeOptions) -> Server:
        if options not in running:
            server = Server(options)
            server.start()
            running[options] = server
        return running[options]

    yield get
    for server in running.values():
        server.stop()


@pytest.fixture(scope="session")
def valgrind() -> None:
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed: no instruction counts")


@pytest.fixture(scope="session")
def counts(
    request: pytest.FixtureRequest, valgrind: None, site: Callable[[ServeOptions], Server]
) -> Iterator[dict[str, Future[InstructionCount]]]:
    """The session's counted crawls, every one a test asks for (a model's, or the core
    replay's), started together at the first one's turn and run one per CPU this process may
    use: a count does not depend on the machine's pace (support.COUNTED), and each spends
    seconds in valgrind."""
    server = site(COUNTED.site)

    def count(name: str) -> InstructionCount:
        if name == CORE_REPLAY:
            return core_instruction_count(server)
        return instruction_count(name, server, COUNTED.concurrency)

    def counted(item: pytest.Item) -> str:
        callspec = getattr(item, "callspec", None)
        return str(callspec.params["model"]) if callspec else CORE_REPLAY

    wanted = [
        counted(item)
        for item in request.session.items
        if "counts" in getattr(item, "fixturenames", ()) and not item.get_closest_marker("skip")
    ]
    pool = ThreadPoolExecutor(max_workers=len(os.sched_getaffinity(0)))
    try:
        yield {name: pool.submit(count, name) for name in dict.fromkeys(wanted)}
    finally:
        pool.shutdown(cancel_futures=True)
