"""What the Scrapy peer adds to Scrapy to keep the crawl contract and to count like a model."""

# The spider (scrapy_spider.py) is written as a Scrapy user writes one; everything here is
# the glue a benchmark needs and a user would not write: the contract's outcome per try, the
# same-origin rule Scrapy's `allowed_domains` cannot say (it ignores scheme and port), and
# counting the connections of Scrapy's HTTP/1.1 pool. docs/contract.md, "The Scrapy peer".

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from scrapy import Request, signals
from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.crawler import Crawler
from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.dupefilters import RFPDupeFilter
from scrapy.exceptions import (
    CannotResolveHostError,
    DownloadCancelledError,
    DownloadConnectionRefusedError,
    DownloadFailedError,
    DownloadTimeoutError,
    IgnoreRequest,
    ResponseDataLossError,
)
from scrapy.http import Response
from twisted.internet import error as tx_error
from twisted.web._newclient import ResponseNeverReceived

from impls.core.frontier import Frontier
from impls.core.outcomes import ErrorKind
from impls.core.urls import normalize

# Scrapy's RETRY_EXCEPTIONS, cut to what the contract retries (connection errors and
# timeouts). Scrapy's default also retries ResponseDataLossError (a body cut short). Its
# DownloadFailedError stays, though it means two things: ContractRetryMiddleware tells them apart.
RETRY_EXCEPTIONS = [
    DownloadTimeoutError,
    DownloadConnectionRefusedError,
    CannotResolveHostError,
    DownloadFailedError,
    tx_error.TimeoutError,
    tx_error.ConnectError,
    tx_error.ConnectionLost,
    tx_error.ConnectionDone,
]
_KINDS: tuple[tuple[tuple[type[BaseException], ...], ErrorKind], ...] = (
    ((DownloadTimeoutError, tx_error.TimeoutError), ErrorKind.TIMEOUT),
    (
        (DownloadConnectionRefusedError, CannotResolveHostError, tx_error.ConnectError),
        ErrorKind.CONNECT,
    ),
    ((ResponseNeverReceived, tx_error.ConnectionLost, tx_error.ConnectionDone), ErrorKind.RESET),
    ((DownloadCancelledError,), ErrorKind.TOO_LARGE),  # DOWNLOAD_MAXSIZE is its only cause here
    ((DownloadFailedError, ResponseDataLossError), ErrorKind.PROTOCOL),
)


def error_kind(exc: BaseException) -> ErrorKind | None:
    """The contract's kind for an exception of Scrapy's downloader; None: not a fetch error.
    Scrapy's one DownloadFailedError is a reset before any byte when its cause is a
    ResponseNeverReceived, else bytes that are not HTTP (a protocol error)."""
    if isinstance(exc, DownloadFailedError) and isinstance(exc.__cause__, ResponseNeverReceived):
        return ErrorKind.RESET
    for types, kind in _KINDS:
        if isinstance(exc, types):
            return kind
    return None


class ContractRetryMiddleware(RetryMiddleware):
    """Scrapy's RetryMiddleware, but a DownloadFailedError is retried only when it was a reset
    (error_kind): Scrapy chooses by exception class, and its class covers garbage too."""

    def process_exception(
        self, request: Request, exception: Exception, spider: Any = None
    ) -> Request | Response | None:
        kind = error_kind(exception)
        if kind is not None and not kind.retryable:
            return None
        return super().process_exception(request, exception)


def record_key(url: str) -> str:
    """The fetched map's key for a Scrapy request URL: its fragment dropped (Scrapy never
    sends one, and its duplicate filter ignores it). Scrapy's percent-encoding is kept."""
    return normalize(url) or url


def spider_of(crawler: Crawler) -> Any:
    """The crawl's ContractSpider (its frontier and deviations), typed loosely: the adapters
    are loaded by Scrapy by name, before and apart from the spider module."""
    return crawler.spider


class Deviations(Counter[str]):
    """Places where Scrapy did not keep the contract, by kind, counted as they happen
    (docs/contract.md, "The Scrapy peer", names each kind)."""


class CountingDupeFilter(RFPDupeFilter):
    """Scrapy's duplicate filter, counting the URLs it drops though the contract would fetch
    them: its fingerprint canonicalises (query arguments sorted, %7E read as ~), so two
    URLs the contract tells apart are one request to Scrapy."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.exact: set[str] = set()
        self.crawler: Crawler | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CountingDupeFilter:
        made: CountingDupeFilter = super().from_crawler(crawler)
        made.crawler = crawler
        return made

    def request_seen(self, request: Request) -> bool:
        key = record_key(request.url)
        seen: bool = super().request_seen(request)
        if seen and key not in self.exact and self.crawler is not None:
            spider_of(self.crawler).deviations["merged-by-fingerprint"] += 1
        self.exact.add(key)
        return seen


class SameOriginMiddleware:
    """Drop every request (link or redirect target) whose scheme, host or port differ from
    ROOT's: `allowed_domains` compares host names only, so another port would be fetched."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> SameOriginMiddleware:
        return cls(crawler)

    def process_request(self, request: Request) -> None:
        frontier: Frontier = spider_of(self.crawler).frontier
        if not frontier.origin.allows(record_key(request.url)):
            raise IgnoreRequest(f"not the origin of ROOT: {request.url}")


class OutcomeRecorder:
    """Closest to the downloader: sees every try once, before retry and redirect act on it,
    and records it in the Frontier as a model would (fetched, tries, latency per try)."""

    START = "c10k_try_started"

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        crawler.signals.connect(self.try_started, signal=signals.request_reached_downloader)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> OutcomeRecorder:
        return cls(crawler)

    @property
    def frontier(self) -> Frontier:
        frontier: Frontier = spider_of(self.crawler).frontier
        return frontier

    def try_started(self, request: Request, **_: Any) -> None:
        request.meta[self.START] = time.perf_counter()

    def _elapsed(self, request: Request) -> float:
        started = request.meta.pop(self.START, None)
        return time.perf_counter() - started if started is not None else 0.0

    def process_response(self, request: Request, response: Response) -> Response:
        frontier = self.frontier
        frontier.tries += 1
        frontier.latencies.append(self._elapsed(request))
        frontier.fetched[record_key(request.url)] = response.status
        return response

    def process_exception(self, request: Request, exception: Exception) -> None:
        kind = error_kind(exception)
        if kind is None:
            return  # not a fetch (IgnoreRequest from another middleware): nothing to record
        frontier = self.frontier
        frontier.tries += 1
        frontier.latencies.append(self._elapsed(request))
        # Overwritten by the next try, if Scrapy makes one: the last try's kind stays.
        frontier.fetched[record_key(request.url)] = kind.outcome


class CountingDownloadHandler(HTTP11DownloadHandler):
    """Scrapy's HTTP/1.1 handler, its connection pool counting connections for the Frontier:
    open from just before the connect to the connection's loss (peak_in_flight)."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        pool: Any = self._pool  # its _newConnection is replaced: Twisted has no hook for it
        new_connection = pool._newConnection

        def counted(key: Any, endpoint: Any) -> Any:
            frontier: Frontier = spider_of(crawler).frontier
            frontier.opened()
            connecting = new_connection(key, endpoint)

            def connected(protocol: Any) -> Any:
                lost = protocol.connectionLost

                def connection_lost(reason: Any) -> Any:
                    frontier.closed()
                    return lost(reason)

                protocol.connectionLost = connection_lost
                return protocol

            def failed(failure: Any) -> Any:
                frontier.closed()
                return failure

            return connecting.addCallbacks(connected, failed)

        pool._newConnection = counted
