"""`c10k crawl` and `c10k models`: run one model on one site and report what it fetched."""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import platform
import resource
import socket
import sys
import sysconfig
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from c10k.catalog import CRAWLERS, PEERS, Model
from c10k.probes import mark_crawl_boundary, peak_rss_kib
from c10k.system import raise_open_files_limit
from impls.core.frontier import CrawlConfig, Frontier, MiB
from impls.core.outcomes import ResourceLimit
from impls.core.partition import CoordinatorLost, Partition, ProtocolError, shares
from impls.core.summary import build_result, format_summary

# Sockets the crawler may need beside its connections: stdio, the event loop's own
# descriptors (epoll, self-pipe), thread-pool wakeups, imported extension modules.
FD_RESERVE = 64


class UsageError(Exception):
    """A mistake in the command line: reported in one line, exit code 2."""


def parse_size(text: str) -> int:
    """'10MiB', '512KiB', '1000000' -> bytes."""
    units = {"kib": 1024, "mib": MiB, "gib": 1024 * MiB, "kb": 1000, "mb": 10**6, "b": 1}
    lowered = text.strip().lower()
    for unit, factor in units.items():
        if lowered.endswith(unit) and lowered[: -len(unit)].strip().replace(".", "", 1).isdigit():
            return int(float(lowered[: -len(unit)]) * factor)
    if lowered.isdigit():
        return int(lowered)
    raise argparse.ArgumentTypeError(f"not a size: {text!r} (try 10MiB, 512KiB or 1000000)")


def _number(
    text: str, kind: type[int] | type[float], allowed: Callable[[Any], bool], rule: str
) -> Any:
    """Parse one option's number; argparse turns the error into one line and exit code 2."""
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not {'an integer' if kind is int else 'a number'}: {text!r}"
        ) from None
    if not allowed(value):
        raise argparse.ArgumentTypeError(f"must be {rule}: {text}")
    return value


def positive_int(text: str) -> int:
    return int(_number(text, int, lambda v: v >= 1, "at least 1"))


def non_negative_int(text: str) -> int:
    return int(_number(text, int, lambda v: v >= 0, "0 or more"))


def positive_float(text: str) -> float:
    return float(_number(text, float, lambda v: v > 0, "more than 0"))


def crawl_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="c10k crawl",
        description="Crawl a site with one concurrency model and report what was fetched.",
    )
    parser.add_argument("root", metavar="ROOT", help="the start URL, e.g. http://127.0.0.1:8080/")
    parser.add_argument("--model", required=True, help="one of: " + ", ".join(CRAWLERS))
    parser.add_argument(
        "--concurrency",
        type=positive_int,
        default=10,
        help="fetches in flight at most (default 10)",
    )
    parser.add_argument(
        "--max-redirect",
        type=non_negative_int,
        default=10,
        help="redirect budget per link (default 10)",
    )
    parser.add_argument(
        "--max-tries",
        type=positive_int,
        default=4,
        help="tries per URL for connection errors and timeouts (default 4)",
    )
    parser.add_argument(
        "--timeout",
        type=positive_float,
        default=10.0,
        help="seconds for one whole fetch, connect to last byte (default 10)",
    )
    parser.add_argument(
        "--max-body",
        type=parse_size,
        default=10 * MiB,
        help="largest body accepted (default 10MiB)",
    )
    parser.add_argument(
        "--max-pages", type=positive_int, default=None, help="fetch at most this many URLs"
    )
    parser.add_argument(
        "--stack-size",
        type=parse_size,
        default=0,
        help="threads model: stack size per thread (default: the platform's)",
    )
    parser.add_argument(
        "--keep-alive",
        action="store_true",
        help="each worker keeps one HTTP/1.1 persistent connection and reuses it across "
        "fetches (default: a new connection per fetch, with Connection: close)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON document instead of a summary"
    )
    parser.add_argument(
        "--mark-crawl",
        action="store_true",
        help="call sched_yield() as the crawl starts and as it ends: the cuts that "
        "callgrind's --dump-before=sched_yield makes to count the crawl alone",
    )
    parser.add_argument(
        "--allow-non-loopback",
        action="store_true",
        help="allow a ROOT (and --connect-to addresses) not on a loopback address",
    )
    parser.add_argument(
        "--processes",
        metavar="P",
        type=positive_int,
        default=1,
        help="share the crawl among P processes of the model, each with its own open-file "
        "limit; URLs are partitioned by a hash, --concurrency is the total (default 1)",
    )
    parser.add_argument(
        "--connect-to",
        metavar="ADDR[,ADDR...]",
        type=address_list,
        default=[],
        help="IP addresses to connect to instead of ROOT's host (the requests still name "
        "ROOT); process i connects to the (i mod n)-th, so more addresses give more ports",
    )
    # A worker of `--processes`, started by the coordinator (impls/coordinator.py).
    parser.add_argument("--partition", type=partition_spec, help=argparse.SUPPRESS)
    parser.add_argument("--channel-fd", type=non_negative_int, help=argparse.SUPPRESS)
    return parser


def address_list(text: str) -> list[str]:
    """'127.0.0.2,127.0.0.3' -> the addresses, each an IP literal (checked for loopback later)."""
    addresses = [part.strip() for part in text.split(",")]
    for address in addresses:
        try:
            ipaddress.ip_address(address)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an IP address: {address!r}") from None
    return addresses


