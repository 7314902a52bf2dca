"""The core replay: a site recorded once over sockets, replayed through the core alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from impls.core.frontier import CrawlConfig, Frontier
from impls.tools import replay
from server.site import Site
from server.site_params import SiteParams
from tests.server_helpers import REPO, serve_in_thread

# Every fault kind and the odd link kinds, so the replay meets errors, redirects and 404s.
FAULTY = SiteParams(
    pages=40, links=6, seed=3, reset=0.05, hang=0.05, error500=0.05, truncate=0.05, garbage=0.05
)


def record_site(site: Site, out: Path) -> tuple[str, dict[str, object]]:
    """Serve site, record every URL of its manifest into out; the root and the manifest."""
    with serve_in_thread(site) as running:
        manifest = site.manifest(running.url)
        replay.record(running.url, dict(manifest), out, timeout=2.0)
    return running.url, dict(manifest)


@pytest.mark.parametrize("params", [FAULTY, SiteParams(pages=30, links=8, shape="docs", seed=1)])
def test_a_replay_fetches_exactly_the_manifest(tmp_path: Path, params: SiteParams) -> None:
    recording = tmp_path / "site.rec"
    _, manifest = record_site(Site(params), recording)
    done = subprocess.run(
        [sys.executable, "-m", replay.__name__, "run", str(recording), "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    document = json.loads(done.stdout)
    assert document["model"] == "core-replay"
    assert document["fetched"] == manifest
    # Retries of retryable errors are replayed too: more tries than URLs on a faulty site.
    assert document["tries"] >= len(manifest)


def test_max_pages_stops_the_replay(tmp_path: Path) -> None:
    recording = tmp_path / "site.rec"
    record_site(Site(FAULTY), recording)
    root, responses = replay.load(recording)
    frontier = Frontier(CrawlConfig(root=root, max_pages=1))
    replay.replay(frontier, responses)
    assert len(frontier.fetched) == 1


def test_a_bad_recording_is_a_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.rec"
    bad.write_bytes(b"not json\n")
    done = subprocess.run(
        [sys.executable, "-m", replay.__name__, "run", str(bad)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(
        f"python -m {replay.__name__}: error:"
    )


def test_a_url_missing_from_the_recording_is_named(tmp_path: Path) -> None:
    recording = tmp_path / "site.rec"
    _, manifest = record_site(Site(SiteParams(pages=5, links=2, seed=1)), recording)
    root_url, responses = replay.load(recording)
    del responses[next(url for url in manifest if url != root_url)]
    with pytest.raises(LookupError, match="is not in the recording"):
        replay.replay(Frontier(CrawlConfig(root=root_url)), responses)
