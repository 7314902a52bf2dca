"""What each subinterpreter of the interpreters model runs: the callbacks model on its part."""

# This module and all it imports load in a subinterpreter with its own GIL: the pure core
# only (impls/core/variants.py), so neither httptools nor selectolax, which refuse to.

from __future__ import annotations

import os
import resource
from typing import Any

from c10k.catalog import INTERPRETERS
from impls.cli.crawl import Clock
from impls.core import CrawlConfig, Frontier, ResourceLimit
from impls.models import callbacks

# The one key of a share's answer when a limit of the machine stopped its crawl.
LIMIT = "resource_limit"
# The start line's pipes, a share's ends: (where it says it is ready, where it waits to go).
StartLineEnds = tuple[int, int]


def crawl_share(config: CrawlConfig, start_line: StartLineEnds) -> dict[str, Any]:
    """Crawl the config's part with the callbacks model once every share is ready: the
    part's document, as a child of `--processes` prints it (less `connect_to`), or
    {LIMIT: why}. Its CPU is this thread's; its peak RSS the process's, shared by all."""
    frontier = Frontier(config)  # the core's imports, before the start line
    ready, go = start_line
    os.write(ready, b".")
    os.read(go, 1)  # b"" once the parent closes the other end: everyone goes
    clock = Clock(resource.RUSAGE_THREAD)
    try:
        callbacks.run(frontier)
    except ResourceLimit as exc:
        return {LIMIT: str(exc)}
    result = clock.document(frontier, INTERPRETERS.name)
    return result | {"pid": os.getpid(), "latencies_s": frontier.latencies}
