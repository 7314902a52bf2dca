"""`c10k crawl`'s parser: its options, in the order --help lists them, and their types."""

from __future__ import annotations

import argparse
import ipaddress
from collections.abc import Callable
from typing import Any

from c10k.catalog import CORES, CRAWLERS, INTERPRETERS
from impls.core.frontier import MiB


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
    for option, kind, default, text in (
        ("--concurrency", positive_int, 10, "fetches in flight at most (default 10)"),
        ("--max-redirect", non_negative_int, 10, "redirect budget per link (default 10)"),
        (
            "--max-tries",
            positive_int,
            4,
            "tries per URL for connection errors and timeouts (default 4)",
        ),
        (
            "--timeout",
            positive_float,
            10.0,
            "seconds for one whole fetch, connect to last byte (default 10)",
        ),
        ("--max-body", parse_size, 10 * MiB, "largest body accepted (default 10MiB)"),
        ("--max-pages", positive_int, None, "fetch at most this many URLs"),
    ):
        parser.add_argument(option, type=kind, default=default, help=text)
    add_how_options(parser)
    add_output_options(parser)
    add_process_options(parser)
    return parser


def add_how_options(parser: argparse.ArgumentParser) -> None:
    """How the crawler works: its threads' stacks, its connections, its core."""
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
        "--core",
        choices=CORES,
        default=None,  # the model's own (catalog.Model.core), else c: check_usage decides
        help="the crawler core's response parser and link extractor: c (httptools, "
        "selectolax) or pure (Python's own; loads in a subinterpreter) (default c; the "
        "interpreters model runs on pure only)",
    )


def add_output_options(parser: argparse.ArgumentParser) -> None:
    """What the crawl prints, and what it may reach."""
    parser.add_argument(
        "--json", action="store_true", help="print one JSON document instead of a summary"
    )
    parser.add_argument(
        "--latencies",
        action="store_true",
        help="with --json: add every try's latency in seconds (latencies_s), from which "
        "--processes merges its parts' percentiles",
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


def add_process_options(parser: argparse.ArgumentParser) -> None:
    """How many processes share the crawl, and where they connect."""
    parser.add_argument(
        "--processes",
        metavar="P",
        type=positive_int,
        default=1,
        help="crawl the site's P parts (`c10k serve --parts P`), each in a process of the "
        "model with its own open-file limit, and merge their documents; --concurrency is "
        "the total (default 1)",
    )
    parser.add_argument(
        "--connect-to",
        metavar="ADDR[,ADDR...]",
        type=address_list,
        default=[],
        help="IP addresses to connect to instead of ROOT's host (the requests still name "
        "ROOT); process i connects to the (i mod n)-th, so more addresses give more ports",
    )
    parser.add_argument(
        "--interpreters",
        metavar="N",
        type=positive_int,
        default=None,
        help=f"model {INTERPRETERS.name}: crawl the site's N parts, each in a subinterpreter "
        "of this process, --concurrency the total (default: the site's parts, one on a site "
        "that is not c10k serve --parts)",
    )


def address_list(text: str) -> list[str]:
    """'127.0.0.2,127.0.0.3' -> the addresses, each an IP literal (checked for loopback later)."""
    addresses = [part.strip() for part in text.split(",")]
    for address in addresses:
        try:
            ipaddress.ip_address(address)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an IP address: {address!r}") from None
    return addresses
