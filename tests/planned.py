"""A planned run for the tests that start a real crawl: one measured crawl at C 4."""

from __future__ import annotations

from bench.harness.plan import PlannedRun
from bench.harness.points import CrawlPoint
from bench.harness.site import ServeOptions
from c10k.entries import Scenario


def measured_crawl(
    scenario: Scenario, model: str, site: ServeOptions, estimate_s: float, counted: bool = False
) -> PlannedRun:
    """The first measured run of `model` at C 4 on `site`; counted: under callgrind."""
    return PlannedRun(
        id=f"{scenario.name}/{model}/c4/measured0",
        scenario=scenario.name,
        model=model,
        kind="measured",
        repetition=0,
        point=CrawlPoint(site, concurrency=4),
        estimate_s=estimate_s,
        counted=counted,
    )
