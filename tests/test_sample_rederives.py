"""Each committed results file is, byte for byte, what this checkout's derive makes of its runs
(`tox -e sample` derives them again before it redraws the report)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench.analysis import derive

REPORTS = Path(__file__).resolve().parent.parent / "reports"
# The files `tox -e sample` derives (tox.ini).
SAMPLES = [
    Path("results.json"),
    Path("c100k/results.json"),
    Path("loops/results.json"),
    Path("free-threading/3.14/results.json"),
    Path("free-threading/3.14t/results.json"),
]


@pytest.mark.parametrize("sample", SAMPLES, ids=str)
def test_a_committed_results_file_derives_again_to_the_same_bytes(
    sample: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "results.json"
    shutil.copyfile(REPORTS / sample, copy)
    assert derive.main([str(copy)]) == 0
    assert copy.read_bytes() == (REPORTS / sample).read_bytes()
