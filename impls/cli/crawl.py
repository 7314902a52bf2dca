"""`c10k crawl`: one model crawls one site (or each of its parts); what it fetched."""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import sysconfig
import time
from collections.abc import Callable
from typing import Any

from c10k.catalog import Model, Peer
from c10k.probes import mark_crawl_boundary, package_versions, peak_rss_kib
from impls.cli.checks import UsageError, check_usage
from impls.cli.options import crawl_parser
from impls.core.frontier import CrawlConfig, Frontier
from impls.core.outcomes import PartFailed, ResourceLimit
from impls.core.summary import build_result, format_summary


def crawl_main(argv: list[str]) -> int:
    parser = crawl_parser()
    args = parser.parse_args(argv)
    try:
        model, peer, connect_host = check_usage(args)
        roots = roots_to_crawl(args, model)
    except UsageError as exc:
        parser.exit(2, f"c10k crawl: error: {exc}\n")
    if args.processes > 1:
        from impls.cli.parts import crawl_parts  # its children's parent: subprocess, urllib

        return crawl_merged(args, lambda: crawl_parts(args, roots), f"--processes {args.processes}")
    if model.in_parts:  # its parts in subinterpreters of this process, merged here
        run = model.load_in_parts()
        code = crawl_merged(args, lambda: run(args, connect_host, roots), f"model {model.name}")
        if code:  # a subinterpreter still crawling cannot be stopped: ending the process does
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        return code
    return crawl(args, model, peer, connect_host)


def roots_to_crawl(args: argparse.Namespace, model: Model) -> list[str]:
    """The roots of the site's parts, one per process (--processes) or subinterpreter (the
    interpreters model: as many as the site has parts, unless --interpreters says); [] for
    a plain crawl. UsageError when the site cannot be split as asked."""
    if args.processes == 1 and not model.in_parts:
        return []
    from impls.cli.parts import part_roots  # urllib: not for a plain crawl, nor its imports

    if args.processes > 1:
        return part_roots(args.root, args.processes, f"--processes {args.processes}")
    roots = part_roots(args.root, args.interpreters, f"--interpreters {args.interpreters}")
    if len(roots) > args.concurrency:
        raise UsageError(
            f"the site has {len(roots)} parts, more than --concurrency {args.concurrency}: "
            "each interpreter needs at least one"
        )
    args.interpreters = len(roots)
    return roots


def crawl_merged(args: argparse.Namespace, run: Callable[[], dict[str, Any]], what: str) -> int:
    """A crawl of the site's parts: `run` crawls them; print their merged document."""
    try:
        result = run()  # its own marks, if any (--processes refuses --mark-crawl)
    except KeyboardInterrupt:
        print("c10k crawl: interrupted", file=sys.stderr)
        return 130
    except PartFailed as exc:
        print(f"c10k crawl: error: {what}: {exc}", file=sys.stderr)
        return exc.exit_code
    print_result(result, args.json)
    return 0


def crawl_config(args: argparse.Namespace, connect_host: str, peer: Peer | None) -> CrawlConfig:
    return CrawlConfig(
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
        core=args.core,
    )


def crawl(args: argparse.Namespace, model: Model, peer: Peer | None, connect_host: str) -> int:
    """One process's crawl (alone, or a part's for `--processes`); print its document."""
    runner = model.load()
    frontier = Frontier(crawl_config(args, connect_host, peer))
    clock = Clock()
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
    result = clock.document(frontier, model.name)
    if model.loop:  # which asyncio event loop, its version, which of its APIs (crawl-json.md)
        result["loop"] = {"name": model.loop, "api": model.loop_api, "version": loop_version(model)}
    if args.latencies:  # what `--processes` merges (impls/cli/parts.py)
        result["latencies_s"] = frontier.latencies
    if peer is not None:
        add_peer(result, args, frontier, peer, deviations)
    print_result(result, args.json)
    return 0


class Clock:
    """A crawl's wall time and CPU from its start; the CPU is the process's, or one thread's
    (`who`: getrusage's RUSAGE_SELF or RUSAGE_THREAD)."""

    def __init__(self, who: int = resource.RUSAGE_SELF) -> None:
        self.who = who
        self.before = resource.getrusage(who)
        self.started = time.perf_counter()

    def document(self, frontier: Frontier, model: str) -> dict[str, Any]:
        """The crawl's document, read now, at its end; with the interpreter that crawled."""
        wall_s = time.perf_counter() - self.started
        after = resource.getrusage(self.who)
        result = build_result(
            frontier,
            model,
            wall_s=wall_s,
            cpu_user_s=after.ru_utime - self.before.ru_utime,
            cpu_sys_s=after.ru_stime - self.before.ru_stime,
            max_rss_kib=peak_rss_kib(),
        )
        result["python"] = python_block()
        return result


def add_peer(
    result: dict[str, Any],
    args: argparse.Namespace,
    frontier: Frontier,
    peer: Peer,
    deviations: dict[str, int] | None,
) -> None:
    """A peer's deviations from the contract."""
    result["peer"] = True
    counted = dict(deviations or {})
    if peer.keep_alive and not args.keep_alive:
        # Close mode was asked; every try went over the peer's kept connections.
        counted["keep-alive-not-close"] = frontier.tries
    result["deviations"] = dict(sorted(counted.items()))


def loop_version(model: Model) -> str | None:
    """The version of the loop that crawled: the installed package's, or asyncio's Python's."""
    if model.loop == "asyncio":
        return platform.python_version()
    return package_versions((model.loop,))[model.loop]


def python_block() -> dict[str, Any]:
    """The interpreter that crawled, and whether the GIL is enabled now: at the crawl's end,
    as an extension module that does not declare free-threading turns it back on."""
    is_gil_enabled = getattr(sys, "_is_gil_enabled", None)
    return {
        "version": platform.python_version(),
        "implementation": platform.python_implementation(),
        "gil_disabled_build": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
        "gil_enabled": True if is_gil_enabled is None else bool(is_gil_enabled()),
    }


def print_result(result: dict[str, Any], as_json: bool) -> None:
    """The crawl document on stdout, or the summary for a person."""
    print(json.dumps(result) if as_json else format_summary(result))
