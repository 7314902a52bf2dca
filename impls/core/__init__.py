"""The sans-I/O crawler core: URLs, links, HTTP/1.x bytes and the frontier (docs/contract.md)."""

from impls.core.frontier import CrawlConfig, Frontier, Job
from impls.core.http_base import (
    READ_SIZE,
    ResponseParserBase,
    build_request,
    retry_on_fresh_connection,
)
from impls.core.outcomes import (
    ErrorKind,
    FetchError,
    Outcome,
    ResourceLimit,
    Response,
    classify_os_error,
)

__all__ = [
    "READ_SIZE",
    "CrawlConfig",
    "ErrorKind",
    "FetchError",
    "Frontier",
    "Job",
    "Outcome",
    "ResourceLimit",
    "Response",
    "ResponseParserBase",
    "build_request",
    "classify_os_error",
    "retry_on_fresh_connection",
]