def partition_spec(text: str) -> tuple[int, int]:
    """'I/P' -> (I, P): this worker's index among P processes."""
    index, _, processes = text.partition("/")
    if not (index.isdigit() and processes.isdigit() and int(index) < int(processes)):
        raise argparse.ArgumentTypeError(f"not INDEX/PROCESSES: {text!r}")
    return int(index), int(processes)


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
            "--max-pages cannot be used with --processes: no process knows how many "
            "URLs the others queued"
        )
    if args.mark_crawl:
        raise UsageError("--mark-crawl counts one process: it cannot be used with --processes")


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


def python_block() -> dict[str, Any]:
    """The interpreter that crawled, and whether the GIL is enabled now (call it at the end
    of the crawl: an extension module that does not declare free-threading support turns
    the GIL back on when it is imported). A build without sys._is_gil_enabled has a GIL."""
    is_gil_enabled = getattr(sys, "_is_gil_enabled", None)
    return {
        "version": platform.python_version(),
        "implementation": platform.python_implementation(),
        "gil_disabled_build": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
        "gil_enabled": True if is_gil_enabled is None else bool(is_gil_enabled()),
    }


def crawl_main(argv: list[str]) -> int:
    parser = crawl_parser()
    args = parser.parse_args(argv)
    try:
        model = CRAWLERS.get(args.model)
        if model is None:
            raise UsageError(f"unknown model {args.model!r}; choose one of: {', '.join(CRAWLERS)}")
        peer = PEERS.get(model.name)
        if peer is not None and peer.missing():
            raise UsageError(peer.install_hint())
        if missing := model.missing():
            raise UsageError(
                f"model {model.name} needs {', '.join(missing)}, which is not installed"
            )
        connect_host = resolve_root(args.root, args.allow_non_loopback)
        check_connect_to(args.connect_to, args.allow_non_loopback)
        if (args.partition is None) != (args.channel_fd is None):
            raise UsageError("--partition and --channel-fd go together")
        if args.processes > 1:
            check_processes(args, model)
        # Each process needs its own share of the files, within its own limit.
        ensure_fd_limit(max(shares(args.concurrency, args.processes)))
    except UsageError as exc:
        parser.exit(2, f"c10k crawl: error: {exc}\n")
    if args.processes > 1:
        from impls.coordinator import coordinate  # the parent of the worker processes

        return coordinate(args, model)
    if args.connect_to:
        connect_host = args.connect_to[0]
    config = CrawlConfig(
        root=args.root,
        concurrency=args.concurrency,
        max_redirect=args.max_redirect,
        max_tries=args.max_tries,
        timeout=args.timeout,
        max_body=args.max_body,
        max_pages=args.max_pages,
        connect_host=connect_host,
        stack_size=args.stack_size,
        # A peer keeps its own connection mode: the document says the one really used.
        keep_alive=peer.keep_alive if peer is not None else args.keep_alive,
    )
    runner = model.load()
    frontier = Frontier(config)
    if args.partition is not None:
        index, processes = args.partition
        frontier.partition = Partition(index, processes, channel_fd=args.channel_fd)
    before = resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    try:
        if args.mark_crawl:
            mark_crawl_boundary()
        deviations = runner(frontier)  # a peer returns its deviations from the contract
        if args.mark_crawl:
            mark_crawl_boundary()
    except KeyboardInterrupt:
        print("c10k crawl: interrupted", file=sys.stderr)
        return 130
    except ResourceLimit as exc:
        print(
            f"c10k crawl: error: {model.name} hit a limit of this machine: {exc}", file=sys.stderr
        )
        return 3
    except (CoordinatorLost, ProtocolError) as exc:
        print(f"c10k crawl: error: worker {args.partition[0]}: {exc}", file=sys.stderr)
        return 1
    wall_s = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF)
    result = build_result(
        frontier,
        model.name,
        wall_s=wall_s,
        cpu_user_s=after.ru_utime - before.ru_utime,
        cpu_sys_s=after.ru_stime - before.ru_stime,
        max_rss_kib=peak_rss_kib(),
    )
    result["python"] = python_block()
    if model.loop:  # which asyncio event loop, and which of its APIs (docs/crawl-json.md)
        result["loop"] = {"name": model.loop, "api": model.loop_api}
    if peer is not None:
        result["peer"] = True
        counted = dict(deviations or {})
        if peer.keep_alive and not args.keep_alive:
            # Close mode was asked; every try went over the peer's kept connections.
            counted["keep-alive-not-close"] = frontier.tries
        result["deviations"] = dict(sorted(counted.items()))
    if args.partition is not None:  # what the coordinator merges (impls/core/summary.py)
        result |= {
            "pid": os.getpid(),
            "connect_to": args.connect_to[0] if args.connect_to else "",
            "latencies_s": frontier.latencies,
        }
    print_result(result, args.json)
    return 0


def print_result(result: dict[str, Any], as_json: bool) -> None:
    """The crawl document on stdout, or the summary for a person."""
    if as_json:
        json.dump(result, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(format_summary(result))


def models_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="c10k models", description="List the crawler models.")
    parser.add_argument("--json", action="store_true", help="print a JSON list")
    args = parser.parse_args(argv)
    rows: list[dict[str, Any]] = [
        {"name": m.name, "style": m.description, "missing": m.missing(), "peer": m.name in PEERS}
        for m in CRAWLERS.values()
    ]
    if args.json:
        json.dump(rows, sys.stdout)
        sys.stdout.write("\n")
        return 0
    width = max(len(m) for m in CRAWLERS)
    for row in rows:
        note = f"  [missing: {', '.join(row['missing'])}]" if row["missing"] else ""
        if row["peer"] and row["missing"]:
            note = f"  [{PEERS[row['name']].install_hint()}]"
        print(f"{row['name']:<{width}}  {row['style']}{note}")
    return 0
