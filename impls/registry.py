"""The registry of crawler models: adding a model is one module and one line here."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass

from impls.core.frontier import Frontier

Runner = Callable[[Frontier], None]


@dataclass(frozen=True)
class Model:
    name: str
    entry: str  # "module:function"; the function takes a Frontier and crawls until done
    style: str
    requires: tuple[str, ...] = ()  # importable modules the model needs

    def missing(self) -> list[str]:
        """The required modules that cannot be imported here."""
        return [name for name in self.requires if importlib.util.find_spec(name) is None]

    def load(self) -> Runner:
        module_name, _, function = self.entry.partition(":")
        runner: Runner = getattr(importlib.import_module(module_name), function)
        return runner


MODELS: dict[str, Model] = {
    m.name: m
    for m in [
        Model("threads", "impls.threads:run", "blocking sockets, N threads, queue.Queue"),
        Model("callbacks", "impls.callbacks:run", "selectors loop, Fetcher callbacks"),
        Model("generators", "impls.generators:run", "yield-from coroutines, own Future/Task/loop"),
        Model("asyncio", "impls.asyncio_streams:run", "async/await, asyncio.Queue, streams"),
        Model(
            "asyncio-uvloop",
            "impls.asyncio_streams:run_uvloop",
            "the asyncio model on uvloop",
            ("uvloop",),
        ),
        Model(
            "aiohttp",
            "impls.aiohttp_client:run",
            "aiohttp.ClientSession, as in the chapter",
            ("aiohttp",),
        ),
        Model(
            "aiohttp-uvloop",
            "impls.aiohttp_client:run_uvloop",
            "the aiohttp model on uvloop",
            ("aiohttp", "uvloop"),
        ),
    ]
}
