"""Every use of aiohttp's private API, each behind one small function that says why it is needed."""

# aiohttp has no public way to do any of these, and each keeps the crawl contract
# (docs/contract.md) as the raw models keep it. tests/test_aiohttp_private_api.py checks
# each against the installed aiohttp and fails, naming the API, when a release changes it.

from __future__ import annotations

from collections.abc import Callable

import aiohttp
from aiohttp.client_proto import ResponseHandler
from aiohttp.http import RawResponseMessage

# The connection's error as aiohttp writes it into a ClientPayloadError's text (its repr).
RESET_ERROR_NAMES = ("ConnectionResetError", "BrokenPipeError")


def turn_off_hidden_retry(session: aiohttp.ClientSession) -> None:
    """Stop aiohttp (3.10+) sending a GET again when the connection resets or closes first.

    That retry would be a hidden extra try; the Frontier owns retries. There is no public
    switch: aiohttp's own test client sets `ClientSession._retry_connection` the same way.
    """
    session._retry_connection = False


def watch_connection_error(response: aiohttp.ClientResponse) -> Callable[[], BaseException | None]:
    """A getter of the error the response's connection ended with: an OSError after a reset.

    A body delimited by EOF ends at a reset as at EOF in aiohttp; only the connection's
    protocol (a private `aiohttp.client_proto.ResponseHandler`) keeps the error, in its
    `exception()`. Call this before reading the body: aiohttp lets go of the connection
    when the body ends.
    """
    protocol: ResponseHandler | None = response.connection.protocol if response.connection else None
    return protocol.exception if protocol is not None else lambda: None


def disconnected_mid_head(exc: aiohttp.ServerDisconnectedError) -> bool:
    """Whether the server closed after some bytes of the head (else before any byte).

    aiohttp tells the two apart only by handing the parser's partial message (a
    `RawResponseMessage`, from the private parser module) over as the error's `message`.
    """
    return isinstance(exc.message, RawResponseMessage)


def payload_error_names_reset(exc: aiohttp.ClientPayloadError) -> bool:
    """Whether a body cut short was cut by a reset (ECONNRESET/EPIPE), not by a clean close.

    aiohttp names the connection's error only in the exception's text
    ("Response payload is not completed: ... . ConnectionResetError(...)"), not as a cause.
    """
    return any(name in str(exc) for name in RESET_ERROR_NAMES)
