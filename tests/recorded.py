"""Hand-made runs (plain JSON, as results.json holds them) through the typed analysis."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from bench.analysis import derive as analysis
from bench.results import Environment, Run


def runs_of(found: Sequence[Mapping[str, Any]]) -> list[Run]:
    """Hand-made run records as the typed runs of a results document."""
    return cast(list[Run], list(found))


def derive(
    runs: Sequence[Mapping[str, Any]],
    fit_min: Mapping[str, int],
    environment: Mapping[str, Any] | None = None,
) -> Any:
    """bench.analysis.derive.derive of hand-made runs, the figures read back as JSON."""
    return analysis.derive(runs_of(runs), fit_min, cast(Environment | None, environment))
