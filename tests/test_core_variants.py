"""The core's variants: chosen by `--core` once per crawl, the pure one made of the standard
library alone and loading in a subinterpreter, and a crawl on it equal to the manifest."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from bench.runtimes.discover import NoSuchRuntime, resolve
from c10k.catalog import CORE_C, CORE_PURE, CORES
from impls.cli.options import crawl_parser
from impls.cli.parts import child_argv
from impls.core import CrawlConfig, Frontier, Response, http, links, pure_http, pure_links
from server.app import Delivery
from tests.server_helpers import REPO, make_site, paths, serve_in_thread
from tests.test_crawl_cli import c10k
from tests.tinysite import TinySite, crawl, model_modes, page

ROOT = "http://127.0.0.1:8080/"
# What a crawl on the pure core does in a subinterpreter: build its frontier, parse a
# response, read its links; and httptools and selectolax are never imported.
IN_A_SUBINTERPRETER = """
import sys
sys.path.insert(0, {repo!r})
from impls.core.frontier import CrawlConfig, Frontier
frontier = Frontier(CrawlConfig(root={root!r}, core={core!r}))
(job,) = frontier.start()
body = b'<a href="/a">a</a> <A HREF=b>b</A>'
head = b"HTTP/1.1 200 OK\\r\\nContent-Type: text/html\\r\\nContent-Length: 34\\r\\n\\r\\n"
response = frontier.response_parser(1 << 20).feed(head + body)
assert frontier.offered_urls(job, response) == [{root!r} + "a", {root!r} + "b"]
assert not [name for name in sys.modules if name.startswith(("httptools", "selectolax"))]
"""
DRIVER = """
from concurrent import interpreters
interpreter = interpreters.create()
interpreter.exec({code!r})
interpreter.close()
print("loaded")
"""


@pytest.mark.parametrize(
    ("core", "parser", "extractor"),
    [
        (CORE_C, http.ResponseParser, links.extract_links),
        (CORE_PURE, pure_http.ResponseParser, pure_links.extract_links),
    ],
)
def test_the_frontier_holds_the_core_its_config_names(
    core: str, parser: type[object], extractor: object
) -> None:
    frontier = Frontier(CrawlConfig(root=ROOT, core=core))
    assert (frontier.response_parser, frontier.extract_links) == (parser, extractor)
    (job,) = frontier.start()
    response = Response(200, {"content-type": "text/html"}, b'<a href="/x">x</a>')
    assert frontier.offered_urls(job, response) == [ROOT + "x"]


def test_an_unknown_core_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown core 'rust'"):
        Frontier(CrawlConfig(root=ROOT, core="rust"))


def test_the_pure_core_imports_only_the_standard_library() -> None:
    code = (
        "import sys\n"
        "from impls.core.variants import load_core\n"
        "from impls.core import frontier, pure_http, pure_links\n"
        f"load_core({CORE_PURE!r})\n"
        "ours = {'impls', 'c10k', '__main__'}\n"
        "print(sorted({name.split('.')[0] for name in sys.modules}"
        " - set(sys.stdlib_module_names) - ours))\n"
    )
    # -S: no site-packages on the path, so an import of anything else fails here.
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def python_314() -> str:
    """An interpreter with concurrent.interpreters (CPython 3.14): this one, or a built one."""
    if sys.version_info >= (3, 14):
        return sys.executable
    try:
        return str(resolve("3.14").executable)
    except NoSuchRuntime:
        pytest.skip("no CPython 3.14 here (`c10k runtimes --build 3.14` builds one)")


def test_the_pure_core_loads_in_a_subinterpreter() -> None:
    code = IN_A_SUBINTERPRETER.format(repo=str(REPO), root=ROOT, core=CORE_PURE)
    done = subprocess.run(
        [python_314(), "-I", "-c", DRIVER.format(code=code)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "loaded"


def test_crawl_records_its_core_and_refuses_an_unknown_one() -> None:
    with TinySite({"/": page("/a"), "/a": page()}) as site:
        done = c10k("crawl", site.root, "--model", "threads", "--json", "--core", CORE_PURE)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["options"]["core"] == CORE_PURE
    assert result["fetched"] == {site.root: 200, site.root + "a": 200}
    refused = c10k("crawl", ROOT, "--model", "threads", "--core", "rust")
    assert refused.returncode == 2
    assert "--core: invalid choice: 'rust'" in refused.stderr


@pytest.mark.parametrize("core", CORES)
def test_the_parts_of_processes_run_the_same_core(core: str) -> None:
    args = crawl_parser().parse_args([ROOT, "--model", "threads", "--core", core])
    args.processes = 2
    argv = child_argv(argparse.Namespace(**vars(args)), ROOT + "?part=0", 5, "")
    assert argv[argv.index("--core") + 1] == core


@pytest.mark.contract_case("reset")
@pytest.mark.parametrize(("model", "keep_alive"), model_modes())
def test_a_crawl_on_the_pure_core_equals_the_manifest(model: str, keep_alive: bool) -> None:
    # Every variety of link and markup the site has, and each fault but a hang.
    faults = {"reset": 0.05, "error500": 0.05, "truncate": 0.05, "garbage": 0.05}
    variety = {"odd_markup": 0.5, "slash_redirect": 0.05, "redirect_chain": 0.05, "offsite": 0.05}
    variety |= {"query": 0.05, "non_html": 0.05, "fragment": 0.1, "relative": 0.1}
    site = make_site(pages=60, links=6, seed=7, **faults, **variety)
    with serve_in_thread(site, Delivery()) as srv:
        manifest = paths(site.manifest(srv.url), srv.url)
        fetched = crawl(model, srv.url, max_tries=2, keep_alive=keep_alive, core=CORE_PURE)
    assert fetched == manifest
