"""The site model: ratios, determinism, and the manifest on hand-built and seeded sites."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import random
from collections import Counter

import pytest

from server.site import Site
from server.site_params import FAULT_KINDS, FAULT_OUTCOMES, PRESETS, SLOT_KINDS, SiteParams
from tests.server_helpers import (
    ROOT,
    make_site,
    paths,
    reference_crawl,
    run_script_with_hashseed,
)

# Every kind of variety and fault at once, at rates high enough to show in 300 pages.
BUSY = SiteParams(
    slash_redirect=0.05,
    redirect_chain=0.03,
    redirect_cycle=0.02,
    missing=0.04,
    non_html=0.04,
    offsite=0.05,
    query=0.04,
    fragment=0.1,
    relative=0.15,
    absolute=0.1,
    odd_markup=0.15,
    reset=0.02,
    hang=0.02,
    error500=0.02,
    truncate=0.02,
    garbage=0.02,
)


def busy_site(shape: str = "deep", seed: int = 1, pages: int = 300) -> Site:
    return Site(dataclasses.replace(BUSY, pages=pages, links=8, seed=seed, shape=shape))


# -- hand-built scenarios ------------------------------------------------------------------


def test_plain_wide_site() -> None:
    site = make_site(pages=3, links=0, shape="wide")
    assert paths(site.manifest(ROOT)) == {"/": 200, "/p/0/": 200, "/p/1/": 200, "/p/2/": 200}


def test_redirect_cycle() -> None:
    site = make_site(pages=1, links=0, shape="wide")
    site.add_link(None, site.add_cycle([302, 301, 307]))
    cycle = {"/c/0/0": 302, "/c/0/1": 301, "/c/0/2": 307}
    assert paths(site.manifest(ROOT)) == {"/": 200, "/p/0/": 200, **cycle}
    # Budget 1: /c/0/0 queues /c/0/1 with budget 0, which queues nothing.
    assert paths(site.manifest(ROOT, max_redirect=1)) == {
        "/": 200,
        "/p/0/": 200,
        "/c/0/0": 302,
        "/c/0/1": 301,
    }
    assert reference_crawl(site) == site.manifest(ROOT)


def test_self_redirect() -> None:
    site = make_site(pages=1, links=0, shape="wide")
    site.add_link(0, site.add_cycle([308]))
    assert paths(site.manifest(ROOT))["/c/0/0"] == 308
    assert site.response("/c/0/0").headers[1] == ("Location", "/c/0/0")


def test_chain_longer_than_budget() -> None:
    site = make_site(pages=2, links=0, shape="wide")
    site.add_link(None, site.add_chain([301] * 12, "/p/1/?via=chain"))
    got = paths(site.manifest(ROOT))
    # The head has budget 10: steps 0..10 are fetched, step 10 (budget 0) queues nothing.
    assert {p for p in got if p.startswith("/r/")} == {f"/r/0/{k}" for k in range(11)}
    assert "/p/1/?via=chain" not in got
    longer = paths(site.manifest(ROOT, max_redirect=12))
    assert {p for p in longer if p.startswith("/r/")} == {f"/r/0/{k}" for k in range(12)}
    assert longer["/p/1/?via=chain"] == 200
    assert reference_crawl(site) == site.manifest(ROOT)


def test_chain_within_budget_reaches_its_end() -> None:
    site = make_site(pages=2, links=0, shape="wide")
    site.add_link(None, site.add_chain([302, 303, 307, 308], "/p/1/?via=chain"))
    site.add_link(None, site.add_chain([301], "http://example.com/"))
    got = paths(site.manifest(ROOT))
    assert [got[f"/r/0/{k}"] for k in range(4)] == [302, 303, 307, 308]
    assert got["/p/1/?via=chain"] == 200
    assert got["/r/1/0"] == 301
    assert not any("example.com" in url for url in got)


def test_budget_zero_target_is_not_marked_seen() -> None:
    # With budget 0 the chain's target is not queued and not marked seen, so the later
    # link from /p/1/ is followed whatever the order.
    site = make_site(pages=2, links=0, shape="wide")
    site.add_link(None, site.add_chain([302], "/p/1/?late"))
    site.add_link(1, "/p/1/?late")
    expected = {"/": 200, "/p/0/": 200, "/p/1/": 200, "/r/0/0": 302, "/p/1/?late": 200}
    assert paths(site.manifest(ROOT, max_redirect=0)) == expected
    for seed in range(5):
        order = random.Random(seed)
        assert paths(site.manifest(ROOT, max_redirect=0, order=order)) == expected


def test_missing_page_is_404() -> None:
    site = make_site(pages=1, links=0, shape="wide")
    site.add_link(None, "/missing/0/")
    site.add_link(0, "/p/7/")  # past the last page
    got = paths(site.manifest(ROOT))
    assert got["/missing/0/"] == 404
    assert got["/p/7/"] == 404
    assert site.response("/missing/0/").status == 404


def test_slash_redirect() -> None:
    site = make_site(pages=4, links=0, shape="wide")
    site.add_link(None, "/p/3")
    resp = site.response("/p/3")
    assert resp.status == 301
    assert dict(resp.headers)["Location"] == "/p/3/"
    assert paths(site.manifest(ROOT))["/p/3"] == 301


@pytest.mark.parametrize("kind", FAULT_KINDS)
def test_each_fault_kind(kind: str) -> None:
    site = make_site(pages=3, links=0, shape="wide")
    site.set_fault(1, kind)
    site.add_link(1, "/p/2/?only-from-1")  # never seen: a faulty page gives no links
    got = paths(site.manifest(ROOT))
    assert got == {"/": 200, "/p/0/": 200, "/p/1/": FAULT_OUTCOMES[kind], "/p/2/": 200}
    resp = site.response("/p/1/")
    if kind == "error500":
        assert (resp.status, resp.fault) == (500, None)
    else:
        assert resp.fault == kind
    assert reference_crawl(site) == site.manifest(ROOT)


def test_truncated_and_garbage_bytes() -> None:
    site = make_site(pages=2, links=0, shape="wide")
    site.set_fault(0, "truncate")
    site.set_fault(1, "garbage")
    truncated = site.response("/p/0/").raw
    head, _, body = truncated.partition(b"\r\n\r\n")
    declared = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
    assert head.startswith(b"HTTP/1.1 200 OK") and 0 < len(body) < declared
    assert not site.response("/p/1/").raw.startswith(b"HTTP/")


def test_non_html_and_trap_links_are_not_followed() -> None:
    site = Site(SiteParams(pages=200, links=6, non_html=0.2, seed=3))
    files = [url for url, o in paths(site.manifest(ROOT)).items() if url.startswith("/f/")]
    assert files
    for path in files:
        resp = site.response(path)
        assert not dict(resp.headers)["Content-Type"].startswith("text/html")
        assert b"<a href=" in resp.body  # fake links that must not be followed
    assert not any("/trap/" in url for url in site.manifest(ROOT))


def test_entity_encoded_query() -> None:
    site = make_site(pages=2, links=1, shape="wide", query=1.0)
    body = site.response("/p/0/").body.decode()
    assert "&amp;b=" in body
    queries = [u for u in paths(site.manifest(ROOT)) if "?" in u]
    assert queries and all("&b=" in u and "&amp;" not in u for u in queries)
    assert reference_crawl(site) == site.manifest(ROOT)


def test_markup_variants_appear() -> None:
    site = make_site(pages=40, links=5, odd_markup=1.0, relative=0.5, fragment=0.5)
    bodies = b"".join(site.response(f"/p/{i}/").body for i in range(40)).decode("utf-8", "replace")
    for variant in ('<A HREF="', "href='", 'href="  ', 'class="nav" title=', "../", "#"):
        assert variant in bodies, variant
    assert reference_crawl(site) == site.manifest(ROOT)


def test_offsite_links_never_in_manifest() -> None:
    site = make_site(pages=100, links=5, offsite=0.5)
    assert all(url.startswith(ROOT.rstrip("/")) for url in site.manifest(ROOT))
    assert reference_crawl(site) == site.manifest(ROOT)


def test_manifest_refuses_a_root_that_collides_with_offsite_links() -> None:
    with pytest.raises(ValueError):
        make_site(pages=1).manifest("http://127.0.0.1:9/")
    with pytest.raises(ValueError):
        make_site(pages=1).manifest("ftp://127.0.0.1/")


# -- seeded sites ---------------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["deep", "wide"])
@pytest.mark.parametrize("max_redirect", [10, 2, 0])
def test_html_agrees_with_manifest(shape: str, max_redirect: int) -> None:
    """A crawler that parses the served HTML finds exactly what the model says."""
    for seed in (1, 2):
        site = busy_site(shape, seed)
        assert reference_crawl(site, ROOT, max_redirect) == site.manifest(ROOT, max_redirect)


@pytest.mark.parametrize("max_redirect", [10, 1, 0])
def test_manifest_is_order_independent(max_redirect: int) -> None:
    site = busy_site("deep", seed=5)
    fifo = site.manifest(ROOT, max_redirect)
    for seed in range(3):
        assert site.manifest(ROOT, max_redirect, order=random.Random(seed)) == fifo


def test_every_ratio_honoured() -> None:
    params = dataclasses.replace(BUSY, pages=3000, links=10, seed=7)
    site = Site(params)
    links = [link for row in site.page_links for link in row]  # the ratios' slots
    n = len(links)
    kinds = Counter(link.kind for link in links)
    for kind in SLOT_KINDS:
        ratio: float = getattr(params, kind)
        tolerance = 5 * math.sqrt(ratio * (1 - ratio) / n)
        assert abs(kinds[kind] / n - ratio) < tolerance, (kind, kinds[kind] / n)
    onsite = [link for link in links if link.target is not None]
    spellings = {
        "fragment": sum("#" in link.href for link in onsite),
        "relative": sum(not link.href.startswith("/") for link in onsite),
        "absolute": sum(link.absolute for link in onsite),
        "odd_markup": sum(link.markup != 0 for link in links),
    }
    for name, count in spellings.items():
        ratio = getattr(params, name)
        total = n if name == "odd_markup" else len(onsite)
        tolerance = 5 * math.sqrt(ratio * (1 - ratio) / total)
        assert abs(count / total - ratio) < tolerance, (name, count / total)
    faults = Counter(site.page_faults.values())
    for kind in FAULT_KINDS:
        assert faults[kind] == round(getattr(params, kind) * params.pages), kind


@pytest.mark.parametrize("shape", ["deep", "wide"])
def test_every_page_reachable(shape: str) -> None:
    site = busy_site(shape, seed=9, pages=1000)
    got = paths(site.manifest(ROOT))
    assert all(f"/p/{i}/" in got for i in range(1000))


def test_links_per_page() -> None:
    site = Site(SiteParams(pages=500, links=7, seed=2))
    assert all(len(site.links(f"/p/{i}/")) == 7 for i in range(500))


def generations(site: Site) -> list[int]:
    """Sizes of the BFS generations of pages from the root."""
    seen = {"/"}
    layer = ["/"]
    sizes = []
    while layer:
        nxt = []
        for path in layer:
            for link in site.links(path):
                if link.target is not None and link.target not in seen:
                    seen.add(link.target)
                    nxt.append(link.target)
        if nxt:
            sizes.append(len(nxt))
        layer = nxt
    return sizes


def test_deep_site_fans_out_over_generations() -> None:
    sizes = generations(Site(SiteParams(pages=5000, links=10, seed=1)))
    assert len(sizes) >= 3
    assert sizes[0] < sizes[1] < max(sizes)


def test_wide_root_links_every_page_and_is_cached() -> None:
    site = Site(SiteParams(pages=20_000, links=2, shape="wide"))
    assert generations(site)[0] >= 20_000
    first = site.response("/", "127.0.0.1:80")
    assert site.response("/", "127.0.0.1:80") is first
    assert b'href="/p/19999/"' in first.body


def test_body_size() -> None:
    site = make_site(pages=2, links=2, body_size=10_000)
    assert len(site.response("/p/0/").body) == 10_000


DIGEST_SCRIPT = """
import hashlib, json, sys
from server.site import Site
from server.site_params import SiteParams
site = Site(SiteParams(**json.loads(sys.argv[1])))
h = hashlib.sha256(json.dumps(site.manifest("http://127.0.0.1:8080/"), sort_keys=True).encode())
for path in ("/", "/p/0/", "/p/17/", "/p/123/"):
    h.update(site.response(path, "127.0.0.1:8080").body)
