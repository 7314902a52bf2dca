"""Two hosts on one machine: sshd with throwaway keys in one network namespace, `c10k bench
--server ssh://...` in another, joined by a veth pair; and the SSH client's own rules."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import pytest

from bench.harness.site import ServeOptions, ServerError
from bench.harness.ssh_server import (
    SSH_COMMAND_ENV,
    SiteHost,
    SshServer,
    SshTarget,
    parse_ssh_url,
)
from bench.interpreter import python_command
from c10k.catalog import IDLE_KINDS
from c10k.system import read_line, stop_process
from c10k.version import version_line
from tests.server_helpers import REPO, wait_for

# Pins CPUs, loads the machine or changes its limits: one xdist worker runs these (tox.ini).
pytestmark = pytest.mark.xdist_group("machine")

SSH_PORT = 2222  # in the site's own namespace: nothing else listens there
# The remote c10k: this interpreter, from this checkout, as the harness runs it here.
REMOTE_C10K = f"cd {shlex.quote(str(REPO))} && {shlex.join(python_command())}"


@dataclass
class Namespaces:
    site_ns: str
    bench_ns: str
    site_ip: str
    bench_ip: str


def _ip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)


def namespace_pids(namespace: str) -> set[int]:
    """Every process in a network namespace (`ip netns pids`)."""
    return {int(pid) for pid in _ip("netns", "pids", namespace).stdout.split()}


@pytest.fixture(scope="module")
def namespaces() -> Iterator[Namespaces]:
    """Two fresh namespaces joined by a veth pair (10.231.N.1 and .2, nothing else in either
    but loopback); afterwards every process left in them is ended by PID and both are
    removed, also when a test fails."""
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root")
    if shutil.which("ip") is None:
        pytest.skip("no `ip` command (iproute2)")
    pid = os.getpid()
    subnet = f"10.231.{pid % 250}"
    made = Namespaces(f"c10k-site-{pid}", f"c10k-bench-{pid}", f"{subnet}.1", f"{subnet}.2")
    try:
        for ns in (made.site_ns, made.bench_ns):
            done = _ip("netns", "add", ns)
            if done.returncode != 0:
                pytest.skip(f"cannot make a network namespace: {done.stderr.strip()}")
        site_end, bench_end = f"c10ks{pid}", f"c10kb{pid}"
        steps = [
            ("link", "add", site_end, "type", "veth", "peer", "name", bench_end),
            ("link", "set", site_end, "netns", made.site_ns),
            ("link", "set", bench_end, "netns", made.bench_ns),
            ("-n", made.site_ns, "addr", "add", f"{made.site_ip}/24", "dev", site_end),
            ("-n", made.bench_ns, "addr", "add", f"{made.bench_ip}/24", "dev", bench_end),
            ("-n", made.site_ns, "link", "set", site_end, "up"),
            ("-n", made.bench_ns, "link", "set", bench_end, "up"),
            ("-n", made.site_ns, "link", "set", "lo", "up"),
            ("-n", made.bench_ns, "link", "set", "lo", "up"),
        ]
        for step in steps:
            done = _ip(*step)
            if done.returncode != 0:
                pytest.skip(f"cannot set up the veth pair: ip {' '.join(step)}: {done.stderr}")
        yield made
    finally:
        for ns in (made.site_ns, made.bench_ns):
            _end_processes(namespace_pids(ns))
            _ip("netns", "del", ns)  # takes its end of the veth pair with it


def _end_processes(pids: set[int]) -> None:
    """SIGTERM these processes (this test's, in its own namespace), SIGKILL what is left."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        if wait_for(lambda: not any(Path(f"/proc/{pid}").exists() for pid in pids), 5):
            return


@dataclass
class SshSite:
    """sshd in the site's namespace and what a client needs to reach it."""

    sshd: subprocess.Popen[bytes]
    url: str  # ssh://USER@ADDRESS:PORT
    env: dict[str, str]  # this environment with C10K_SSH: ssh with the throwaway config


def _sshd_binary() -> str:
    for command in ("ssh", "ssh-keygen"):
        if shutil.which(command) is None:
            pytest.skip(f"no `{command}` (Debian's openssh-client)")
    sshd = shutil.which("sshd") or "/usr/sbin/sshd"
    if not Path(sshd).exists():
        pytest.skip("no sshd (Debian's openssh-server)")
    return sshd


def _write_ssh_files(directory: Path, address: str) -> None:
    """Throwaway host and user keys, authorized_keys, known_hosts, sshd_config, ssh_config."""
    for key in ("host_key", "user_key"):
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(directory / key)],
            check=True,
            timeout=30,
        )
    (directory / "authorized_keys").write_text((directory / "user_key.pub").read_text())
    host_key = " ".join((directory / "host_key.pub").read_text().split()[:2])
    (directory / "known_hosts").write_text(f"[{address}]:{SSH_PORT} {host_key}\n")
    (directory / "sshd_config").write_text(
        f"ListenAddress {address}:{SSH_PORT}\n"
        f"HostKey {directory / 'host_key'}\n"
        f"AuthorizedKeysFile {directory / 'authorized_keys'}\n"
        f"PidFile {directory / 'sshd.pid'}\n"
        "UsePAM no\nStrictModes no\nPermitRootLogin prohibit-password\n"
        "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
        "AllowTcpForwarding no\nX11Forwarding no\nPrintMotd no\n"
    )
    (directory / "ssh_config").write_text(
        "Host *\n"
        f"    IdentityFile {directory / 'user_key'}\n"
        "    IdentitiesOnly yes\n    IdentityAgent none\n"
        f"    UserKnownHostsFile {directory / 'known_hosts'}\n"
        "    GlobalKnownHostsFile /dev/null\n    StrictHostKeyChecking yes\n"
        "    ConnectTimeout 10\n"
    )


