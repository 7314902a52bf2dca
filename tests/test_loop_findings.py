"""Each finding of the catalog still holds: a case a model's failing_cases names, crawled with
a short timeout, ends in that timeout where the contract gives another outcome."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from c10k.catalog import MODELS
from impls.core.outcomes import Outcome
from tests.tinysite import RESET, TinySite, crawl, page, skip_if_missing

SHORT_TIMEOUT_S = 0.5


def refused_connect(model: str) -> dict[str, Outcome]:
    with TinySite({}) as site:
        root = site.root  # closed: nothing listens there now
    return crawl(model, root, max_tries=1, timeout=SHORT_TIMEOUT_S)


def reset(model: str) -> dict[str, Outcome]:
    with TinySite({"/": page("/r"), "/r": RESET}) as site:
        return crawl(model, site.root, max_tries=1, timeout=SHORT_TIMEOUT_S)


# Each case: how to crawl it, and what the contract says it gives.
CASES: dict[str, tuple[Callable[[str], dict[str, Outcome]], dict[str, Outcome]]] = {
    "refused-connect": (refused_connect, {"/": "error:connect"}),
    "reset": (reset, {"/": 200, "/r": "error:reset"}),
}
FOUND = [
    pytest.param(model.name, case, marks=skip_if_missing(model.name), id=f"{model.name}-{case}")
    for model in MODELS.values()
    for case in model.failing_cases
]


@pytest.mark.parametrize(("model", "case"), FOUND)
def test_a_case_the_catalog_says_a_model_fails_still_ends_in_the_timeout(
    model: str, case: str
) -> None:
    crawl_case, contract = CASES[case]
    found = crawl_case(model)
    # When this fails, the loop was fixed: take the case out of its catalog entry.
    wrong = {url for url, outcome in contract.items() if outcome != 200}
    assert found == {url: "error:timeout" if url in wrong else 200 for url in contract}


def test_every_failing_case_of_the_catalog_is_a_case_here() -> None:
    assert FOUND and {p.values[1] for p in FOUND} <= set(CASES)
