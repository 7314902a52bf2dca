"""Counting a crawl's instructions: the cut at the crawler's marks, and a counted run end to end."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.harness import callgrind
from bench.harness.plan import PlannedRun
from bench.harness.recipes import run_counted
from bench.harness.site import ServeOptions, Server
from c10k import catalog
from tests.planned import measured_crawl

# Pins CPUs, loads the machine or changes its limits: one xdist worker runs these (tox.ini).
pytestmark = pytest.mark.xdist_group("machine")


def write_parts(out_file: Path, counts: list[int]) -> None:
    """Callgrind's files for a run cut len(counts)-1 times: out.1, out.2, ..., then out."""
    *cut, rest = counts
    for n, count in enumerate(cut, start=1):
        out_file.with_name(f"{out_file.name}.{n}").write_text(f"events: Ir\nsummary: {count}\n")
    out_file.write_text(f"events: Ir\nsummary: {rest}\n")


def test_the_crawl_is_the_part_between_the_marks(tmp_path: Path) -> None:
    out_file = tmp_path / "callgrind.out"
    write_parts(out_file, [300_000_000, 46_000, 20_000_000])
    count = callgrind.read_count(out_file, pages=23)
    assert (count.startup_ir, count.crawl_ir, count.exit_ir) == (300_000_000, 46_000, 20_000_000)
    assert count.per_page == 2000


@pytest.mark.parametrize("cuts", [0, 1, 3], ids=["never marked", "marked once", "thrice"])
def test_any_other_number_of_marks_fails_the_count(tmp_path: Path, cuts: int) -> None:
    out_file = tmp_path / "callgrind.out"
    write_parts(out_file, [1000] * (cuts + 1))
    with pytest.raises(callgrind.CountFailed, match="not 3"):
        callgrind.read_count(out_file, pages=10)


def test_a_part_without_a_summary_fails_the_count(tmp_path: Path) -> None:
    out_file = tmp_path / "callgrind.out"
    write_parts(out_file, [1, 2, 3])
    out_file.with_name("callgrind.out.2").write_text("events: Ir\n")
    with pytest.raises(callgrind.CountFailed, match="summary"):
        callgrind.read_count(out_file, pages=10)


SITE = ServeOptions(pages=20, links=5, shape="deep")


def counted(model: str) -> PlannedRun:
    return measured_crawl(catalog.INSTRUCTIONS, model, SITE, 60.0, counted=True)


@pytest.fixture(scope="module")
def site() -> Iterator[Server]:
    server = Server(SITE)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_without_valgrind_the_run_is_unavailable_not_failed(
    site: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    record = run_counted(counted(catalog.CALLBACKS.name), site)
    assert record["status"] == "unavailable"
    assert "valgrind" in str(record["reason"])


needs_valgrind = pytest.mark.skipif(
    callgrind.missing() is not None, reason="valgrind is not installed"
)


@pytest.mark.slow
@needs_valgrind
@pytest.mark.parametrize("model", [catalog.CALLBACKS.name, catalog.CORE_REPLAY])
def test_a_counted_crawl_is_verified_and_cut_at_its_marks(site: Server, model: str) -> None:
    record = run_counted(counted(model), site)
    assert record["status"] == "ok", record["reason"]
    assert record["verification"]["manifest_ok"]
    count = record["instructions"]
    assert count["pages"] == len(site.manifest["urls"])
    # The crawl is cut out of the run: the interpreter's start and the imports are not in it.
    assert 0 < count["crawl_ir"] < count["startup_ir"]
    assert count["per_page"] == count["crawl_ir"] / count["pages"]
    assert count["pythonhashseed"] == 0
