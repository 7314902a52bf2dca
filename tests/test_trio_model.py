"""What the trio and asyncio models share: a failing worker's exception leaves the nursery
or task group unwrapped (the crawl that runs out of descriptors:
tests/test_out_of_descriptors.py)."""

from __future__ import annotations

from impls.core import ResourceLimit
from impls.core.outcomes import first_failure


def test_first_failure_is_the_first_leaf_of_nested_groups() -> None:
    limit = ResourceLimit("out of file descriptors")
    nested = BaseExceptionGroup("outer", [ExceptionGroup("inner", [limit, ValueError()])])
    assert first_failure(nested) is limit
    assert first_failure(limit) is limit
