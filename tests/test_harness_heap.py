"""The fitted crawls' environment: glibc's thresholds pinned, a random padding and hash seed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bench.harness.heap import (
    HASH_SEED_MAX,
    HASH_SEED_VARIABLE,
    LAYOUT_PAD_MAX,
    LAYOUT_PAD_VARIABLE,
    PINNED_MALLOC,
    memory_env,
)
from bench.harness.processes import run_process
from bench.tools.heap_check import condition_env


def test_the_thresholds_are_pinned_and_the_rest_of_the_environment_kept() -> None:
    base = {"PATH": "/bin", "MALLOC_MMAP_THRESHOLD_": "1", HASH_SEED_VARIABLE: "0"}
    env, record = memory_env(base, pad=5, hash_seed=7)
    assert env["PATH"] == "/bin"
    assert {k: env[k] for k in PINNED_MALLOC} == PINNED_MALLOC
    assert env[LAYOUT_PAD_VARIABLE] == "xxxxx"
    assert env[HASH_SEED_VARIABLE] == "7"  # not the session's (tox fixes one per invocation)
    assert record == {"malloc": PINNED_MALLOC, "layout_pad_bytes": 5, "hash_seed": 7}


def test_each_run_draws_its_own_padding_and_records_its_length() -> None:
    drawn = [memory_env({})[1]["layout_pad_bytes"] for _ in range(50)]
    assert all(0 <= n < LAYOUT_PAD_MAX for n in drawn)
    assert len(set(drawn)) > 1  # a fixed padding would leave every run on one layout


def test_each_run_draws_its_own_hash_seed_even_when_the_session_fixed_one() -> None:
    drawn = [memory_env({HASH_SEED_VARIABLE: "3104653956"}) for _ in range(50)]
    seeds = [record["hash_seed"] for _, record in drawn]
    assert all(0 <= n < HASH_SEED_MAX for n in seeds)
    assert [env[HASH_SEED_VARIABLE] for env, _ in drawn] == [str(n) for n in seeds]
    assert len(set(seeds)) > 1  # one seed for every run would make the session share a level


def test_the_child_process_runs_in_that_environment() -> None:
    env, record = memory_env()
    program = (
        "import json, os; print(json.dumps({k: os.environ.get(k, '') for k in "
        f"{[*PINNED_MALLOC, LAYOUT_PAD_VARIABLE]!r}}}))"
        "; print(hash('c10k'))"
    )
    done = run_process([sys.executable, "-c", program], 30, env=env)
    variables, hashing = done.stdout.splitlines()
    seen = json.loads(variables)
    assert done.code == 0
    assert {k: seen[k] for k in PINNED_MALLOC} == PINNED_MALLOC
    assert len(seen[LAYOUT_PAD_VARIABLE]) == record["layout_pad_bytes"]
    # The child hashes with the recorded seed: the same seed again gives the same hash.
    again = run_process([sys.executable, "-c", "print(hash('c10k'))"], 30, env=env)
    assert hashing == again.stdout.strip()


@pytest.mark.parametrize(
    ("condition", "pinned", "padded"),
    [
        ("as-is", False, False),
        ("padded", False, True),
        ("pinned", True, False),
        ("steady", True, True),
    ],
)
def test_the_check_runs_each_condition_as_named(condition: str, pinned: bool, padded: bool) -> None:
    env, record = condition_env(condition)
    if env is None:
        assert (pinned, padded, record) == (False, False, {})
        return
    assert all((env.get(k) == v) == pinned for k, v in PINNED_MALLOC.items())
    assert record["malloc"] == (PINNED_MALLOC if pinned else {})
    assert len(env[LAYOUT_PAD_VARIABLE]) == record["layout_pad_bytes"]
    if not padded:
        assert record["layout_pad_bytes"] == 0


@pytest.mark.parametrize(
    "args",
    [
        ["--model", "nope"],
        ["--model", "trio", "--conditions", "x"],
        ["--model", "trio", "--runs", "0"],
        ["--model", "trio", "--hash-seed", "-1"],
        ["--model", "trio", "--hash-seed", str(2**32)],
    ],
)
def test_bad_input_to_the_check_is_one_line_and_exit_2(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.tools.heap_check", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "error" in done.stderr
