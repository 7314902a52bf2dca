"""Fixtures of the benchmark suite: `c10k serve` subprocesses, started once and stopped."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from bench.harness.site import ServeOptions, Server
from bench.regress.environment import ENVIRONMENT_KEY, current_environment


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