@pytest.fixture(scope="module")
def ssh_site(namespaces: Namespaces, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshSite]:
    """sshd -D -e with its own config and throwaway keys in the site's namespace, on its veth
    address; the client's ssh reads only the throwaway ssh_config (C10K_SSH). Stopped by PID
    afterwards."""
    sshd_path = _sshd_binary()
    directory = tmp_path_factory.mktemp("ssh")
    _write_ssh_files(directory, namespaces.site_ip)
    # sshd running as root wants its privilege-separation directory (Debian's service
    # makes it); made here if missing, and removed again.
    privsep = Path("/run/sshd")
    made_privsep = not privsep.exists()
    privsep.mkdir(mode=0o755, exist_ok=True)
    config = directory / "sshd_config"
    log = (directory / "sshd.log").open("wb")
    sshd = subprocess.Popen(
        ["ip", "netns", "exec", namespaces.site_ns, sshd_path, "-D", "-e", "-f", str(config)],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
    )
    try:
        listening = wait_for(lambda: b"Server listening" in (directory / "sshd.log").read_bytes())
        assert listening, (directory / "sshd.log").read_text()
        env = {**os.environ, SSH_COMMAND_ENV: f"ssh -F {directory / 'ssh_config'}"}
        url = f"ssh://root@{namespaces.site_ip}:{SSH_PORT}"
        yield SshSite(sshd, url, env)
    finally:
        stop_process(sshd, 10)
        log.close()
        if made_privsep:
            with contextlib.suppress(OSError):
                privsep.rmdir()


def bench_in(namespaces: Namespaces, site: SshSite, *args: str) -> subprocess.CompletedProcess[str]:
    """`c10k bench ARGS` in the crawler's namespace, with the test's ssh."""
    return subprocess.run(
        ["ip", "netns", "exec", namespaces.bench_ns, *python_command("bench", *args)],
        capture_output=True,
        text=True,
        timeout=500,
        cwd=REPO,
        env=site.env,
    )


