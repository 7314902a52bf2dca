"""Two hosts on one machine: `c10k serve --agent` in one network namespace, `c10k bench
--server` in another, joined by a veth pair; and the agent's own limits on loopback."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import urllib.error
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.harness.site import http_json
from bench.interpreter import python_command
from c10k.system import read_line, stop_process
from tests.server_helpers import REPO, wait_for


@dataclass
class Namespaces:
    agent_ns: str
    bench_ns: str
    agent_ip: str
    bench_ip: str


def _ip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)


@pytest.fixture
def namespaces() -> Iterator[Namespaces]:
    """Two fresh namespaces joined by a veth pair (10.231.N.1 and .2, nothing else in either
    but loopback); removed afterwards, also when the test fails."""
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root")
    if shutil.which("ip") is None:
        pytest.skip("no `ip` command (iproute2)")
    pid = os.getpid()
    subnet = f"10.231.{pid % 250}"
    made = Namespaces(f"c10k-agent-{pid}", f"c10k-bench-{pid}", f"{subnet}.1", f"{subnet}.2")
    try:
        for ns in (made.agent_ns, made.bench_ns):
            done = _ip("netns", "add", ns)
            if done.returncode != 0:
                pytest.skip(f"cannot make a network namespace: {done.stderr.strip()}")
        agent_end, bench_end = f"c10ka{pid}", f"c10kb{pid}"
        steps = [
            ("link", "add", agent_end, "type", "veth", "peer", "name", bench_end),
            ("link", "set", agent_end, "netns", made.agent_ns),
            ("link", "set", bench_end, "netns", made.bench_ns),
            ("-n", made.agent_ns, "addr", "add", f"{made.agent_ip}/24", "dev", agent_end),
            ("-n", made.bench_ns, "addr", "add", f"{made.bench_ip}/24", "dev", bench_end),
            ("-n", made.agent_ns, "link", "set", agent_end, "up"),
            ("-n", made.bench_ns, "link", "set", bench_end, "up"),
            ("-n", made.agent_ns, "link", "set", "lo", "up"),
            ("-n", made.bench_ns, "link", "set", "lo", "up"),
        ]
        for step in steps:
            done = _ip(*step)
            if done.returncode != 0:
                pytest.skip(f"cannot set up the veth pair: ip {' '.join(step)}: {done.stderr}")
        yield made
    finally:
        for ns in (made.agent_ns, made.bench_ns):
            _ip("netns", "del", ns)  # takes its end of the veth pair with it


@contextlib.contextmanager
def agent_process(*argv: str) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """Run argv (an agent, maybe behind `ip netns exec`); yields it and the URL it printed
    first; stopped afterwards."""
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        assert proc.stdout is not None
        yield proc, read_line(proc.stdout, 30).decode().strip()
    finally:
        stop_process(proc, 10)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


AGENT = (sys.executable, "-m", "server", "--agent")


@pytest.fixture
def agent(namespaces: Namespaces) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """The agent in the agent's namespace, on its veth address; stopped afterwards."""
    netns = ("ip", "netns", "exec", namespaces.agent_ns)
    host = ("--host", namespaces.agent_ip, "--allow-non-loopback")
    with agent_process(*netns, *AGENT, *host) as (proc, url):
        assert url == f"http://{namespaces.agent_ip}:{url.rsplit(':', 1)[1]}", url
        yield proc, url


@pytest.mark.slow
def test_bench_against_an_agent_in_another_namespace(
    agent: tuple[subprocess.Popen[bytes], str], namespaces: Namespaces, tmp_path: Path
) -> None:
    _, url = agent
    bench = python_command(
        "bench", "--profile", "quick", "--scenarios", "few-active", "--models", "asyncio"
    )
    out = ["--out", str(tmp_path), "--check"]
    done = subprocess.run(
        ["ip", "netns", "exec", namespaces.bench_ns, *bench, "--server", url, *out],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    document = json.loads((tmp_path / "results.json").read_text())
    environment = document["environment"]
    assert environment["server"]["remote"] is True and environment["server"]["agent"] == url
    assert environment["server"]["host"] == namespaces.agent_ip
    assert (
        environment["pinning"]["applied"] is False
        and "another host" in (environment["pinning"]["note"])
    )
    runs = document["runs"]
    assert runs and all(run["status"] == "ok" for run in runs)
    for run in runs:
        assert run["verification"]["ok"] and run["verification"]["manifest_ok"]
        server = run["server"]
        assert server["remote"] is True and server["cpu_cores"] is None
        assert server["root"].startswith(f"http://{namespaces.agent_ip}:")
        assert server["stats"]["requests"] > 0 and server["cpu_s"] is not None
        assert run["pinning"]["server"] is None
        assert set(run["samples"]["server_cpu_s"]) == {None}
    # The harness stopped the server it asked for: the agent holds none.
    assert http_json_in(namespaces.bench_ns, url)["servers"] == []


def http_json_in(namespace: str, url: str) -> dict[str, object]:
    """GET url from inside a namespace (the agent's address is routed only there)."""
    script = (
        "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())"
    )
    out = subprocess.run(
        ["ip", "netns", "exec", namespace, sys.executable, "-c", script, url],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    result: dict[str, object] = json.loads(out.stdout)
    return result


@pytest.fixture
def local_agent() -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """An agent on loopback that allows one server and stops it after 2 s without a request."""
    with agent_process(*AGENT, "--max-servers", "1", "--idle-timeout", "2s") as running:
        yield running


def _refusal(url: str, args: list[str]) -> tuple[int, str]:
    try:
        http_json(url + "servers", method="POST", document={"args": args})
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())["error"]
    raise AssertionError(f"the agent accepted {args}")


def test_the_agent_starts_only_c10k_serve_and_only_so_many(
    local_agent: tuple[subprocess.Popen[bytes], str],
) -> None:
    proc, url = local_agent
    assert _refusal(url, ["--host", "10.0.0.1"])[0] == 400  # where it listens is the agent's
    assert _refusal(url, ["--allow-non-loopback"])[0] == 400
    assert _refusal(url, ["--pag", "5"])[0] == 400  # full names only: no abbreviations
    assert _refusal(url, ["--pages", "--listen"])[0] == 400
    assert "--pages" in _refusal(url, ["--pages", "many"])[1]  # c10k serve's own check
    started = http_json(url + "servers", method="POST", document={"args": ["--pages", "5"]})
    assert started["url"].startswith("http://127.0.0.1:") and started["alive"]
    assert http_json(started["url"] + "__stats__")["requests"] == 0
    assert _refusal(url, ["--pages", "5"])[0] == 409  # --max-servers 1
    # Two seconds without a request to the agent: it stops the server by itself.
    assert wait_for(lambda: not _alive(started["pid"]), 30)
    assert http_json(url)["servers"] == []
    again = http_json(url + "servers", method="POST", document={"args": ["--pages", "5"]})
    proc.terminate()  # and stopping the agent stops what it started
    assert proc.wait(15) == 0
    assert wait_for(lambda: not _alive(again["pid"]), 15)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize(
    "argv",
    [
        ["--agent", "--host", "10.1.2.3"],  # not loopback without --allow-non-loopback
        ["--agent", "--host", "0.0.0.0", "--allow-non-loopback"],  # the URLs need one address
        ["--agent", "--max-servers", "100"],
        ["--agent", "--idle-timeout", "0"],
        ["--agent", "--pages", "5"],  # site options go to each server, not to the agent
    ],
)
def test_bad_agent_options_are_one_line_and_exit_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    from server.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("c10k serve --agent: error:")
