"""The core alone: a recorded crawl's responses fed through the parser and the frontier, no I/O."""

# `record ROOT URLS.json OUT` fetches each URL of a site once and writes the raw bytes; `run
# OUT` feeds them through the core's parser and Frontier as a raw-socket model does, with no
# socket, loop or thread. Its crawl document (model "core-replay") is verified against the
# manifest like any crawl's, and its CPU (or instruction count) is the core's cost per page.

from __future__ import annotations

import argparse
import json
import socket
import sys
from collections import deque
from pathlib import Path

from c10k.catalog import CORE_REPLAY
from c10k.probes import mark_crawl_boundary
from impls.cli.crawl import Clock, print_result
from impls.core import READ_SIZE, ErrorKind, FetchError, Frontier, build_request
from impls.core.frontier import CrawlConfig
from impls.core.urls import Origin

PROG = f"python -m {__spec__.name}"  # this program, as `python -m` runs it
# Outcomes recorded without fetching: the server would hang, reset or refuse.
UNFETCHED = {k.outcome: k for k in (ErrorKind.TIMEOUT, ErrorKind.RESET, ErrorKind.CONNECT)}


# -- the recording: one header line of JSON, then the raw bytes, per URL ---------------------


def record(root: str, outcomes: dict[str, object], out: Path, timeout: float = 10.0) -> int:
    """Fetch every URL of a manifest once and write what the server sent; returns the count."""
    with out.open("wb") as sink:
        sink.write(json.dumps({"root": root}).encode() + b"\n")
        for url, outcome in outcomes.items():
            error = UNFETCHED.get(str(outcome))
            raw = b"" if error is not None else fetch_raw(url, timeout)
            header = {"url": url, "error": error, "size": len(raw)}
            sink.write(json.dumps(header).encode() + b"\n" + raw)
    return len(outcomes)


def fetch_raw(url: str, timeout: float) -> bytes:
    """The bytes a server sends for the crawlers' own GET of url on a fresh connection."""
    origin = Origin(url)
    request = build_request(origin.request_target(url), origin.netloc)
    chunks = []
    with socket.create_connection((origin.host, origin.port), timeout=timeout) as sock:
        sock.sendall(request)
        while chunk := sock.recv(READ_SIZE):
            chunks.append(chunk)
    return b"".join(chunks)


def load(path: Path) -> tuple[str, dict[str, bytes | ErrorKind]]:
    """The root and, per URL, its raw response or the error it met."""
    data = path.read_bytes()
    end = data.index(b"\n")
    root = json.loads(data[:end])["root"]
    responses: dict[str, bytes | ErrorKind] = {}
    position = end + 1
    while position < len(data):
        end = data.index(b"\n", position)
        header = json.loads(data[position:end])
        size = header["size"]
        raw = data[end + 1 : end + 1 + size]
        error = header["error"]
        responses[header["url"]] = ErrorKind(error) if error else raw
        position = end + 1 + size
    return root, responses


# -- the replay -------------------------------------------------------------------------------


def replay(frontier: Frontier, responses: dict[str, bytes | ErrorKind]) -> None:
    """Crawl from the recording: each try's bytes go through the parser, in socket-sized reads."""
    queue = deque(frontier.start())
    max_body = frontier.config.max_body
    new_parser = frontier.response_parser
    while queue:
        job = queue.popleft()
        frontier.opened()
        recorded = responses.get(job.url)
        if recorded is None:
            raise LookupError(f"{job.url} is not in the recording (another site?)")
        try:
            if isinstance(recorded, ErrorKind):
                raise FetchError(recorded)
            parser = new_parser(max_body)
            response = None
            for start in range(0, len(recorded), READ_SIZE):
                response = parser.feed(recorded[start : start + READ_SIZE])
                if response is not None:
                    break
            if response is None:
                response = parser.feed_eof()
            queue.extend(frontier.on_response(job, response))
        except FetchError as exc:
            queue.extend(frontier.on_error(job, exc.kind))
        finally:
            frontier.closed()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__)
    commands = p.add_subparsers(dest="command", required=True)
    rec = commands.add_parser("record", help="fetch every URL of a manifest, write the bytes")
    rec.add_argument("root", help="the site's root URL")
    rec.add_argument("urls", type=Path, help="a JSON object: URL -> outcome (a manifest)")
    rec.add_argument("out", type=Path, help="the recording to write")
    run = commands.add_parser("run", help="replay a recording through the core")
    run.add_argument("recording", type=Path)
    run.add_argument("--max-pages", type=int, default=None, help="stop after N URLs")
    run.add_argument("--json", action="store_true", help="print the crawl document as JSON")
    run.add_argument(
        "--mark-crawl", action="store_true", help="as `c10k crawl --mark-crawl`: callgrind cuts"
    )
    args = p.parse_args(argv)
    try:
        if args.command == "record":
            count = record(args.root, json.loads(args.urls.read_text()), args.out)
            print(f"recorded {count} URLs in {args.out}", file=sys.stderr)
            return 0
        root, responses = load(args.recording)
    except (OSError, ValueError, KeyError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    frontier = Frontier(CrawlConfig(root=root, max_pages=args.max_pages))
    clock = Clock()
    if args.mark_crawl:
        mark_crawl_boundary()
    replay(frontier, responses)
    if args.mark_crawl:
        mark_crawl_boundary()
    print_result(clock.document(frontier, CORE_REPLAY), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
