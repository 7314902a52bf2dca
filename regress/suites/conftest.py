"""Fixtures of the benchmark suite: `c10k serve` subprocesses, started once and stopped."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator

import pytest

from regress.suites.support import RunningSite, SiteConfig, start_site, stop


@pytest.fixture(scope="session")
def site() -> Iterator[Callable[[SiteConfig], RunningSite]]:
    """A factory of running sites, one server process per configuration, stopped at the end."""
    running: dict[SiteConfig, RunningSite] = {}

    def get(config: SiteConfig) -> RunningSite:
        if config not in running:
            running[config] = start_site(config)
        return running[config]

    yield get
    for server in running.values():
        stop(server.process)


@pytest.fixture(scope="session")
def valgrind() -> None:
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed: no instruction counts")
