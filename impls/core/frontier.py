"""The frontier: what to fetch next, what was seen, and each URL's outcome (sans-I/O)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from c10k.catalog import CORE_C
from impls.core.http_base import ResponseParserBase, build_request
from impls.core.outcomes import ErrorKind, FetchError, Outcome, Response
from impls.core.urls import LinkResolver, Origin, resolve
from impls.core.variants import load_core

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
HTML_TYPE = "text/html"
MiB = 1024 * 1024


@dataclass(frozen=True)
class CrawlConfig:
    """The options of one crawl; the defaults are the contract's."""

    root: str
    concurrency: int = 10
    max_redirect: int = 10
    max_tries: int = 4
    timeout: float = 10.0
    max_body: int = 10 * MiB
    max_pages: int | None = None
    # The address to connect to (ROOT's host resolved once, before the crawl starts), so
    # that no model pays for name resolution per fetch.
    connect_host: str = ""
    # Threads model only: the stack size of each worker thread in bytes (0: the default).
    stack_size: int = 0
    keep_alive: bool = False  # each worker reuses one persistent connection (docs/contract.md)
    core: str = CORE_C  # the core's variant: c or pure (docs/contract.md#core-variants)


def shares(total: int, parts: int) -> list[int]:
    """--concurrency split across parts (processes, interpreters, event loops): C // P each,
    one more for the first C % P."""
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def is_html(content_type: str | None) -> bool:
    """True when the media type (parameters ignored, any case) is text/html."""
    if not content_type:
        return False
    return content_type.split(";", 1)[0].strip().lower() == HTML_TYPE


def is_redirect(response: Response) -> bool:
    """A redirect status with a Location; one without is a plain response (the contract)."""
    return response.status in REDIRECT_STATUSES and "location" in response.headers


@dataclass(slots=True)
class Job:
    """One URL to fetch, with its redirect budget and the number of tries already made."""

    url: str
    redirects_left: int
    request: bytes
    tries: int = 0


Fetch = Callable[[Job], Awaitable[Response]]  # an async model's one try of a job; FetchError


@dataclass
class Frontier:
    """The crawl's state machine, which every model drives: `start()` gives the root job;
    `on_response()` and `on_error()` record an outcome (`tries` counts them) and return the
    jobs it leads to (links, a redirect's target, a retry). The model owns the queue and
    the I/O. Not thread-safe: the threads model calls it under a lock, and `opened()` and
    `closed()` (the connection count, `in_flight`, and its `peak_in_flight`) under another.
    """

    config: CrawlConfig
    origin: Origin = field(init=False)
    links: LinkResolver = field(default_factory=LinkResolver)
    seen: set[str] = field(default_factory=set)
    fetched: dict[str, Outcome] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)  # seconds, one per try
    in_flight: int = 0  # connections: from opened(), just before connect, to closed(), just after
    peak_in_flight: int = 0
    tries: int = 0
    # The core variant's (config.core), chosen once here: each model makes a parser per
    # response with `frontier.response_parser(max_body, keep_alive)`. Callers read them into
    # a local first: Python 3.11 specializes that load, not a call of an instance attribute.
    response_parser: type[ResponseParserBase] = field(init=False, repr=False, compare=False)
    extract_links: Callable[[bytes], list[str]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.origin = Origin(self.config.root)
        core = load_core(self.config.core)
        self.response_parser, self.extract_links = core.response_parser, core.extract_links

    # -- the rules ----------------------------------------------------------------------------

    def start(self) -> list[Job]:
        job = self._add(self.origin.root, self.config.max_redirect)
        return [job] if job else []

    def on_response(
        self, job: Job, response: Response, elapsed: float = 0.0, urls: list[str] | None = None
    ) -> list[Job]:
        """Record a complete response; return the jobs for its links or redirect. `urls` is
        offered_urls() of it, when the caller computed them before taking its lock."""
        self.tries += 1
        self.fetched[job.url] = response.status
        self.latencies.append(elapsed)
        if urls is None:
            urls = self.offered_urls(job, response)
        if is_redirect(response):
            budget = job.redirects_left - 1
            # An exhausted budget does not mark the target seen: a later link may fetch it.
            if budget < 0:
                return []
        else:
            budget = self.config.max_redirect
        new_jobs: list[Job] = []
        seen = self.seen
        for url in urls:
            if url not in seen:  # most links of a page were seen: skip the call
                self._offer(url, budget, new_jobs)
        return new_jobs

    def offered_urls(self, job: Job, response: Response) -> list[str]:
        """The URLs a response points to, resolved and normalised: its redirect's target, or
        its HTML page's links. It reads no crawl state (the resolver's memo only gains the
        same answers): the threaded models call it outside the frontier's lock."""
        if is_redirect(response):
            target = resolve(job.url, response.headers["location"])
            return [] if target is None else [target]
        if response.status == 200 and is_html(response.headers.get("content-type")):
            extract_links = self.extract_links
            return self.links.resolve_links(job.url, extract_links(response.body))
        return []

    def on_error(self, job: Job, kind: ErrorKind, elapsed: float = 0.0) -> list[Job]:
        """Record a failed try; return the job again if it deserves another try."""
        self.tries += 1
        self.latencies.append(elapsed)
        job.tries += 1
        if kind.retryable and job.tries < self.config.max_tries:
            return [job]
        self.fetched[job.url] = kind.outcome
        return []

    # -- connection accounting: every model calls opened() just before it connects (before
    # socket() or its library's connect) and closed() just after the socket is closed (or
    # the connect failed), whether the connection served one fetch or many (keep-alive).

    def opened(self) -> None:
        self.in_flight += 1
        if self.in_flight > self.peak_in_flight:
            self.peak_in_flight = self.in_flight

    def closed(self) -> None:
        self.in_flight -= 1

    # -- helpers ------------------------------------------------------------------------------

    def _offer(self, url: str, redirects_left: int, new_jobs: list[Job]) -> None:
        """Queue an unseen URL (the callers check the seen set) if the origin allows it."""
        if self.origin.allows(url):
            job = self._add(url, redirects_left)
            if job is not None:
                new_jobs.append(job)

    def _add(self, url: str, redirects_left: int) -> Job | None:
        limit = self.config.max_pages
        if limit is not None and len(self.seen) >= limit:
            return None
        self.seen.add(url)
        request = build_request(
            self.origin.request_target(url), self.origin.netloc, self.config.keep_alive
        )
        return Job(url, redirects_left, request)


async def fetch_and_record(frontier: Frontier, job: Job, fetch: Fetch) -> list[Job]:
    """Await one try of the job (an async model's fetch), record its outcome and the time it
    took, and return the new jobs the frontier hands back: links, a redirect or a retry."""
    started = time.perf_counter()
    try:
        response = await fetch(job)
    except FetchError as exc:
        return frontier.on_error(job, exc.kind, time.perf_counter() - started)
    return frontier.on_response(job, response, time.perf_counter() - started)
