"""`c10k serve` as a process: the URL first, workers, signals, and refused options."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from server.cli import check_host, main, parse_options
from tests.server_helpers import REPO, get_json, raw_get, serve_process, wait_for


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purpose.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serve_prints_the_url_first_and_stops_on_a_signal(sig: signal.Signals) -> None:
    with serve_process("--pages", "20", "--faults", "reset=0.1,garbage=0.1") as (proc, url):
        assert raw_get(url, "/").status == 200
        manifest = get_json(url + "__manifest__")["urls"]
        # Faults through the real CLI (uvloop when installed): a reset is an RST.
        for page, outcome in manifest.items():
            if outcome == "error:reset":
                assert raw_get(url, page[len(url) - 1 :]).error == "reset"
        proc.send_signal(sig)
        assert proc.wait(10) == 0
        assert proc.stderr is not None
        err = proc.stderr.read()
        assert "Traceback" not in err and "Error handling request" not in err


def test_two_workers_share_the_port_and_the_stats() -> None:
    with serve_process("--pages", "20", "--workers", "2") as (proc, url):
        for _ in range(40):
            assert raw_get(url, "/p/3/").status == 200
        stats = get_json(url + "__stats__")
        assert stats["workers"] == 2 and len(stats["pids"]) == 2
        assert stats["requests"] == 40 and sum(stats["requests_by_worker"]) == 40
        # 40 connections from 40 source ports: both workers get some (SO_REUSEPORT hash).
        assert min(stats["requests_by_worker"]) > 0
        assert get_json(url + "__manifest__")["count"] >= 21
        proc.terminate()
        assert proc.wait(10) == 0
        assert wait_for(lambda: not any(_alive(pid) for pid in stats["pids"]))


def test_workers_die_with_their_parent() -> None:
    with serve_process("--pages", "5", "--workers", "2") as (proc, url):
        pids = get_json(url + "__stats__")["pids"]
        proc.kill()  # no chance to clean up: the kernel's parent-death signal must do it
        proc.wait()
        assert wait_for(lambda: not any(_alive(pid) for pid in pids)), "orphan workers"


@pytest.mark.parametrize(
    "argv",
    [
        ["--pages", "0"],
        ["--pages", "many"],
        ["--latency", "soon"],
        ["--faults", "reset=2"],
        ["--shape", "round"],
        ["--host", "8.8.8.8"],
        ["--port", "70000"],
        ["--workers", "0"],
        ["--ratio", "bogus=0.1"],
        ["--body-size", "big"],
        ["--hang", "forever"],
        ["--no-such-option"],
        ["--preset", "nope"],
        ["--preset"],
        ["--preset", "docs", "--shape", "deep"],  # a body size range needs docs
        ["--body-size", "10k..20k"],
        ["--shape", "docs", "--body-size", "20k..10k"],
        ["--listen", "127.0.0.1,10.1.2.3"],  # not loopback
        ["--listen", "127.0.0.3-127.0.0.1"],
        ["--listen", "localhost"],  # IP literals only
        ["--listen", "127.0.0.1,,127.0.0.2"],
        ["--listen", "127.0.0.1,127.0.0.1"],
        ["--listen", "127.0.0.1-::1"],
        ["--listen", "127.0.0.0-127.0.4.0"],  # more than 256
        ["--listen", "127.0.0.1", "--host", "127.0.0.1"],
        ["--preset", "docs", "--parts", "2"],  # a docs site cannot be split
        ["--pages", "3", "--parts", "4"],
    ],
)
def test_bad_options_are_refused_with_exit_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("c10k serve: error:")


def test_bad_option_in_a_process_is_one_line_and_exit_2() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "server", "--host", "8.8.8.8"],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "--allow-non-loopback" in out.stderr


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "--latency" in capsys.readouterr().out


def test_port_in_use_is_one_line_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    with serve_process("--pages", "2") as (_, url):
        port = url.rstrip("/").rsplit(":", 1)[1]
        assert main(["--port", port, "--pages", "2"]) == 1
        assert capsys.readouterr().err.count("\n") == 1


def test_options_build_the_site() -> None:
    opts = parse_options(
        ["--pages", "50", "--shape", "wide", "--no-variety", "--ratio", "missing=0.2"]
    )
    assert opts.params.pages == 50 and opts.params.shape == "wide"
    assert opts.params.missing == 0.2 and opts.params.slash_redirect == 0.0
    opts = parse_options(["--faults", "hang=0.1", "--hang", "5s", "--latency", "exp:10ms"])
    assert opts.params.hang == 0.1 and opts.delivery.hang == 5.0
    assert opts.delivery.latency.kind == "exp" and opts.delivery.backlog >= 4096


def test_loopback_check() -> None:
    check_host("127.0.0.1", False)
    check_host("::1", False)
    check_host("localhost", False)
    with pytest.raises(ValueError):
        check_host("0.0.0.0", False)
    check_host("0.0.0.0", True)
