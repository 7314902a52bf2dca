"""The interpreters model: a subinterpreter per part of the site, the callbacks model in each."""

from __future__ import annotations

import argparse
import dataclasses
import os
import resource
from typing import Any

from c10k.catalog import INTERPRETERS
from c10k.probes import mark_crawl_boundary, peak_rss_kib
from impls.cli.crawl import crawl_config
from impls.core import Frontier
from impls.core.summary import merge_results
from impls.core.urls import Origin
from impls.models.interpreter_shares import crawl_in_interpreters, part_configs


def run(frontier: Frontier) -> None:
    """The model for in-process callers (the contract tests): one subinterpreter crawls the
    config on the pure core; its outcomes, tries, latencies and peak into frontier."""
    config = dataclasses.replace(frontier.config, core=INTERPRETERS.core)
    (part,) = crawl_in_interpreters([config]).documents
    frontier.fetched.update(part["fetched"])
    frontier.latencies += part["latencies_s"]
    frontier.tries += part["tries"]
    frontier.peak_in_flight += part["peak_in_flight"]


def crawl_parts(args: argparse.Namespace, connect_host: str, roots: list[str]) -> dict[str, Any]:
    """`c10k crawl --model interpreters`: a subinterpreter per part of the site, merged as a
    `--processes` crawl is: the parent's CPU (this process less the interpreters' threads)
    and the threads' whole CPU (`workers_cpu_*_s`) apart; the peak RSS this process's."""
    config = crawl_config(args, connect_host, None)
    configs = part_configs(config, roots, args.connect_to)
    crawled = crawl_in_interpreters(configs, mark_crawl_boundary if args.mark_crawl else None)
    for part, share in zip(crawled.documents, configs, strict=True):
        part["connect_to"] = share.connect_host if args.connect_to else ""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    parent = {
        "pid": os.getpid(),
        "cpu_user_s": usage.ru_utime - crawled.threads_cpu_user_s,
        "cpu_sys_s": usage.ru_stime - crawled.threads_cpu_sys_s,
        "max_rss_kib": peak_rss_kib(),
        "workers_cpu_user_s": crawled.threads_cpu_user_s,
        "workers_cpu_sys_s": crawled.threads_cpu_sys_s,
    }
    root = Origin(config.root).root
    return merge_results(crawled.documents, root, args.concurrency, parent, one_process=True)
