"""A crawl's summary: the document of `c10k crawl --json` (docs/crawl-json.md), or a few lines."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from c10k.stats import percentile
from impls.core.frontier import Frontier
from impls.core.outcomes import Outcome

SCHEMA = "c10k-crawl/1"
PERCENTILES = (50, 90, 99)


# What the document records of the crawl's options (docs/crawl-json.md).
OPTIONS = ("max_redirect", "max_tries", "timeout", "max_body", "max_pages", "keep_alive", "core")
# What a merged document keeps of each process's own.
PROCESS_FIELDS = (
    "pid",
    "root",
    "concurrency",
    "connect_to",
    "pages",
    "tries",
    "peak_in_flight",
    "max_rss_kib",
    "cpu_user_s",
    "cpu_sys_s",
    "wall_s",
)


def build_result(
    frontier: Frontier,
    model: str,
    wall_s: float,
    cpu_user_s: float,
    cpu_sys_s: float,
    max_rss_kib: int,
) -> dict[str, Any]:
    """The crawl's JSON document; field meanings are in docs/crawl-json.md."""
    config = frontier.config
    head = {"model": model, "root": frontier.origin.root, "concurrency": config.concurrency}
    figures = {
        "tries": frontier.tries,
        "wall_s": wall_s,
        "cpu_user_s": cpu_user_s,
        "cpu_sys_s": cpu_sys_s,
        "max_rss_kib": max_rss_kib,
        "peak_in_flight": frontier.peak_in_flight,
    }
    options = {name: getattr(config, name) for name in OPTIONS}
    return _document(head | {"options": options}, frontier.fetched, frontier.latencies, figures)


def merge_results(
    parts: list[dict[str, Any]],
    root: str,
    concurrency: int,
    parent: dict[str, Any],
    one_process: bool = False,
) -> dict[str, Any]:
    """The documents of the crawls of a site's parts (each with its raw `latencies_s`, `pid`
    and `connect_to`) -> one document: URLs and latencies of all, tries, CPU and peak RSS
    summed (one_process: subinterpreters, the parent's peak RSS), the longest wall time, and
    the sum of the parts' connection peaks, an upper bound of the crawl's. `parent` holds
    the parent's own figures (`pid`, `cpu_user_s`, `cpu_sys_s`, `max_rss_kib`), not summed."""

    def total(key: str) -> Any:
        return sum(part[key] for part in parts)

    first = parts[0]
    head = {"model": first["model"], "root": root, "concurrency": concurrency}
    figures = {
        "tries": total("tries"),
        "wall_s": max(part["wall_s"] for part in parts),
        "cpu_user_s": total("cpu_user_s"),
        "cpu_sys_s": total("cpu_sys_s"),
        "max_rss_kib": int(parent["max_rss_kib"]) if one_process else total("max_rss_kib"),
        "peak_in_flight": total("peak_in_flight"),
    }
    merged = _document(
        head | {"options": first["options"]},
        {url: outcome for part in parts for url, outcome in part["fetched"].items()},
        [latency for part in parts for latency in part["latencies_s"]],
        figures,
    )
    merged["peak_in_flight_upper_bound"] = True
    merged["python"] = first["python"]
    if "loop" in first:
        merged["loop"] = first["loop"]
    merged["processes"] = [
        {key: part[key] for key in PROCESS_FIELDS} | {"index": index}
        for index, part in enumerate(parts)
    ]
    merged["parent"] = dict(parent)
    return merged


def _document(
    head: dict[str, Any],
    fetched: dict[str, Outcome],
    latencies: list[float],
    figures: dict[str, Any],
) -> dict[str, Any]:
    """The document's fields in their order: head, then the outcomes and the figures (tries,
    wall_s, cpu_user_s, cpu_sys_s, max_rss_kib, peak_in_flight) with what follows from them."""
    statuses = Counter(o for o in fetched.values() if isinstance(o, int))
    errors = Counter(o.removeprefix("error:") for o in fetched.values() if isinstance(o, str))
    pages = len(fetched)
    wall_s = figures["wall_s"]
    cpu_s = figures["cpu_user_s"] + figures["cpu_sys_s"]
    return (
        {"schema": SCHEMA}
        | head
        | {
            "pages": pages,
            "statuses": {str(code): n for code, n in sorted(statuses.items())},
            "errors": dict(sorted(errors.items())),
            "tries": figures["tries"],
            "wall_s": wall_s,
            "pages_per_s": pages / wall_s if wall_s > 0 else None,
            "cpu_user_s": figures["cpu_user_s"],
            "cpu_sys_s": figures["cpu_sys_s"],
            "cpu_us_per_page": cpu_s / pages * 1e6 if pages else None,
            "max_rss_kib": figures["max_rss_kib"],
            "peak_in_flight": figures["peak_in_flight"],
            # percentile sorts its own copy
            "latency_s": {f"p{p}": percentile(latencies, p) for p in PERCENTILES}
            | {"max": max(latencies, default=math.nan), "count": len(latencies)},
            "fetched": fetched,
        }
    )


def format_summary(result: dict[str, Any]) -> str:
    """A few lines for a person, like the original crawler's report."""
    statuses = ", ".join(f"{n} × {code}" for code, n in result["statuses"].items()) or "none"
    errors = ", ".join(f"{kind} {n}" for kind, n in result["errors"].items()) or "none"
    latency = result["latency_s"]
    rate = result["pages_per_s"] or 0.0
    per_page = result["cpu_us_per_page"]
    cpu = result["cpu_user_s"] + result["cpu_sys_s"]
    mode = "keep-alive" if result["options"]["keep_alive"] else "one connection per fetch"
    processes = result.get("processes", [])
    peak = f"peak {result['peak_in_flight']} connections open at once"
    rss = f"max RSS {result['max_rss_kib'] / 1024:.1f} MiB"
    # Parts crawled in the parent's own process are its subinterpreters, and its RSS.
    one_process = bool(processes) and {p["pid"] for p in processes} == {result["parent"]["pid"]}
    unit, units = ("interpreter", "interpreters") if one_process else ("process", "processes")
    if processes:
        mode += f", {len(processes)} {unit if len(processes) == 1 else units}"
        peak = f"peak at most {result['peak_in_flight']} connections open at once (summed)"
        rss += "" if one_process else " (summed)"
    lines = [
        f"{result['model']} crawled {result['root']} with concurrency {result['concurrency']}"
        f" ({mode})",
        f"  {result['pages']} URLs in {result['wall_s']:.2f} s ({rate:.1f} pages/s), "
        f"{result['tries']} tries",
        f"  responses: {statuses}",
        f"  errors: {errors}",
        f"  CPU {cpu:.2f} s"
        + (f" ({per_page:.0f} µs per page)" if per_page is not None else "")
        + f", {peak}, {rss}",
        "  latency per try: "
        + ", ".join(
            f"{name} {value * 1000:.1f} ms"
            for name, value in latency.items()
            if name != "count" and not math.isnan(value)
        ),
    ]
    lines += [
        f"  {unit} {p['index']} (pid {p['pid']}, {p['root']}): concurrency {p['concurrency']}, "
        f"{p['pages']} URLs, peak {p['peak_in_flight']} connections, "
        f"CPU {p['cpu_user_s'] + p['cpu_sys_s']:.2f} s, max RSS {p['max_rss_kib'] / 1024:.1f} MiB"
        + (f", connects to {p['connect_to']}" if p["connect_to"] else "")
        for p in processes
    ]
    return "\n".join(lines)
