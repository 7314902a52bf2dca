"""The sans-I/O crawler core: URLs, links, HTTP/1.x bytes and the frontier; no I/O here."""

from impls.core.frontier import CrawlConfig, Frontier, Job
from impls.core.http import ResponseParser, build_request, retry_on_fresh_connection
from impls.core.outcomes import (
    ErrorKind,
    FetchError,
    Outcome,
    ResourceLimit,
    Response,
    classify_os_error,
)

__all__ = [
    "CrawlConfig",
    "ErrorKind",
    "FetchError",
    "Frontier",
    "Job",
    "Outcome",
    "ResourceLimit",
    "Response",
    "ResponseParser",
    "build_request",
    "classify_os_error",
    "retry_on_fresh_connection",
]
