"""The Scrapy peer: a spider a Scrapy user would write, run in-process by CrawlerProcess."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import scrapy
from scrapy.crawler import CrawlerProcess
from scrapy.http import Response, TextResponse
from scrapy.linkextractors import LinkExtractor
from scrapy.utils.response import get_base_url

from impls.core.frontier import CrawlConfig, Frontier
from impls.peers import scrapy_adapters

ADAPTERS = "impls.peers.scrapy_adapters"


def settings(config: CrawlConfig) -> dict[str, Any]:
    """The crawl contract in Scrapy's settings; what Scrapy cannot say is in the adapters."""
    return {
        "CONCURRENT_REQUESTS": config.concurrency,
        "CONCURRENT_REQUESTS_PER_DOMAIN": config.concurrency,  # one origin: the same cap
        "DOWNLOAD_DELAY": 0,
        "DOWNLOAD_TIMEOUT": config.timeout,  # Scrapy's is the whole download, as the contract's
        "DOWNLOAD_MAXSIZE": config.max_body,
        "DOWNLOAD_WARNSIZE": 0,
        "REDIRECT_MAX_TIMES": config.max_redirect,
        "RETRY_TIMES": config.max_tries - 1,  # Scrapy counts retries, the contract tries
        "RETRY_HTTP_CODES": [],  # a status is an answer, never retried
        "RETRY_EXCEPTIONS": scrapy_adapters.RETRY_EXCEPTIONS,
        "CLOSESPIDER_PAGECOUNT": config.max_pages or 0,
        "ROBOTSTXT_OBEY": False,
        "COOKIES_ENABLED": False,
        "COMPRESSION_ENABLED": False,  # no Accept-Encoding: the contract's request headers
        "METAREFRESH_ENABLED": False,  # <meta refresh> is not a link
        "REFERER_ENABLED": False,
        "HTTPPROXY_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        "MEMUSAGE_ENABLED": False,
        "LOGSTATS_INTERVAL": 0,
        "DOWNLOADER_STATS": False,
        "LOG_LEVEL": "ERROR",
        "LOG_INSTALL_ROOT_HANDLER": False,
        "USER_AGENT": "c10k-bench",
        "DEFAULT_REQUEST_HEADERS": {"Accept": "*/*"},
        "DUPEFILTER_CLASS": f"{ADAPTERS}.CountingDupeFilter",
        "DOWNLOAD_HANDLERS": {"http": f"{ADAPTERS}.CountingDownloadHandler"},
        "DOWNLOADER_MIDDLEWARES": {
            f"{ADAPTERS}.SameOriginMiddleware": 50,  # before anything is sent
            "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
            f"{ADAPTERS}.ContractRetryMiddleware": 550,  # Scrapy's own place for retries
            f"{ADAPTERS}.OutcomeRecorder": 1000,  # after every other: sees each try
        },
    }


class ContractSpider(scrapy.Spider):
    """Follow every <a href> of every HTML page of one origin."""

    name = "c10k"
    # Scrapy's link extractor, as CrawlSpider uses it, limited to <a href>. Not
    # response.follow_all(css="a::attr(href)"): a mailto: or tel: href raises there and the
    # page's remaining links are lost. deny_extensions=(): its default skips .pdf, .png, ...
    # links that the contract follows.
    links = LinkExtractor(tags=("a",), attrs=("href",), deny_extensions=())

    def __init__(
        self, frontier: Frontier, deviations: scrapy_adapters.Deviations, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.frontier = frontier
        self.deviations = deviations

    async def start(self) -> AsyncIterator[scrapy.Request]:
        yield scrapy.Request(self.frontier.origin.root, callback=self.parse, errback=self.failed)

    def parse(self, response: Response) -> Iterator[scrapy.Request]:
        content_type = (response.headers.get("Content-Type") or b"").split(b";")[0].strip()
        if response.status != 200 or content_type.lower() != b"text/html":
            return
        assert isinstance(response, TextResponse)  # Scrapy makes text/html an HtmlResponse
        self.count_deviations(response)
        for link in self.links.extract_links(response):
            yield scrapy.Request(link.url, callback=self.parse, errback=self.failed)

    def count_deviations(self, response: TextResponse) -> None:
        """Pages whose links Scrapy reads otherwise than the contract: decoded with another
        encoding than UTF-8 (a declared or guessed charset), or resolved against <base>."""
        encoding = response.encoding.lower().replace("_", "-")
        if encoding not in ("utf-8", "utf8") and not response.body.isascii():
            self.deviations["decoded-not-utf-8"] += 1
        if get_base_url(response) != response.url:  # cached: the link extractor reads it too
            self.deviations["base-href"] += 1

    def failed(self, failure: Any) -> None:
        """Every failed try is recorded by the OutcomeRecorder; nothing is left to do."""


def run(frontier: Frontier) -> dict[str, int]:
    """Crawl until Scrapy's engine stops; return the deviations from the contract it counted."""
    deviations = scrapy_adapters.Deviations()
    process = CrawlerProcess(settings(frontier.config))
    process.crawl(ContractSpider, frontier=frontier, deviations=deviations)
    process.start()
    return dict(deviations)
