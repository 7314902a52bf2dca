"""`c10k serve`: serve the test site; prints its root URL as the first line of stdout."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import ipaddress
import os
import signal
import socket
import sys
import threading
from typing import Any, NoReturn

from c10k.durations import parse_duration, parse_latency
from c10k.system import raise_open_files_limit
from server.app import Delivery, SiteHandler, listen_backlog
from server.counters import Stats
from server.serve import (
    ServeError,
    listen_with_queues,
    refuse_a_taken_port,
    serve_here,
    serve_workers,
)
from server.site import Site
from server.site_params import FAULT_KINDS, PRESETS, SHAPES, VARIETY, SiteParams
from server.specs import parse_faults, parse_size, parse_size_range

PROG = "c10k serve"
DEFAULT_HOST = "127.0.0.1"
MAX_LISTEN = 256  # addresses in --listen: every worker holds a listening socket on each


class UsageError(Exception):
    """A bad option; reported as one line, exit code 2."""


class UsageParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors raise UsageError (one line, exit 2)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    p = UsageParser(
        prog=PROG,
        description=(
            "Serve the deterministic test site. The root URL (e.g. http://127.0.0.1:43127/) "
            "is the first line of stdout once every worker listens. GET /__manifest__ gives "
            "the exact result of a correct crawl, GET /__stats__ the request counters, "
            "POST /__stats__/reset zeroes them. SIGINT/SIGTERM stop the server."
        ),
        epilog=(
            "Durations: 0, 250us, 50ms, 2s, 1.5s. Latency: a duration, uniform:10ms..100ms, "
            "exp:MEAN, lognormal:MEDIAN,SIGMA. Faults: reset=R,hang=R,500=R,truncate=R,"
            "garbage=R (fractions of the pages). Sizes: 2048, 64KiB, 1MB. See docs/server.md."
        ),
    )
    _add_network_options(p.add_argument_group("network"))
    _add_site_options(p.add_argument_group("site"))
    _add_behaviour_options(p.add_argument_group("behaviour"))
    return p


def _add_network_options(net: argparse._ArgumentGroup) -> None:
    net.add_argument("--host", help=f"address to bind (default {DEFAULT_HOST})")
    net.add_argument("--port", type=int, default=0, help="port (default 0: a free one)")
    net.add_argument(
        "--listen",
        metavar="ADDRS",
        help="instead of --host: listen on several addresses, all on the same port, e.g. "
        "127.0.0.1-127.0.0.8 or 127.0.0.1,::1 (IP literals, ranges of IPv4 addresses, "
        f"at most {MAX_LISTEN}); the URLs name the first, the others are extra doors to the "
        "same site (each gives a client its own 28,232 ephemeral ports); /__stats__ lists them",
    )
    net.add_argument(
        "--allow-non-loopback",
        action="store_true",
        help="allow --host (or a --listen address) to be an address that is not loopback",
    )
    net.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes sharing the port (SO_REUSEPORT); each holds at most about as many "
        "connections as its open-file limit (20,000 on the development machine), so 100,000 "
        "connections need 5 or more",
    )
    net.add_argument(
        "--stop-on-eof",
        action="store_true",
        help="stop, as on SIGTERM, once standard input reaches its end: a server started "
        "over ssh (`c10k bench --server ssh://HOST`) then ends with its session",
    )
    net.add_argument(
        "--loop",
        choices=("auto", "uvloop", "asyncio"),
        default="auto",
        help="event loop of the server (default auto: uvloop when installed)",
    )


def _describe_preset(values: dict[str, Any]) -> str:
    plain = [f"{k}={v}" for k, v in values.items() if not isinstance(v, float)]
    return ", ".join(plain) + ", its own ratios (docs/server.md)"


def _add_site_options(site: argparse._ArgumentGroup) -> None:
    # Site options default to None, so that an option given explicitly is told apart from
    # one left out: --preset fills only the ones left out, wherever it appears.
    d = SiteParams()
    site.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        help="start from a named site: any site option given explicitly, before or after "
        "--preset, overrides its value (--ratio its ratios; --no-variety zeroes them). "
        + "; ".join(f"{name}: {_describe_preset(v)}" for name, v in PRESETS.items()),
    )
    site.add_argument("--pages", type=int, help=f"pages (default {d.pages})")
    site.add_argument(
        "--links", type=int, help=f"links per page, docs: sidebar included (default {d.links})"
    )
    site.add_argument("--shape", choices=SHAPES, help=f"graph shape (default {d.shape})")
    site.add_argument("--seed", type=int, help=f"seed of everything random (default {d.seed})")
    site.add_argument(
        "--parts",
        type=int,
        help=f"serve the site as this many disjoint parts, each at /?part=K with its own "
        f"manifest (/__manifest__?part=K; /__parts__ lists the roots), none linking to "
        f"another: `c10k crawl --processes K` crawls one each; deep and wide only "
        f"(default {d.parts})",
    )
    site.add_argument(
        "--body-size",
        metavar="SIZE|MIN..MAX",
        help=f"page body size (default {d.body_size}); docs: a range drawn per page",
    )
    site.add_argument(
        "--chain-length",
        type=int,
        help=f"longest redirect chain (default {d.chain_length}; >10 exceeds the budget)",
    )
    site.add_argument(
        "--ratio",
        action="append",
        default=[],
        metavar="NAME=VALUE,...",
        help="set variety ratios; names: " + ", ".join(VARIETY),
    )
    site.add_argument(
        "--no-variety", action="store_true", help="plain links only (all ratios 0 first)"
    )


def _add_behaviour_options(behave: argparse._ArgumentGroup) -> None:
    behave.add_argument("--latency", default="0", help="delay before each response")
    behave.add_argument(
        "--root-now",
        action="store_true",
        help="the root page answers at once, every other page after --latency (a hub)",
    )
    behave.add_argument(
        "--bandwidth", default="0", help="body rate per response in bytes/s (0: unlimited)"
    )
    behave.add_argument("--faults", default="none", help="fault rates (default none)")
    behave.add_argument(
        "--hang", default="60", help="a hanging request is closed after this long (default 60s)"
    )


@dataclasses.dataclass
class Options:
    host: str
    port: int
    workers: int
    loop: str
    params: SiteParams
    delivery: Delivery
    # --listen's addresses, host first; empty without --listen (only host is bound).
    listen: list[str] = dataclasses.field(default_factory=list)
    stop_on_eof: bool = False

    @property
    def addresses(self) -> list[str]:
        """Every address to bind."""
        return self.listen or [self.host]


def parse_options(argv: list[str]) -> Options:
    """Parse and check every option; raises UsageError with a one-line message."""
    args = build_parser().parse_args(argv)
    try:
        params = site_params(args)
        delivery = Delivery(
            latency=parse_latency(args.latency),
            seed=params.seed,
            root_latency=not args.root_now,
            bandwidth=parse_size(args.bandwidth),
            hang=parse_duration(args.hang),
            backlog=listen_backlog(),
        )
        if not 0 <= args.port <= 65535:
            raise ValueError(f"--port must be 0..65535, got {args.port}")
        if not 1 <= args.workers <= 64:
            raise ValueError(f"--workers must be 1..64, got {args.workers}")
        listen: list[str] = []
        if args.listen is not None:
            if args.host is not None:
                raise ValueError(
                    "--host and --listen exclude each other: --listen's first "
                    "address is the one the URLs name"
                )
            listen = parse_listen(args.listen)
        host = listen[0] if listen else args.host or DEFAULT_HOST
        for address in listen or [host]:
            check_host(address, args.allow_non_loopback, "--listen" if listen else "--host")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return Options(
        host, args.port, args.workers, args.loop, params, delivery, listen, args.stop_on_eof
    )


def parse_listen(text: str) -> list[str]:
    """`--listen` addresses in order: IP literals and IPv4 ranges FIRST-LAST, comma-separated;
    raises ValueError on anything else, a repeated address or more than MAX_LISTEN."""
    addresses: list[str] = []
    for item in text.split(","):
        item = item.strip()
        first, dash, last = item.partition("-")
        try:
            start = ipaddress.ip_address(first.strip())
            end = ipaddress.ip_address(last.strip()) if dash else start
        except ValueError:
            raise ValueError(
                f"bad --listen item {item!r}: expected an IP address or an IPv4 range "
                "such as 127.0.0.1-127.0.0.8"
            ) from None
        if dash and not (start.version == end.version == 4 and int(start) <= int(end)):
            raise ValueError(f"bad --listen range {item!r}: two IPv4 addresses, low to high")
        if int(end) - int(start) >= MAX_LISTEN:
            raise ValueError(f"--listen range {item!r} has more than {MAX_LISTEN} addresses")
        for number in range(int(start), int(end) + 1):
            address = str(type(start)(number))
            if address in addresses:
                raise ValueError(f"--listen names {address} twice")
            addresses.append(address)
        if len(addresses) > MAX_LISTEN:
            raise ValueError(f"--listen has more than {MAX_LISTEN} addresses")
    return addresses


def site_params(args: argparse.Namespace) -> SiteParams:
    """The site from the options: SiteParams defaults, then the preset's values, then the
    options given explicitly (--no-variety zeroes the ratios before --ratio sets some)."""
    values: dict[str, Any] = dict(PRESETS[args.preset]) if args.preset else {}
    for name in ("pages", "links", "seed", "shape", "chain_length", "parts"):
        if getattr(args, name) is not None:
            values[name] = getattr(args, name)
    if args.body_size is not None:
        values["body_size"], values["body_size_max"] = parse_size_range(args.body_size)
    if args.no_variety:
        values.update(dict.fromkeys(VARIETY, 0.0))
    for item in ",".join(args.ratio).split(","):
        if not item.strip():
            continue
        name, eq, value = item.partition("=")
        if not eq or name.strip() not in VARIETY:
            raise ValueError(f"bad --ratio {item!r}: expected NAME=VALUE, NAME in {VARIETY}")
        values[name.strip()] = float(value)
    faults = parse_faults(args.faults)
    values.update((k, faults[k]) for k in FAULT_KINDS)
    return SiteParams(**values)


def check_host(host: str, allow_non_loopback: bool, option: str = "--host") -> None:
    """Refuse an address that is not loopback unless explicitly allowed."""
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise ValueError(f"cannot resolve {option} {host!r}: {exc}") from None
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).partition("%")[0])
        if not address.is_loopback and not allow_non_loopback:
            raise ValueError(
                f"{option} {host} is not a loopback address ({address}); "
                "add --allow-non-loopback to serve it"
            )


def root_url(host: str, port: int) -> str:
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def run(opts: Options) -> None:
    """Build the site and serve it until a signal; raises ServeError or OSError."""
    open_files = raise_open_files_limit()  # 10,000 connections need 10,000 descriptors
    site = Site(opts.params)
    stats = Stats(opts.workers, opts.listen or None, open_files)
    handler = SiteHandler(site, stats, opts.delivery)
    p = opts.params
    info = (
        f"{PROG}: {p.pages} pages ({p.shape}, {p.links} links, seed {p.seed}"
        + (f", {p.parts} parts" if p.parts > 1 else "")
        + "), "
        f"{opts.workers} worker(s), latency {opts.delivery.latency.kind} "
        f"mean {opts.delivery.latency.mean_s:g}s"
    )

    def ready(port: int) -> None:
        url = root_url(opts.host, port)
        print(url, flush=True)
        doors = ""
        if opts.listen:
            doors = (
                f" on {len(opts.listen)} addresses ({opts.listen[0]}..{opts.listen[-1]}, "
                f"/__stats__ lists them), at most ~{opts.workers * open_files:,} connections "
                f"(open-file limit {open_files:,} per worker)"
            )
        print(f"{info}, serving {url}{doors}", file=sys.stderr, flush=True)
        if opts.stop_on_eof:  # once the workers are forked: a fork copies no thread
            threading.Thread(target=stop_at_end_of_stdin, daemon=True).start()

    if opts.workers == 1:
        refuse_a_taken_port(opts.addresses, opts.port)
        socks = listen_with_queues(opts.addresses, opts.port, opts.delivery.backlog)
        port = socks[0].getsockname()[1]
        warm(handler, root_url(opts.host, port))
        serve_here(handler, socks, lambda: ready(port), opts.loop)
    else:
        serve_workers(
            handler,
            opts.addresses,
            opts.port,
            opts.workers,
            ready,
            opts.loop,
            # Before forking, so that every worker inherits the caches.
            before_fork=lambda port: warm(handler, root_url(opts.host, port)),
        )


def stop_at_end_of_stdin() -> None:
    """Read standard input to its end (what the other side sends is ignored), then stop this
    server as SIGTERM does: its workers with it."""
    with contextlib.suppress(OSError):
        while os.read(0, 4096):
            pass
    os.kill(os.getpid(), signal.SIGTERM)


def warm(handler: SiteHandler, url: str) -> None:
    """Render every page and the manifests (the root's, each part's) before the URL is
    announced: the measured crawl pays for serving only."""
    authority = url.split("/")[2]
    handler.site.prerender(authority)
    for root in {url, *handler.part_roots(authority)}:
        handler.manifest_json(root)


def main(argv: list[str] | None = None) -> int:
    """Entry point of `c10k serve ARGS` and `python -m server ARGS`; returns the exit code:
    a bad option is one line and exit 2, a server that cannot start one line and exit 1."""
    try:
        opts = parse_options(sys.argv[1:] if argv is None else argv)
    except UsageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help
        return exc.code if isinstance(exc.code, int) else 0
    try:
        run(opts)
    except (ServeError, OSError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # a Ctrl-C before the loop took over the signal
        return 0
    return 0
