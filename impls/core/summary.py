"""A crawl's summary: the document of `c10k crawl --json` (docs/crawl-json.md), or a few lines."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from c10k.stats import percentile
from impls.core.frontier import Frontier

SCHEMA = "c10k-crawl/1"
PERCENTILES = (50, 90, 99)


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
    fetched = frontier.fetched
    statuses = Counter(o for o in fetched.values() if isinstance(o, int))
    errors = Counter(o.removeprefix("error:") for o in fetched.values() if isinstance(o, str))
    latencies = frontier.latencies  # percentile sorts its own copy
    pages = len(fetched)
    cpu_s = cpu_user_s + cpu_sys_s
    return {
        "schema": SCHEMA,
        "model": model,
        "root": frontier.origin.root,
        "concurrency": config.concurrency,
        "options": {
            "max_redirect": config.max_redirect,
            "max_tries": config.max_tries,
            "timeout": config.timeout,
            "max_body": config.max_body,
            "max_pages": config.max_pages,
            "keep_alive": config.keep_alive,
        },
        "pages": pages,
        "statuses": {str(code): n for code, n in sorted(statuses.items())},
        "errors": dict(sorted(errors.items())),
        "tries": frontier.tries,
        "wall_s": wall_s,
        "pages_per_s": pages / wall_s if wall_s > 0 else None,
        "cpu_user_s": cpu_user_s,
        "cpu_sys_s": cpu_sys_s,
        "cpu_us_per_page": cpu_s / pages * 1e6 if pages else None,
        "max_rss_kib": max_rss_kib,
        "peak_in_flight": frontier.peak_in_flight,
        "latency_s": {f"p{p}": percentile(latencies, p) for p in PERCENTILES}
        | {"max": max(latencies, default=math.nan), "count": len(latencies)},
        "fetched": fetched,
    }


def format_summary(result: dict[str, Any]) -> str:
    """A few lines for a person, like the original crawler's report."""
    statuses = ", ".join(f"{n} × {code}" for code, n in result["statuses"].items()) or "none"
    errors = ", ".join(f"{kind} {n}" for kind, n in result["errors"].items()) or "none"
    latency = result["latency_s"]
    rate = result["pages_per_s"] or 0.0
    per_page = result["cpu_us_per_page"]
    cpu = result["cpu_user_s"] + result["cpu_sys_s"]
    mode = "keep-alive" if result["options"]["keep_alive"] else "one connection per fetch"
    lines = [
        f"{result['model']} crawled {result['root']} with concurrency {result['concurrency']}"
        f" ({mode})",
        f"  {result['pages']} URLs in {result['wall_s']:.2f} s ({rate:.1f} pages/s), "
        f"{result['tries']} tries",
        f"  responses: {statuses}",
        f"  errors: {errors}",
        f"  CPU {cpu:.2f} s"
        + (f" ({per_page:.0f} µs per page)" if per_page is not None else "")
        + f", peak {result['peak_in_flight']} connections open at once, "
        f"max RSS {result['max_rss_kib'] / 1024:.1f} MiB",
        "  latency per try: "
        + ", ".join(
            f"{name} {value * 1000:.1f} ms"
            for name, value in latency.items()
            if name != "count" and not math.isnan(value)
        ),
    ]
    return "\n".join(lines)
