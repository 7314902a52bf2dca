"""`c10k crawl --processes P`: P plain crawls of the site's P parts, and their merged document."""

# The site lists its parts at /__parts__ (`c10k serve --parts P`): disjoint, each at its own
# root with its own manifest. Each child is `c10k crawl ROOT_k ... --json`, a crawl of one
# process that knows nothing of the others; this process starts them, waits for them and
# merges their documents. Every wait is bounded, and it stops its children (by PID) when
# one fails or on Ctrl-C.

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from typing import IO, Any
from urllib.parse import urlsplit

from c10k.probes import peak_rss_kib
from c10k.system import stop_process
from impls.cli.checks import UsageError
from impls.core.frontier import shares
from impls.core.outcomes import PartFailed
from impls.core.summary import merge_results
from impls.core.urls import Origin

PARTS_TIMEOUT_S = 10.0  # for the site's answer at /__parts__
POLL_S = 0.05  # how often the wait looks at the children
STOP_GRACE_S = 2.0  # SIGTERM, then SIGKILL after this long
TAIL_CHARS = 300  # of a failed child's stderr, in the one-line error

_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: no proxy


def part_roots(root: str, wanted: int | None, what: str) -> list[str]:
    """The roots of the parts to crawl, one per process (or subinterpreter): as many as the
    site at ROOT lists at /__parts__ (`wanted` None), and then one, ROOT, on a site that lists
    none; UsageError when the site cannot be split into `wanted` parts."""
    if wanted == 1:
        return [root]
    parts = urlsplit(root)
    if (parts.path not in ("", "/") or parts.query) and wanted is not None:
        raise UsageError(f"{what} crawls a site's parts from its root: ROOT must end in /")
    url = f"{parts.scheme}://{parts.netloc}/__parts__"
    try:
        with _opener.open(url, timeout=PARTS_TIMEOUT_S) as response:
            roots = json.loads(response.read())["roots"]
        if not (isinstance(roots, list) and roots and all(isinstance(r, str) for r in roots)):
            raise ValueError(f"not a list of roots: {roots!r}")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        if wanted is None:
            return [root]
        raise UsageError(
            f"{what} needs the project's own server: {url} did not answer ({exc}); a site "
            "that is not c10k serve is crawled by one process"
        ) from None
    if wanted is not None and len(roots) != wanted:
        raise UsageError(
            f"the site at {root} has {len(roots)} part(s); {what} needs a site served "
            f"with --parts {wanted}"
        )
    return [str(r) for r in roots]


@dataclass
class Child:
    """One part's crawl: a `c10k crawl` process, its output in temporary files."""

    index: int
    root: str
    connect_to: str
    process: subprocess.Popen[bytes]
    stdout: IO[bytes]
    stderr: IO[bytes]

    def failure(self, what: str) -> PartFailed:
        """The error for this child, once it has exited (waited for, bounded)."""
        try:
            code: int | None = self.process.wait(STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            code = None
        status = "is still running" if code is None else f"exited with code {code}"
        self.stderr.seek(0)
        text = self.stderr.read().decode(errors="replace").strip()
        tail = " | ".join(text[-TAIL_CHARS:].splitlines()) or "no output on stderr"
        name = f"part {self.index} (pid {self.process.pid}, {self.root})"
        # A limit of the machine (exit 3) stays one for the user.
        return PartFailed(f"{name} {what} and {status}: {tail}", 3 if code == 3 else 1)


def child_argv(args: argparse.Namespace, root: str, concurrency: int, address: str) -> list[str]:
    """A part's crawl: the user's options with the part's root, its share of the concurrency
    and the address it connects to; every try's latency in its document, for the merge."""
    argv = [sys.executable, "-m", "c10k.cli", "crawl", root, "--model", args.model]
    argv += ["--concurrency", str(concurrency), "--max-redirect", str(args.max_redirect)]
    argv += ["--max-tries", str(args.max_tries), "--timeout", repr(args.timeout)]
    argv += ["--max-body", str(args.max_body), "--stack-size", str(args.stack_size)]
    argv += ["--core", args.core, "--latencies", "--json"]
    argv += ["--connect-to", address] if address else []
    argv += ["--keep-alive"] * args.keep_alive + ["--allow-non-loopback"] * args.allow_non_loopback
    return argv


def start(args: argparse.Namespace, roots: list[str], files: contextlib.ExitStack) -> list[Child]:
    """A child per part, their output in temporary files that `files` closes (no pipe fills);
    if one cannot start, those started so far are stopped."""
    children: list[Child] = []
    try:
        for index, (root, concurrency) in enumerate(
            zip(roots, shares(args.concurrency, len(roots)), strict=True)
        ):
            address = args.connect_to[index % len(args.connect_to)] if args.connect_to else ""
            stdout = files.enter_context(tempfile.TemporaryFile())  # noqa: SIM115  # closed by files
            stderr = files.enter_context(tempfile.TemporaryFile())  # noqa: SIM115
            process = subprocess.Popen(
                child_argv(args, root, concurrency, address),
                stdin=subprocess.DEVNULL,
                stdout=stdout,
                stderr=stderr,
            )
            children.append(Child(index, root, address, process, stdout, stderr))
    except BaseException:
        stop_all(children)
        raise
    return children


def stop_all(children: list[Child]) -> None:
    for child in children:
        stop_process(child.process, STOP_GRACE_S)


def wait_all(children: list[Child]) -> list[dict[str, Any]]:
    """Each child's document once all have ended; PartFailed as soon as one fails."""
    while None in (codes := [child.process.poll() for child in children]):
        if failed := [c for c, code in zip(children, codes, strict=True) if code]:
            raise failed[0].failure("failed")
        time.sleep(POLL_S)
    documents = []
    for child in children:
        if child.process.returncode != 0:
            raise child.failure("failed")
        child.stdout.seek(0)
        try:
            document = json.loads(child.stdout.read())
        except ValueError:
            raise child.failure("printed no crawl document") from None
        documents.append(document | {"pid": child.process.pid, "connect_to": child.connect_to})
    return documents


def crawl_parts(args: argparse.Namespace, roots: list[str]) -> dict[str, Any]:
    """Crawl each part in a process of its own; the merged document. A child's failure
    (PartFailed) or Ctrl-C (KeyboardInterrupt) stops the others, then goes on to the caller."""
    children: list[Child] = []
    with contextlib.ExitStack() as files:
        try:
            children = start(args, roots, files)
            documents = wait_all(children)
        except (KeyboardInterrupt, PartFailed):
            stop_all(children)
            raise
    own = resource.getrusage(resource.RUSAGE_SELF)
    whole = resource.getrusage(resource.RUSAGE_CHILDREN)  # the children, imports included
    parent = {
        "pid": os.getpid(),
        "cpu_user_s": own.ru_utime,
        "cpu_sys_s": own.ru_stime,
        "max_rss_kib": peak_rss_kib(),
        "workers_cpu_user_s": whole.ru_utime,
        "workers_cpu_sys_s": whole.ru_stime,
    }
    return merge_results(documents, Origin(args.root).root, args.concurrency, parent)
