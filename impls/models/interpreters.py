"""The interpreters model: subinterpreters (a GIL each) in one process, the callbacks model in each.

CPython 3.14's concurrent.interpreters runs Python in parallel without free-threading: each
subinterpreter has its own GIL. N of them, each in a thread of this process, share the crawl
as the processes of `--processes` do (impls/models/interpreter_shares.py): each runs the
callbacks model's code on the URLs it owns, on the pure core (httptools and selectolax refuse
to load in a subinterpreter), while this interpreter routes the URLs they find to their
owners. So each parses its pages at the same time as the others.
"""

from __future__ import annotations

import argparse
import os
import resource
from typing import Any

from c10k.probes import mark_crawl_boundary, peak_rss_kib
from c10k.system import usable_cores
from impls.cli.crawl import crawl_config
from impls.core import Frontier
from impls.core.summary import merge_results
from impls.models.interpreter_shares import crawl_in_interpreters, share_configs


def run(frontier: Frontier) -> None:
    """The model for in-process callers (the contract tests): one subinterpreter per usable
    core, at most the concurrency, on the pure core whatever the config's; their outcomes,
    tries and latencies into frontier, its peak the sum of theirs (an upper bound)."""
    config = frontier.config
    if frontier.partition is not None or config.max_pages is not None:
        raise ValueError("the interpreters model shares its crawl itself: no partition or cap")
    count = min(usable_cores(), config.concurrency)
    for part in crawl_in_interpreters(share_configs(config, count)).documents:
        frontier.fetched.update(part["fetched"])
        frontier.latencies += part["latencies_s"]
        frontier.tries += part["tries"]
        frontier.peak_in_flight += part["peak_in_flight"]


def coordinate(args: argparse.Namespace, connect_host: str) -> dict[str, Any]:
    """`c10k crawl --model interpreters [--interpreters N]`: the merged document, in the
    shape of a `--processes` crawl's (an entry per interpreter in `processes`), its figures
    defined alike: the CPU of the crawls and of the coordinator (this process less the
    interpreters' threads), the interpreters' start-ups apart (`workers_cpu_*_s`, their
    threads' whole CPU); the peak RSS this one process's."""
    config = crawl_config(args, connect_host, None)
    configs = share_configs(config, args.interpreters, args.connect_to)
    crawled = crawl_in_interpreters(configs, mark_crawl_boundary if args.mark_crawl else None)
    for part, share in zip(crawled.documents, configs, strict=True):
        part["connect_to"] = share.connect_host if args.connect_to else ""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    coordinator = {
        "pid": os.getpid(),
        "cpu_user_s": usage.ru_utime - crawled.threads_cpu_user_s,
        "cpu_sys_s": usage.ru_stime - crawled.threads_cpu_sys_s,
        "max_rss_kib": peak_rss_kib(),
        "workers_cpu_user_s": crawled.threads_cpu_user_s,
        "workers_cpu_sys_s": crawled.threads_cpu_sys_s,
    }
    root = crawl_config(args, connect_host, None).root
    return merge_results(crawled.documents, root, args.concurrency, coordinator, one_process=True)
