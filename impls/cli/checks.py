"""What `c10k crawl` checks before it crawls: the model, ROOT, the addresses, the limits."""

from __future__ import annotations

import argparse
import ipaddress
import resource
import socket
from urllib.parse import urlsplit

from c10k.catalog import CORE_C, CRAWLERS, INTERPRETERS, PEERS, Model, Peer
from c10k.system import raise_open_files_limit

# Sockets the crawler may need beside its connections: stdio, the event loop's own
# descriptors (epoll, self-pipe), thread-pool wakeups, imported extension modules.
FD_RESERVE = 64


class UsageError(Exception):
    """A mistake in the command line: reported in one line, exit code 2."""


def is_loopback_host(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def resolve_root(root: str, allow_non_loopback: bool) -> str:
    """Check ROOT and return the address to connect to."""
    parts = urlsplit(root)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"ROOT must be an http(s) URL, got {root!r}")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise UsageError(f"ROOT has a bad port: {root!r}") from None
    if parts.scheme == "https":
        raise UsageError("https is not supported yet: the models speak plain HTTP/1.x")
    host = parts.hostname
    if not allow_non_loopback and not is_loopback_host(host):
        raise UsageError(
            f"ROOT {host!r} is not a loopback address (pass --allow-non-loopback to crawl it)"
        )
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise UsageError(f"cannot resolve {host!r}: {exc.strerror}") from None
    # Prefer IPv4, as the test site listens there; fall back to whatever there is.
    infos.sort(key=lambda info: info[0] != socket.AF_INET)
    address = str(infos[0][4][0])
    if not allow_non_loopback and not ipaddress.ip_address(address).is_loopback:
        raise UsageError(f"ROOT {host!r} resolves to {address}, not a loopback address")
    return address


def check_connect_to(addresses: list[str], allow_non_loopback: bool) -> None:
    for address in addresses:
        if not allow_non_loopback and not ipaddress.ip_address(address).is_loopback:
            raise UsageError(
                f"--connect-to {address} is not a loopback address "
                "(pass --allow-non-loopback to connect to it)"
            )


def check_processes(args: argparse.Namespace, model: Model) -> None:
    """What --processes P > 1 asks that cannot be done, in one line."""
    if not model.processes:
        raise UsageError(f"model {model.name} does not support --processes")
    if args.processes > args.concurrency:
        raise UsageError(
            f"--processes {args.processes} is more than --concurrency {args.concurrency}: "
            "each process needs at least one"
        )
    if args.max_pages is not None:
        raise UsageError(
            "--max-pages cannot be used with --processes: each part's crawl would need a "
            "cap of its own"
        )
    if args.mark_crawl:
        raise UsageError("--mark-crawl counts one process: it cannot be used with --processes")


def choose_core(args: argparse.Namespace, model: Model, peer: Peer | None) -> str:
    """The core variant: the one asked, else the model's own, else C; UsageError if the
    model runs on another only."""
    if peer is not None and args.core not in (None, CORE_C):
        raise UsageError(f"{peer.name} parses with its own code: --core does not apply")
    if model.core and args.core not in (None, model.core):
        raise UsageError(f"model {model.name} runs on --core {model.core} only")
    return str(args.core or model.core or CORE_C)


def choose_interpreters(args: argparse.Namespace, model: Model) -> int | None:
    """How many subinterpreters crawl the site's parts: --interpreters, else None (as many
    as the site has parts); 0 for any other model. UsageError for what cannot be done."""
    if not model.in_parts:
        if args.interpreters is not None:
            raise UsageError(f"--interpreters is for model {INTERPRETERS.name}")
        return 0
    if args.interpreters is not None and args.interpreters > args.concurrency:
        raise UsageError(
            f"--interpreters {args.interpreters} is more than --concurrency {args.concurrency}: "
            "each interpreter needs at least one"
        )
    if args.max_pages is not None:
        raise UsageError(
            f"--max-pages cannot be used with model {model.name}: its parts' crawls would "
            "need a cap each"
        )
    return int(args.interpreters) if args.interpreters is not None else None


def ensure_fd_limit(concurrency: int) -> None:
    """Raise the soft open-file limit as far as the hard one allows, or refuse clearly."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = concurrency + FD_RESERVE
    if needed <= soft:
        return
    if hard != resource.RLIM_INFINITY and needed > hard:
        raise UsageError(
            f"--concurrency {concurrency} needs about {needed} open files, but this "
            f"process may open at most {hard} (RLIMIT_NOFILE hard limit); "
            f"use --concurrency {hard - FD_RESERVE} or less"
        )
    if raise_open_files_limit(needed) < needed:
        raise UsageError(f"could not raise the open-file limit to {needed} (setrlimit refused)")


def check_usage(args: argparse.Namespace) -> tuple[Model, Peer | None, str]:
    """The model, its peer entry (None for a model) and the address to connect to, settling
    args.core and args.interpreters (their defaults depend on the model); UsageError."""
    model = CRAWLERS.get(args.model)
    if model is None:
        raise UsageError(f"unknown model {args.model!r}; choose one of: {', '.join(CRAWLERS)}")
    if why := model.unavailable():
        raise UsageError(why)
    peer = PEERS.get(model.name)
    if peer is not None and peer.missing():
        raise UsageError(peer.install_hint())
    args.core = choose_core(args, model, peer)
    args.interpreters = choose_interpreters(args, model)
    if missing := model.missing():
        raise UsageError(f"model {model.name} needs {', '.join(missing)}, which is not installed")
    connect_host = resolve_root(args.root, args.allow_non_loopback)
    check_connect_to(args.connect_to, args.allow_non_loopback)
    if args.processes > 1:
        check_processes(args, model)
    # Each process needs its own share of the files, within its own limit; subinterpreters
    # share this one's, each with a selector of its own.
    ensure_fd_limit(-(-args.concurrency // args.processes) + (args.interpreters or 1))
    return model, peer, args.connect_to[0] if args.connect_to else connect_host