def _only_sshd_left(namespaces: Namespaces, site: SshSite) -> bool:
    return namespace_pids(namespaces.site_ns) == {site.sshd.pid}


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_quick_profile_runs_over_ssh_across_namespaces(
    ssh_site: SshSite, namespaces: Namespaces, tmp_path: Path
) -> None:
    args = ("--profile", "quick", "--models", "threads,asyncio", "--server", ssh_site.url)
    done = bench_in(
        namespaces, ssh_site, *args, "--remote-c10k", REMOTE_C10K, "--out", str(tmp_path), "--check"
    )
    assert done.returncode == 0, done.stderr[-3000:]
    document = json.loads((tmp_path / "results.json").read_text())
    environment = document["environment"]
    assert environment["server"] == {
        "remote": True,
        "ssh": ssh_site.url,
        "host": namespaces.site_ip,
        "remote_c10k": REMOTE_C10K,
        "version": version_line(),
    }
    assert environment["pinning"]["applied"] is False
    assert "another host" in environment["pinning"]["note"]
    runs = document["runs"]
    # The idle subinterpreter is unavailable before 3.14, with its reason.
    too_old = {kind.name for kind in IDLE_KINDS.values() if kind.unavailable()}
    assert runs and all(run["status"] == "ok" or run["model"] in too_old for run in runs)
    crawls = [run for run in runs if run.get("server")]
    assert {run["scenario"] for run in crawls} >= {"few-active", "sleepy", "realistic"}
    for run in crawls:
        assert run["verification"]["ok"] and run["verification"]["manifest_ok"]
        server = run["server"]
        assert server["remote"] is True and server["cpu_cores"] is None
        assert server["root"].startswith(f"http://{namespaces.site_ip}:")
        assert server["stats"]["requests"] > 0 and server["cpu_s"] is not None
        assert run["pinning"]["server"] is None
        assert set(run["samples"]["server_cpu_s"]) == {None}
    # Every session closed, every remote server ended with it: only sshd is left.
    assert wait_for(lambda: _only_sshd_left(namespaces, ssh_site), 15), namespace_pids(
        namespaces.site_ns
    )


def _serve_session(namespaces: Namespaces, site: SshSite) -> tuple[subprocess.Popen[bytes], str]:
    """`c10k serve --stop-on-eof` with two workers on the site host, over ssh from the
    crawler's namespace, as SshServer starts it; the ssh client and the URL it printed."""
    target = parse_ssh_url(site.url, REMOTE_C10K)
    serve = target.c10k(
        *("serve", "--host", namespaces.site_ip, "--allow-non-loopback", "--stop-on-eof"),
        *("--workers", "2"),
    )
    with mock.patch.dict(os.environ, {SSH_COMMAND_ENV: site.env[SSH_COMMAND_ENV]}):
        argv = target.ssh_argv(serve)
    ssh = subprocess.Popen(
        ["ip", "netns", "exec", namespaces.bench_ns, *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=site.env,
    )
    assert ssh.stdout is not None and ssh.stderr is not None
    url = read_line(ssh.stdout, 60).decode().strip()
    if not url.startswith(f"http://{namespaces.site_ip}:"):
        stop_process(ssh, 5)
        raise AssertionError(f"no URL from the session: {ssh.stderr.read()[-2000:]!r}")
    return ssh, url


@pytest.mark.slow
def test_the_remote_server_ends_with_its_ssh_session(
    ssh_site: SshSite, namespaces: Namespaces
) -> None:
    # Closed: the remote server reads the end of its stdin and stops, workers and all.
    ssh, _ = _serve_session(namespaces, ssh_site)
    try:
        assert len(namespace_pids(namespaces.site_ns)) >= 4  # sshd, its session, serve, workers
        assert ssh.stdin is not None
        ssh.stdin.close()
        assert ssh.wait(30) == 0
        assert wait_for(lambda: _only_sshd_left(namespaces, ssh_site), 15)
    finally:
        stop_process(ssh, 5)
    # Killed: the connection drops, sshd closes the session's pipes, and the same happens.
    ssh, _ = _serve_session(namespaces, ssh_site)
    try:
        ssh.kill()
        ssh.wait(10)
        assert wait_for(lambda: _only_sshd_left(namespaces, ssh_site), 15)
    finally:
        stop_process(ssh, 5)


def test_a_host_with_other_source_is_refused(
    ssh_site: SshSite, namespaces: Namespaces, tmp_path: Path
) -> None:
    fake = tmp_path / "fake-c10k"
    fake.write_text("#!/bin/sh\necho 'c10k-bench 0.1.0 commit unknown source 0123456789abcdef'\n")
    fake.chmod(0o755)
    out = tmp_path / "out"
    args = ("--profile", "quick", "--server", ssh_site.url, "--remote-c10k", str(fake))
    done = bench_in(namespaces, ssh_site, *args, "--out", str(out))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "runs c10k-bench 0.1.0 commit unknown source 0123456789abcdef" in done.stderr
    assert "install the same code there" in done.stderr and not out.exists()


def test_a_host_without_c10k_is_refused(
    ssh_site: SshSite, namespaces: Namespaces, tmp_path: Path
) -> None:
    args = ("--server", ssh_site.url, "--remote-c10k", "/nonexistent/c10k")
    done = bench_in(namespaces, ssh_site, *args, "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "--remote-c10k" in done.stderr and "Traceback" not in done.stderr


def test_an_unreachable_host_is_one_line_and_exit_2(tmp_path: Path) -> None:
    if shutil.which("ssh") is None:
        pytest.skip("no `ssh` (Debian's openssh-client)")
    done = subprocess.run(
        python_command("bench", "--server", "ssh://127.0.0.1:9", "--out", str(tmp_path)),
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, SSH_COMMAND_ENV: "ssh -F /dev/null"},
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("c10k bench: error: --server ssh://127.0.0.1:9: ssh cannot")
    assert len(done.stderr.strip().splitlines()) == 1 and not list(tmp_path.iterdir())


# -- the SSH client's rules, without a host ---------------------------------------------------


@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("ssh://site", SshTarget("site")),
        ("ssh://bench@10.0.0.2:2200/", SshTarget("10.0.0.2", "bench", 2200)),
        ("ssh://[fd00::2]:22", SshTarget("fd00::2", None, 22)),
    ],
)
def test_ssh_urls(url: str, target: SshTarget) -> None:
    assert parse_ssh_url(url) == target
    assert parse_ssh_url(target.url) == target


