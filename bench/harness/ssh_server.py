"""A test site on another host: `c10k serve` run there over the system's OpenSSH client."""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
from collections.abc import Collection
from dataclasses import dataclass
from urllib.parse import urlsplit

from bench.harness.processes import STOP_GRACE_S
from bench.harness.site import ServeOptions, Server, ServerError, SiteClient
from bench.results import ServerPlace
from c10k.system import stop_process
from c10k.version import DISTRIBUTION, same_code, version_line

# The ssh command the harness runs, split as a shell would: `ssh` unless this says otherwise
# (e.g. "ssh -F /tmp/test/ssh_config", as GIT_SSH_COMMAND does for git).
SSH_COMMAND_ENV = "C10K_SSH"
DEFAULT_REMOTE_C10K = "c10k"
CHECK_TIMEOUT_S = 60.0  # the one session before the runs: connect, log in, `c10k --version`
SESSION_END_S = 15.0  # the remote server stops its workers within 5 s of its stdin's end
_CONNECTION_MARK = "c10k-ssh-connection"


@dataclass(frozen=True)
class SshTarget:
    """`--server ssh://[user@]host[:port]`, and how that host runs c10k: `remote_c10k`, a
    command line for its shell (`c10k`, a path, `cd DIR && .venv/bin/python -m c10k.cli`)."""

    host: str
    user: str | None = None
    port: int | None = None
    remote_c10k: str = DEFAULT_REMOTE_C10K

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        user = f"{self.user}@" if self.user else ""
        port = f":{self.port}" if self.port is not None else ""
        return f"ssh://{user}{host}{port}"

    def c10k(self, *args: str) -> str:
        """The remote shell's command line for `c10k ARGS` (each argument quoted)."""
        return f"{self.remote_c10k} {shlex.join(args)}"

    def ssh_argv(self, remote_command: str) -> list[str]:
        """The local argv that runs remote_command on the host: the user's ssh with their
        keys, known_hosts and config, never prompting, with the URL's port and user."""
        ssh = shlex.split(os.environ.get(SSH_COMMAND_ENV) or "ssh")
        argv = [*ssh, "-o", "BatchMode=yes"]
        if self.port is not None:
            argv += ["-p", str(self.port)]
        if self.user is not None:
            argv += ["-l", self.user]
        return [*argv, "--", self.host, remote_command]


def parse_ssh_url(url: str, remote_c10k: str = DEFAULT_REMOTE_C10K) -> SshTarget:
    """The target of ssh://[user@]host[:port]; ValueError (one line) for anything else."""
    usage = f"--server must be ssh://[user@]host[:port], got {url!r}"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise ValueError(usage) from None
    if parts.scheme != "ssh" or not parts.hostname or parts.path not in ("", "/"):
        raise ValueError(usage)
    if parts.password is not None:  # not echoed: it is a secret
        raise ValueError("--server takes no password in its URL: ssh logs in with your keys")
    if parts.query or parts.fragment:
        raise ValueError(f"{usage}: no query or fragment")
    if parts.hostname.startswith("-") or (parts.username or "").startswith("-"):
        raise ValueError(usage)
    if not remote_c10k.strip():
        raise ValueError("--remote-c10k must name a command")
    return SshTarget(parts.hostname, parts.username or None, port, remote_c10k)


@dataclass(frozen=True)
class SiteHost:
    """The host the sites run on, checked once before any run: reached over ssh at
    `address`, where it runs the same version and source of c10k as this copy."""

    target: SshTarget
    address: str  # where the SSH connection arrived: each site listens, and is crawled, there
    version: str  # the host's `c10k --version`


def server_environment(site_host: SiteHost | None) -> ServerPlace:
    """results.json's environment.server (docs/results.md): where the sites ran."""
    if site_host is None:
        return {"remote": False, "ssh": None, "host": None}
    return {
        "remote": True,
        "ssh": site_host.target.url,
        "host": site_host.address,
        "remote_c10k": site_host.target.remote_c10k,
        "version": site_host.version,
    }


def check_site_host(target: SshTarget) -> SiteHost:
    """Ask the host, in one ssh session, which address the connection arrived at and which
    c10k it runs; ValueError (one line) when ssh cannot reach it, its c10k does not answer,
    or it is another version or source than this copy."""
    where = f"--server {target.url}"
    command = f'echo {_CONNECTION_MARK} "$SSH_CONNECTION"; {target.c10k("--version")}'
    try:
        done = subprocess.run(
            target.ssh_argv(command),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=CHECK_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        raise ValueError(f"{where}: no answer over ssh in {CHECK_TIMEOUT_S:g} s") from None
    except OSError as exc:
        raise ValueError(f"{where}: cannot run ssh: {exc}") from None
    why = ([line.strip() for line in done.stderr.splitlines() if line.strip()] or ["no message"])[
        -1
    ]
    if done.returncode == 255:
        raise ValueError(f"{where}: ssh cannot reach the host: {why}")
    lines = done.stdout.splitlines()
    version = next((line for line in lines if line.startswith(DISTRIBUTION + " ")), None)
    if done.returncode != 0 or version is None:
        raise ValueError(
            f"{where}: `{target.c10k('--version')}` failed there (exit {done.returncode}: "
            f"{why}); install c10k-bench there, or name it with --remote-c10k"
        )
    marked = [line.split()[1:] for line in lines if line.startswith(_CONNECTION_MARK)]
    if not marked or len(marked[0]) != 4:
        raise ValueError(f"{where}: the remote shell gave no SSH_CONNECTION")
    here = version_line()
    if not same_code(version, here):
        raise ValueError(f"{where} runs {version}, this is {here}: install the same code there")
    return SiteHost(target, marked[0][2], version)


class SshServer(SiteClient):
    """`c10k serve --stop-on-eof` on the site host's address for as long as its ssh session
    lasts; its processes out of sight (no pids, no /proc)."""

    remote = True

    def __init__(self, host: SiteHost, options: ServeOptions) -> None:
        super().__init__()
        self.host = host
        self.options = options

    def _start(self) -> None:
        if self.options.addresses > 1:
            raise ServerError(
                f"addresses={self.options.addresses}: a server over ssh listens on "
                f"{self.host.address} only (no --listen); run such a site on this host"
            )
        serve = self.host.target.c10k(
            "serve",
            *("--host", self.host.address, "--allow-non-loopback", "--port", "0"),
            "--stop-on-eof",
            *self.options.argv(),
        )
        # stdin a pipe held open by this process only: its end (stop(), or this harness
        # dying) ends the session's stdin, and with it the remote server.
        self._launch(self.host.target.ssh_argv(serve), stdin=subprocess.PIPE)

    def stop(self) -> None:
        """Close the session's stdin, which stops the remote server and ssh with it; end ssh
        if it has not after SESSION_END_S."""
        if self.process is None:
            return
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        try:
            self.process.wait(SESSION_END_S)
        except subprocess.TimeoutExpired:
            stop_process(self.process, STOP_GRACE_S)  # the session closes with ssh all the same
        self._forget()


def new_site(
    options: ServeOptions, cpus: Collection[int] | None, host: SiteHost | None
) -> SiteClient:
    """A site to start: over ssh on the site host, or here on cpus."""
    return SshServer(host, options) if host else Server(options, cpus)
