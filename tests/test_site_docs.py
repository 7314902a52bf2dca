"""The docs shape: its manifest against an independent crawl of its HTML, its href forms,
its bodies, the docs preset on the command line, and deep and wide left as they were."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import re
from collections import deque

import pytest

from impls.core.frontier import is_html
from impls.core.links import extract_links
from impls.core.urls import Origin, resolve
from server.cli import parse_options
from server.site import Site
from server.site_params import FAULT_OUTCOMES, PRESETS, Outcome, SiteParams
from tests.server_helpers import (
    get_json,
    paths,
    raw_get,
    run_script_with_hashseed,
    serve_in_thread,
    serve_process,
)
from tests.tinysite import crawl, model_modes

ROOTS = ("http://127.0.0.1:8080/", "http://127.0.0.1/", "http://localhost:9000/")
# Every kind, spelling and fault at rates that show on 60 pages of 80 links.
BUSY = SiteParams(
    shape="docs",
    pages=60,
    links=80,
    body_size=3000,
    body_size_max=9000,
    slash_redirect=0.02,
    redirect_chain=0.01,
    redirect_cycle=0.01,
    missing=0.05,
    non_html=0.02,
    offsite=0.08,
    query=0.05,
    fragment=0.2,
    relative=0.5,
    absolute=0.3,
    odd_markup=0.1,
)
FAULTY = dataclasses.replace(
    BUSY, reset=0.05, hang=0.05, error500=0.05, truncate=0.03, garbage=0.03
)


def html_crawl(site: Site, root: str, max_redirect: int = 10) -> dict[str, Outcome]:
    """The contract's crawl over what the site serves, with the crawlers' own link
    extractor and URL resolution: independent of the model's link table."""
    origin = Origin(root)
    seen = {origin.root}
    frontier: deque[tuple[str, int]] = deque([(origin.root, max_redirect)])
    fetched: dict[str, Outcome] = {}
    while frontier:
        url, budget = frontier.popleft()
        resp = site.response(origin.request_target(url), origin.netloc)
        if resp.fault is not None:
            fetched[url] = FAULT_OUTCOMES[resp.fault]
            continue
        fetched[url] = resp.status
        headers = {k.lower(): v for k, v in resp.headers}
        targets: list[tuple[str | None, int]] = []
        if resp.status == 200 and is_html(headers.get("content-type")):
            targets = [(resolve(url, href), max_redirect) for href in extract_links(resp.body)]
        elif resp.status in (301, 302, 303, 307, 308) and "location" in headers and budget > 0:
            targets = [(resolve(url, headers["location"]), budget - 1)]
        for target, left in targets:
            if target is not None and origin.allows(target) and target not in seen:
                seen.add(target)
                frontier.append((target, left))
    return fetched


def all_html(site: Site, authority: str) -> str:
    pages = ["/"] + [site.page_path(i) for i in range(site.params.pages)]
    return "".join(site.response(p, authority).body.decode("utf-8", "replace") for p in pages)


# -- the manifest is what a crawl of the HTML finds ------------------------------------------


@pytest.mark.parametrize("root", ROOTS)
@pytest.mark.parametrize("params", [BUSY, FAULTY], ids=["variety", "faults"])
@pytest.mark.parametrize("seed", [1, 2])
def test_manifest_is_what_the_html_gives(root: str, params: SiteParams, seed: int) -> None:
    site = Site(dataclasses.replace(params, seed=seed))
    assert html_crawl(site, root) == site.manifest(root)


@pytest.mark.parametrize("max_redirect", [2, 0])
def test_manifest_with_a_small_redirect_budget(max_redirect: int) -> None:
    site = Site(dataclasses.replace(FAULTY, seed=3, redirect_chain=0.03))
    fifo = site.manifest(ROOTS[0], max_redirect)
    assert html_crawl(site, ROOTS[0], max_redirect) == fifo
    for seed in range(3):
        assert site.manifest(ROOTS[0], max_redirect, order=random.Random(seed)) == fifo


def test_plain_docs_site_and_its_order_independence() -> None:
    site = Site(SiteParams(shape="docs", pages=60, links=80, seed=4))
    fifo = site.manifest(ROOTS[0])
    assert html_crawl(site, ROOTS[0]) == fifo
    for seed in range(3):
        assert site.manifest(ROOTS[0], order=random.Random(seed)) == fifo
    got = paths(fifo, ROOTS[0])
    assert all(got[site.page_path(i)] in (200, *FAULT_OUTCOMES.values()) for i in range(60))


def test_port_80_links_are_on_the_site_only_on_port_80() -> None:
    site = Site(dataclasses.replace(BUSY, seed=5))
    on_80 = paths(site.manifest("http://127.0.0.1/"), "http://127.0.0.1/")
    on_8080 = paths(site.manifest(ROOTS[0]), ROOTS[0])
    assert set(on_8080) < set(on_80)  # the :80 links add URLs only where they are same-origin
    assert "http://127.0.0.1:80/docs/" in all_html(site, "127.0.0.1:8080")


