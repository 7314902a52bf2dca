"""Every name of the catalog has its chart style and its costs for the plan: none falls back."""

from __future__ import annotations

import pytest

from bench.harness import costs
from bench.harness.points import CrawlPoint, IdleSpec
from bench.harness.site import ServeOptions
from bench.report import palette
from c10k import catalog


def test_every_crawler_and_idle_kind_has_its_style() -> None:
    assert set(palette.CRAWLER_STYLES) == set(catalog.CRAWLERS)
    assert set(palette.IDLE_STYLES) == set(catalog.IDLE_KINDS)


def test_every_crawler_the_replay_and_idle_kind_has_its_costs() -> None:
    assert set(costs.CRAWL_COSTS) == {*catalog.CRAWLERS, catalog.CORE_REPLAY}
    assert set(costs.IDLE_START_S) == set(catalog.IDLE_KINDS)


def test_a_catalog_name_missing_from_the_tables_fails_rather_than_falls_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    name = catalog.TRIO.name
    monkeypatch.delitem(palette.CRAWLER_STYLES, name)
    monkeypatch.delitem(costs.CRAWL_COSTS, name)
    with pytest.raises(KeyError):
        palette.style(name)
    with pytest.raises(KeyError):
        CrawlPoint(ServeOptions(pages=10), concurrency=2).estimate_s(name)
    monkeypatch.delitem(costs.IDLE_START_S, catalog.GREENLET.name)
    with pytest.raises(KeyError):
        IdleSpec(catalog.GREENLET.name, count=10).estimate_s()


def test_only_a_name_the_catalog_does_not_know_gets_the_fallbacks() -> None:
    assert palette.style("not-a-model") == palette.style(catalog.CPU_LOOP)
    assert palette.style("not-a-model") not in palette.CRAWLER_STYLES.values()
    assert costs.native_costs("not-a-model") == (
        costs.UNKNOWN.startup_s,
        costs.UNKNOWN.cpu_per_page_s,
    )


def test_an_idle_kind_is_drawn_like_the_model_that_parks_work_that_way() -> None:
    assert palette.style(catalog.THREAD.name) == palette.style(catalog.THREADS.name)
    assert palette.style(catalog.GREENLET.name) == palette.style(catalog.GEVENT.name)
