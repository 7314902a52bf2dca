"""Every list of choices the command line prints is the catalog's, in the catalog's order."""

from __future__ import annotations

import re
import subprocess

import pytest

from bench.harness.profiles import PROFILE_TABLE
from bench.interpreter import python_command
from c10k import catalog
from tests.server_helpers import REPO


def c10k(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        python_command(*args), cwd=REPO, capture_output=True, text=True, timeout=120
    )


def listed(text: str, after: str) -> list[str]:
    """The comma-separated names after `after` in text, help's line wraps undone."""
    joined = re.sub(r"-\n\s+", "-", text)  # argparse wraps help lines after a hyphen
    flat = " ".join(joined.split())
    found = flat.split(after, 1)[1] if after else flat
    names = re.split(r",\s*", found.strip())
    return [re.sub(r"[^a-z0-9-].*$", "", name.strip("'\" ")) for name in names]


def head(names: list[str], count: int) -> list[str]:
    return names[:count]


CRAWLERS, SCENARIOS = list(catalog.CRAWLERS), list(catalog.SCENARIOS)


@pytest.mark.parametrize(
    ("args", "after", "expected"),
    [
        (("bench", "--models", "nope", "--dry-run"), "choose from", CRAWLERS),
        (("bench", "--scenarios", "nope", "--dry-run"), "choose from", SCENARIOS),
        (("crawl", "http://127.0.0.1:1/", "--model", "nope"), "choose one of:", CRAWLERS),
    ],
    ids=["bench --models", "bench --scenarios", "crawl --model"],
)
def test_an_unknown_name_is_refused_with_the_catalogs_list(
    args: tuple[str, ...], after: str, expected: list[str]
) -> None:
    done = c10k(*args)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert head(listed(done.stderr, after), len(expected)) == expected


def test_bench_help_lists_the_catalogs_models_scenarios_and_profiles() -> None:
    done = c10k("bench", "--help")
    assert done.returncode == 0
    flat = " ".join(re.sub(r"-\n\s+", "-", done.stdout).split())
    assert "--profile {" + ",".join(catalog.PROFILES) + "}" in flat
    models = flat.split("(default: all; a peer that is not installed is reported as such):")[1]
    assert head(listed(models, ""), len(CRAWLERS)) == CRAWLERS
    scenarios = flat.split("comma-separated scenarios (default: all):")[1]
    assert head(listed(scenarios, ""), len(SCENARIOS)) == SCENARIOS


def test_an_unknown_profile_is_refused_with_the_catalogs_profiles() -> None:
    done = c10k("bench", "--profile", "nope", "--dry-run")
    assert done.returncode == 2
    quoted = re.findall(r"'([a-z-]+)'", done.stderr.split("choose from", 1)[1])
    assert quoted == list(catalog.PROFILES)


def test_the_profiles_are_the_catalogs() -> None:
    assert list(PROFILE_TABLE) == list(catalog.PROFILES)
    for name, profile in PROFILE_TABLE.items():
        assert profile.description == catalog.PROFILES[name].description


def test_the_idle_program_lists_the_catalogs_idle_kinds() -> None:
    done = subprocess.run(
        [*python_command()[:-2], "-m", "impls.tools.idle", "--kind", "nope", "--count", "1"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    quoted = re.findall(r"'([a-z-]+)'", done.stderr.split("choose from", 1)[1])
    assert quoted == list(catalog.IDLE_KINDS)


def test_models_lists_the_catalogs_models_then_its_peers() -> None:
    done = c10k("models")
    assert done.returncode == 0
    names = [line.split()[0] for line in done.stdout.splitlines() if line.strip()]
    assert [n for n in names if n in catalog.CRAWLERS] == CRAWLERS


def test_crawl_help_lists_the_catalogs_cores() -> None:
    flat = " ".join(c10k("crawl", "--help").stdout.split())
    assert "--core {" + ",".join(catalog.CORES) + "}" in flat
