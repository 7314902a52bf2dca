"""CPython 3.14's subinterpreters (concurrent.interpreters), typed for a 3.11 mypy."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Protocol, cast


class Interpreter(Protocol):
    """What the suite uses of concurrent.interpreters.Interpreter, typed here: mypy checks
    the project against 3.11, which has no such module."""

    def call(self, callable: Callable[..., Any], /, *args: Any) -> Any:
        """Run callable(*args) in the interpreter, in this thread (pickled across, both ways)."""

    def exec(self, code: str, /) -> None:
        """Run source code in the interpreter's __main__, in this thread."""

    def close(self) -> None: ...


def new_interpreter() -> Interpreter:
    """A subinterpreter with a GIL of its own (concurrent.interpreters.create(): 3.14+)."""
    return cast(Interpreter, importlib.import_module("concurrent.interpreters").create())