@pytest.mark.parametrize("shape", ["deep", "wide", "docs"])
def test_hundreds_of_links_a_page(shape: str) -> None:
    site = Site(SiteParams(shape=shape, pages=30, links=400, seed=1, odd_markup=0.2))
    assert all(len(site.links(site.page_path(i))) >= 400 for i in range(30))
    assert html_crawl(site, ROOTS[0]) == site.manifest(ROOTS[0])


# -- what the pages look like ---------------------------------------------------------------

# Each href form of a docs site, as a pattern over the href values of its pages.
HREF_FORMS = {
    "../section/page.html": r"\.\./[a-z-]+/[a-z-]+\.html",
    "./page.html": r"\./[a-z-]+\.html",
    "page.html": r"[a-z-]+\.html",
    "page.html#fragment": r"[a-z./-]+\.html#.*",
    "../../docs/...": r"\.\./\.\./docs/.+",
    "../../../ (one .. too many)": r"\.\./\.\./\.\./.+",
    ". (section index)": r"\.",
    "./ (section index)": r"\./",
    "root-relative /docs/": r"/docs/.+",
    "http://AUTHORITY/": r"http://localhost:9000/.+",
    "HTTP://AUTHORITY/": r"HTTP://localhost:9000/.+",
    "HTTP://AUTHORITY upper-cased": r"HTTP://LOCALHOST:9000/.+",
    "http://HOST:80/": r"http://localhost:80/.+",
    "https://AUTHORITY/ (off-site)": r"https://localhost:9000/.+",
    "page.html?v=N": r".*\.html\?v=[0-9]",
    "?a=I&b=J (a bare query)": r"\?a=[0-9]+&b=[0-9]+",
    "query with &": r".*\?a=[0-9]+&b=[0-9]+",
    "Page.html (case)": r".*/?[A-Z][a-z-]+\.html",
    "pag%XX.html": r".*%[0-9A-F]{2}\.html",
    "page%2Ehtml": r".*%2Ehtml",
    "/docs/section (slash redirect)": r".*\.\./[a-z-]+|/docs/[a-z-]+",
    "redirect chain": r".*/r/[0-9]+/0",
    "non-HTML file": r".*/f/[0-9]+\.[a-z]+",
    "mailto:": r"mailto:.*",
    "javascript:": r"javascript:.*",
    "tel:": r"tel:.*",
    "other host": r"(https?:)?//(example|docs\.python|github|pypi).*",
    "other port": r"http://127\.0\.0\.1:9/.*",
}


def test_every_href_form_appears() -> None:
    site = Site(dataclasses.replace(BUSY, seed=6, pages=120))
    text = all_html(site, "localhost:9000")
    hrefs = set(extract_links(text.encode()))
    missing = [
        name for name, rx in HREF_FORMS.items() if not any(re.fullmatch(rx, h) for h in hrefs)
    ]
    assert not missing
    assert "&amp;b=" in text and "?a=" in text  # queries entity-encoded in the HTML
    got = paths(site.manifest(ROOTS[2]), ROOTS[2])
    # Case and percent-encoding variants are other URLs: fetched, and 404.
    variants = [p for p in got if "%" in p or re.search(r"/[A-Z][a-z-]+\.html$", p)]
    assert variants and all(got[p] == 404 for p in variants)
    assert any(re.fullmatch(r"/docs/[a-z-]+", p) and got[p] == 301 for p in got)
    assert any(p.endswith("/index.html") and got[p] == 200 for p in got)
    assert any(re.search(r"\.html\?v=[0-9]$", p) and got[p] == 200 for p in got)
    assert not any("/trap/" in p for p in got)


def test_traps_in_code_scripts_and_comments() -> None:
    site = Site(dataclasses.replace(PRESETS_DOCS, pages=30))
    body = site.response(site.page_path(5)).body
    assert b"<pre><code>" in body and b"&lt;a href=" in body
    assert re.search(rb"<script>[^<]*<a href=", body) or re.search(rb"<!--[^>]*<a href=", body)
    assert not any("/trap/" in href for href in extract_links(body))


def test_sidebar_is_the_same_bytes_across_a_section() -> None:
    site = Site(dataclasses.replace(PRESETS_DOCS, pages=60))
    docs = site.docs
    assert docs is not None

    def sidebar(i: int) -> bytes:
        body = site.response(site.page_path(i)).body
        return body[body.index(b"<nav") : body.index(b"</nav>")]

    first, second = docs.first[0], docs.first[1]
    assert len({sidebar(i) for i in range(first, second)}) == 1
    assert sidebar(first) != sidebar(second)
    hrefs = extract_links(sidebar(first + 1) + b"</nav>")
    assert len(hrefs) == docs.nav_len >= 50
    assert all(not h.startswith(("/", "http")) for h in hrefs)  # relative to the directory


PRESETS_DOCS = SiteParams(**PRESETS["docs"])


