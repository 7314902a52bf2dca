"""What a fetch can end in: a response, or one of five error kinds."""

from __future__ import annotations

import enum
import errno
from dataclasses import dataclass, field


class ErrorKind(enum.StrEnum):
    """The error kinds of the crawl contract (docs/contract.md)."""

    TIMEOUT = "timeout"
    CONNECT = "connect"
    RESET = "reset"
    PROTOCOL = "protocol"
    TOO_LARGE = "too-large"

    @property
    def retryable(self) -> bool:
        # Only transport failures are worth another try; a bad or huge answer will not change.
        return self in (ErrorKind.TIMEOUT, ErrorKind.CONNECT, ErrorKind.RESET)

    @property
    def outcome(self) -> str:
        return f"error:{self.value}"


class FetchError(Exception):
    """A fetch failed in a way the contract names; raised by the parser and by the models."""

    def __init__(self, kind: ErrorKind, detail: str = "") -> None:
        super().__init__(f"{kind.value}: {detail}" if detail else kind.value)
        self.kind = kind


@dataclass
class Response:
    """A complete HTTP response; header names are lower-cased."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


# A URL's outcome in a crawl result: the status code, or "error:<kind>".
Outcome = int | str


class ResourceLimit(Exception):
    """The process hit a limit of the machine (open files, threads): the crawl cannot go on."""


def first_failure(exc: BaseException) -> BaseException:
    """The first exception in a (nested) exception group: a task group's or nursery's failure
    as the CLI expects it."""
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc


class PartFailed(Exception):
    """The crawl of one part of the site (a process or a subinterpreter) failed or died: the
    crawl cannot be merged. exit_code: 3 for a limit of the machine, else 1."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


_LIMIT_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE})
_RESET_ERRNOS = frozenset({errno.ECONNRESET, errno.EPIPE, errno.ECONNABORTED, errno.ESHUTDOWN})


def classify_os_error(exc: OSError, connecting: bool) -> ErrorKind:
    """The contract's kind for an OS error of a socket (CONNECT while `connecting`, else
    RESET); limits of the machine raise ResourceLimit."""
    if exc.errno in _LIMIT_ERRNOS:
        raise ResourceLimit(f"out of file descriptors: {exc.strerror} (RLIMIT_NOFILE)") from exc
    if isinstance(exc, TimeoutError):
        return ErrorKind.TIMEOUT
    if exc.errno in _RESET_ERRNOS or isinstance(exc, ConnectionResetError | BrokenPipeError):
        return ErrorKind.RESET
    return ErrorKind.CONNECT if connecting else ErrorKind.RESET
