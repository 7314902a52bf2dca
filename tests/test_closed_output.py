"""A command whose output is closed early (`c10k ... | head -1`) ends quietly, no traceback."""

from __future__ import annotations

import signal
import subprocess

import pytest

from bench.interpreter import python_command
from tests.server_helpers import REPO


@pytest.mark.parametrize(
    "args",
    [
        ("bench", "--profile", "default", "--dry-run"),
        ("runtimes", "--json"),
        ("models",),
        ("bench", "--help"),
    ],
)
def test_a_reader_that_leaves_after_one_line_gets_no_traceback(args: tuple[str, ...]) -> None:
    proc = subprocess.Popen(
        python_command(*args),
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # what `head -1` does after its line
    stderr = proc.stderr.read()
    code = proc.wait(timeout=120)
    assert first
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
    # Quiet: as a tool killed by SIGPIPE would end, or done before the pipe closed.
    assert code in (0, 128 + signal.SIGPIPE), (code, stderr)


def test_output_that_is_read_to_the_end_exits_0() -> None:
    done = subprocess.run(
        python_command("models"), cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout and done.stderr == ""
