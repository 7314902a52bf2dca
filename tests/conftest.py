"""A contract case that a model's catalog entry says it fails is not run on it: each such case
waits out its timeouts there; tests/test_loop_findings.py checks the finding itself, quickly."""

from __future__ import annotations

import pytest

from c10k import catalog


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        case = item.get_closest_marker("contract_case")
        params = getattr(item, "callspec", None)
        model = catalog.CRAWLERS.get(params.params.get("model", "")) if params else None
        if case and model and case.args[0] in model.failing_cases:
            reason = f"{model.name}: {model.finding}"
            item.add_marker(pytest.mark.xfail(run=False, reason=reason))
