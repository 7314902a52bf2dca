"""The stages cross only through files and argv: no stage imports the code of another
(docs/architecture.md), and impls/core imports no I/O."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# A folder, and the packages its modules may never import.
FORBIDDEN = {
    "bench/report": ("bench.harness", "bench.analysis", "bench.runtimes", "impls", "server"),
    "bench/harness": ("bench.report",),
    "bench/analysis": ("bench.harness", "bench.report", "impls", "server"),
    "bench/results": ("bench.harness", "bench.report", "bench.analysis", "impls", "server"),
    "impls/core": ("socket", "selectors", "threading", "asyncio", "bench", "server"),
    "server": ("bench", "impls"),
}


def imported(path: Path) -> set[str]:
    """Every module a file imports, at any depth of its code."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_a_stage_imports_no_other_stage(folder: str) -> None:
    crossing = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted((ROOT / folder).rglob("*.py"))
        for name in sorted(imported(path))
        if any(name == banned or name.startswith(banned + ".") for banned in FORBIDDEN[folder])
    ]
    assert not crossing, crossing
