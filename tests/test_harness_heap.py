"""The fitted crawls' allocator: glibc's thresholds pinned, a padding of random length."""

from __future__ import annotations

import json
import sys

from bench.harness.heap import LAYOUT_PAD_MAX, LAYOUT_PAD_VARIABLE, PINNED_MALLOC, memory_env
from bench.harness.processes import run_process


def test_the_thresholds_are_pinned_and_the_rest_of_the_environment_kept() -> None:
    env, record = memory_env({"PATH": "/bin", "MALLOC_MMAP_THRESHOLD_": "1"}, pad=5)
    assert env["PATH"] == "/bin"
    assert {k: env[k] for k in PINNED_MALLOC} == PINNED_MALLOC
    assert env[LAYOUT_PAD_VARIABLE] == "xxxxx"
    assert record == {"malloc": PINNED_MALLOC, "layout_pad_bytes": 5}


def test_each_run_draws_its_own_padding_and_records_its_length() -> None:
    drawn = [memory_env({})[1]["layout_pad_bytes"] for _ in range(50)]
    assert all(0 <= n < LAYOUT_PAD_MAX for n in drawn)
    assert len(set(drawn)) > 1  # a fixed padding would leave every run on one layout


def test_the_child_process_runs_in_that_environment() -> None:
    env, record = memory_env()
    program = (
        "import json, os; print(json.dumps({k: os.environ.get(k, '') for k in "
        f"{[*PINNED_MALLOC, LAYOUT_PAD_VARIABLE]!r}}}))"
    )
    done = run_process([sys.executable, "-c", program], 30, env=env)
    seen = json.loads(done.stdout)
    assert done.code == 0
    assert {k: seen[k] for k in PINNED_MALLOC} == PINNED_MALLOC
    assert len(seen[LAYOUT_PAD_VARIABLE]) == record["layout_pad_bytes"]