def test_preset_bodies_are_50_to_200_kb() -> None:
    site = Site(dataclasses.replace(PRESETS_DOCS, pages=80))
    sizes = [len(site.response(site.page_path(i)).body) for i in range(80)]
    assert all(50_000 <= n <= 200_000 for n in sizes)
    assert min(sizes) < 80_000 and max(sizes) > 170_000  # drawn per page across the range
    links = [len(extract_links(site.response(site.page_path(i)).body)) for i in range(80)]
    assert 280 <= sum(links) / len(links) <= 400


def digest(site: Site) -> str:
    h = hashlib.sha256(json.dumps(site.manifest(ROOTS[0]), sort_keys=True).encode())
    for i in range(site.params.pages):
        h.update(site.response(site.page_path(i), "127.0.0.1:8080").body)
    return h.hexdigest()


DIGEST_SCRIPT = """
import json, sys
from server.site import Site
from server.site_params import SiteParams
from tests.test_site_docs import digest
print(digest(Site(SiteParams(**json.loads(sys.argv[1])))))
"""


def test_docs_site_is_deterministic_across_processes() -> None:
    here = digest(Site(dataclasses.replace(FAULTY, seed=7)))
    assert digest(Site(dataclasses.replace(FAULTY, seed=7))) == here
    assert digest(Site(dataclasses.replace(FAULTY, seed=8))) != here
    params = json.dumps(dataclasses.asdict(dataclasses.replace(FAULTY, seed=7)))
    for hashseed in ("1", "4242"):
        assert run_script_with_hashseed(DIGEST_SCRIPT, params, hashseed) == here


# Digests of the deep and wide sites: the regression baselines and the committed report
# depend on these bytes, so no other shape may change them. A change here is a new site.
UNCHANGED = {
    "deep": "99eb7f8b2ee608ceea871cc83deac1b9321f551140717e9f69e0f4c8720d82d2",
    "wide": "e82fb9d4fb9bf1b6c10e03fadd409f68f030eb0cb092053e6e531b26f4fdf01e",
}


@pytest.mark.parametrize("shape", ["deep", "wide"])
def test_deep_and_wide_are_unchanged(shape: str) -> None:
    assert digest(Site(SiteParams(pages=300, shape=shape, seed=0))) == UNCHANGED[shape]


# -- served over sockets, and crawled ---------------------------------------------------------


def test_server_answers_every_docs_url_as_the_model_says() -> None:
    site = Site(dataclasses.replace(BUSY, seed=9))
    with serve_in_thread(site) as srv:
        authority = srv.url.split("/")[2]
        urls = paths(site.manifest(srv.url), srv.url)
        assert any("%2E" in p for p in urls) and any("index.html" in p for p in urls)
        for path in urls:
            reply = raw_get(srv.url, path)
            expected = site.response(path, authority)
            assert (reply.error, reply.status, reply.body) == (None, expected.status, expected.body)


@pytest.mark.contract_case("reset")
@pytest.mark.parametrize(("model", "keep_alive"), model_modes())
def test_models_crawl_a_docs_site_exactly(model: str, keep_alive: bool) -> None:
    site = Site(dataclasses.replace(FAULTY, seed=10, pages=40, hang=0.0))
    with serve_in_thread(site) as srv:
        fetched = crawl(model, srv.url, keep_alive=keep_alive)
        assert fetched == paths(site.manifest(srv.url), srv.url)


# -- the command line ---------------------------------------------------------------------


def test_preset_docs_and_explicit_options_override_it() -> None:
    assert parse_options(["--preset", "docs"]).params == PRESETS_DOCS
    for argv in (["--pages", "40", "--preset", "docs"], ["--preset", "docs", "--pages", "40"]):
        params = parse_options(argv).params
        assert (params.shape, params.pages, params.links) == ("docs", 40, 300)
    params = parse_options(["--preset", "docs", "--body-size", "4KiB"]).params
    assert (params.body_size, params.body_size_max) == (4096, 0)
    params = parse_options(["--shape", "docs", "--body-size", "10k..20k"]).params
    assert (params.body_size, params.body_size_max, params.links) == (10_000, 20_000, 10)
    params = parse_options(["--preset", "docs", "--ratio", "relative=0.1"]).params
    assert (params.relative, params.absolute) == (0.1, PRESETS_DOCS.absolute)
    params = parse_options(["--no-variety", "--preset", "docs"]).params
    assert params.relative == params.offsite == 0.0 and params.links == 300


def test_serve_preset_docs_end_to_end() -> None:
    with serve_process("--preset", "docs", "--pages", "24", "--links", "60") as (_, url):
        params = parse_options(["--preset", "docs", "--pages", "24", "--links", "60"]).params
        site = Site(params)
        assert get_json(url + "__manifest__")["urls"] == site.manifest(url)
        page = site.page_path(3)
        assert raw_get(url, page).body == site.response(page, url.split("/")[2]).body
