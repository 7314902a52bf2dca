"""c10k.stats' summaries and fits as the results document records them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from bench.results import FigureSummary, Fit
from c10k.fits import LinearFit
from c10k.stats import Interval, summarize


def summary_of(values: Sequence[float]) -> FigureSummary:
    """Median, spread and 95% interval of the finite values (c10k.stats.summarize)."""
    return cast(FigureSummary, summarize(values).as_dict())


def fit_of(fit: LinearFit) -> Fit:
    return cast(Fit, fit.as_dict())


def listed(interval: Interval | None) -> list[float] | None:
    """An interval as the document records it: [low, high], or None."""
    return None if interval is None else interval.as_list()