print(h.hexdigest())
"""


def local_digest(site: Site) -> str:
    h = hashlib.sha256(json.dumps(site.manifest(ROOT), sort_keys=True).encode())
    for path in ("/", "/p/0/", "/p/17/", "/p/123/"):
        h.update(site.response(path, "127.0.0.1:8080").body)
    return h.hexdigest()


def test_deterministic_across_runs_and_processes() -> None:
    here = local_digest(busy_site("deep", seed=1))
    assert local_digest(busy_site("deep", seed=1)) == here
    assert local_digest(busy_site("deep", seed=2)) != here
    params = dataclasses.asdict(dataclasses.replace(BUSY, pages=300, links=8, seed=1))
    for hashseed in ("1", "12345"):
        assert run_script_with_hashseed(DIGEST_SCRIPT, json.dumps(params), hashseed) == here


# -- parts ------------------------------------------------------------------------------------

# Sites of one part, and their digests taken before parts existed: one part draws exactly
# the site drawn before (every baseline and sample depends on those bytes).
ONE_PART = {
    "deep": "e84c92d38b9b9021f50bc14d98d464953981824c5b35e63391c67d6226468248",
    "wide": "2ad468bb1532b576a1702c0797365e549427c92dfc21bc20699ad8ff5db79002",
    "few-links": "f5dda78cd8de2a319bac5d02fb0a82dbe414b2325f5ca4c6589787c4ba9095df",
    "docs": "6e11260d3de446e968363108896aafeb385f416f69b1c1fd5d6a8d26883a0679",
}


def one_part_site(name: str) -> Site:
    if name == "few-links":
        return Site(SiteParams(pages=300, links=1, seed=5))
    if name == "docs":
        return Site(SiteParams(**{**PRESETS["docs"], "pages": 120, "seed": 3}))
    return busy_site(name, seed=3)


@pytest.mark.parametrize("name", ONE_PART)
def test_a_site_of_one_part_is_the_site_drawn_before_parts(name: str) -> None:
    site = one_part_site(name)
    h = hashlib.sha256(json.dumps(site.manifest(ROOT), sort_keys=True).encode())
    h.update(site.response("/", "127.0.0.1:8080").body)
    for i in range(site.params.pages):
        h.update(site.response(site.page_path(i), "127.0.0.1:8080").body)
    assert h.hexdigest() == ONE_PART[name]
    assert site.part_paths() == ["/"]


@pytest.mark.parametrize(("shape", "links"), [("deep", 8), ("deep", 1), ("wide", 8)])
def test_the_parts_are_disjoint_and_make_up_the_whole_site(shape: str, links: int) -> None:
    site = Site(dataclasses.replace(BUSY, pages=300, links=links, seed=4, shape=shape, parts=3))
    roots = [f"{ROOT}?part={k}" for k in range(3)]
    assert [f"{ROOT.rstrip('/')}{path}" for path in site.part_paths()] == roots
    union: dict[str, object] = {}
    for k, root in enumerate(roots):
        part = site.manifest(root)
        assert not part.keys() & union.keys()  # no URL is reached from two parts
        union |= part
        pages = {int(path.split("/")[2]) for path in paths(part) if path.startswith("/p/")}
        assert pages == set(range(k * 100, (k + 1) * 100))  # its own pages, every one
        assert reference_crawl(site, root) == part  # the served HTML says the same
    whole = site.manifest(ROOT)
    assert union == {url: outcome for url, outcome in whole.items() if url != ROOT} | dict.fromkeys(
        roots, 200
    )


@pytest.mark.parametrize(
    "params",
    [
        dict(pages=0),
        dict(parts=0),
        dict(pages=3, parts=4),
        dict(shape="docs", parts=2),
        dict(links=-1),
        dict(shape="round"),
        dict(missing=1.5),
        dict(missing=0.6, offsite=0.6),
        dict(reset=0.7, hang=0.7),
        dict(chain_length=0),
    ],
)
def test_bad_params_raise_value_error(params: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        SiteParams(**params)  # type: ignore[arg-type]
