"""The sans-I/O crawler core: URLs, links, HTTP/1.x bytes and the frontier (docs/contract.md)."""

from impls.core.frontier import CrawlConfig, Fetch, Frontier, Job, fetch_and_record
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
    first_failure,
)

__all__ = [
    "READ_SIZE",
    "CrawlConfig",
    "ErrorKind",
    "Fetch",
    "FetchError",
    "Frontier",
    "Job",
    "Outcome",
    "ResourceLimit",
    "Response",
    "ResponseParserBase",
    "build_request",
    "classify_os_error",
    "fetch_and_record",
    "first_failure",
    "retry_on_fresh_connection",
]