@pytest.mark.parametrize(
    "url",
    [
        "http://10.0.0.2:8700/",
        "ssh://",
        "ssh://site/some/path",
        "ssh://site?x=1",
        "ssh://site:port",
        "ssh://-oProxyCommand=x",
        "ssh://user:secret@site",
    ],
)
def test_bad_ssh_urls_are_refused(url: str) -> None:
    with pytest.raises(ValueError, match="--server") as refused:
        parse_ssh_url(url)
    assert "secret" not in str(refused.value)


def test_ssh_is_the_users_with_batch_mode_and_the_urls_port_and_user(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    target = parse_ssh_url("ssh://bench@site:2200", "/srv/c10k/.venv/bin/c10k")
    monkeypatch.delenv(SSH_COMMAND_ENV, raising=False)
    command = target.c10k("serve", "--latency", "uniform:1ms..2ms", "--host", "a b")
    assert command == "/srv/c10k/.venv/bin/c10k serve --latency uniform:1ms..2ms --host 'a b'"
    expected = ["-o", "BatchMode=yes", "-p", "2200", "-l", "bench", "--", "site", command]
    assert target.ssh_argv(command) == ["ssh", *expected]
    monkeypatch.setenv(SSH_COMMAND_ENV, "ssh -F '/tmp/my config'")
    assert target.ssh_argv(command) == ["ssh", "-F", "/tmp/my config", *expected]
    assert parse_ssh_url("ssh://site").ssh_argv("x") == [
        *("ssh", "-F", "/tmp/my config", "-o", "BatchMode=yes", "--", "site", "x")
    ]


def test_a_server_over_ssh_refuses_several_addresses() -> None:
    # The refusal comes before any ssh session (nothing listens at port 9).
    host = SiteHost(parse_ssh_url("ssh://127.0.0.1:9"), "127.0.0.1", version_line())
    with pytest.raises(ServerError, match=r"listens on 127\.0\.0\.1 only"):
        SshServer(host, ServeOptions(pages=10, addresses=2)).start()


@pytest.mark.parametrize(("workers", "children"), [(1, 0), (2, 2)])
def test_stop_on_eof_stops_the_server_and_its_workers(workers: int, children: int) -> None:
    serve = [sys.executable, "-m", "server", "--pages", "5", "--workers", str(workers)]
    server = subprocess.Popen(
        [*serve, "--stop-on-eof"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=REPO,
    )
    try:
        assert server.stdout is not None and server.stdin is not None
        assert read_line(server.stdout, 30).startswith(b"http://127.0.0.1:")
        started = _children(server.pid)
        assert len(started) >= children
        server.stdin.close()
        assert server.wait(30) == 0
        assert wait_for(lambda: not any(Path(f"/proc/{pid}").exists() for pid in started), 15)
    finally:
        stop_process(server, 5)
        if server.stdout is not None:
            server.stdout.close()


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in path.read_text().split()] if path.exists() else []
