"""The response parser of each core, fed whole, byte by byte, and split at every offset."""

from __future__ import annotations

import sys

import pytest

from c10k.catalog import CORE_C, CORES
from impls.core import (
    ErrorKind,
    FetchError,
    Response,
    ResponseParserBase,
    build_request,
    retry_on_fresh_connection,
)
from impls.core.variants import load_core

MAX_BODY = 1024
ResponseParser: type[ResponseParserBase] = load_core(CORE_C).response_parser


@pytest.fixture(autouse=True, params=CORES)
def core(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test runs on each core: ResponseParser is that core's."""
    variant = load_core(request.param)
    monkeypatch.setattr(sys.modules[__name__], "ResponseParser", variant.response_parser)
    return str(request.param)


def parse(chunks: list[bytes], eof: bool = False, max_body: int = MAX_BODY) -> Response:
    """Feed the chunks; return the response, finishing with EOF (b"", as a read gives it)
    if asked."""
    parser = ResponseParser(max_body)
    for chunk in chunks:
        response = parser.feed(chunk)
        if response is not None:
            return response
    if not eof or (response := parser.feed(b"")) is None:
        raise AssertionError("the parser wanted more bytes")
    return response


def every_split(data: bytes) -> list[list[bytes]]:
    """The data in one piece, byte by byte, and in two pieces split at every offset."""
    return [[data], [data[i : i + 1] for i in range(len(data))]] + [
        [data[:i], data[i:]] for i in range(1, len(data))
    ]


CONTENT_LENGTH = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
    b"Content-Length: 11\r\nX-Dup: a\r\nx-dup: b\r\n\r\nhello world"
)
CHUNKED = (
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    b"5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: x\r\n\r\n"
)
UNTIL_EOF = b"HTTP/1.0 404 Not Found\r\nContent-Type: text/plain\r\n\r\nno such page"


@pytest.mark.parametrize("chunks", every_split(CONTENT_LENGTH))
def test_content_length_at_every_split(chunks: list[bytes]) -> None:
    response = parse(chunks)
    assert response.status == 200
    assert response.body == b"hello world"
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.headers["x-dup"] == "a, b"


@pytest.mark.parametrize("chunks", every_split(CHUNKED))
def test_chunked_at_every_split(chunks: list[bytes]) -> None:
    assert parse(chunks).body == b"hello world"


@pytest.mark.parametrize("chunks", every_split(UNTIL_EOF))
def test_body_until_eof_at_every_split(chunks: list[bytes]) -> None:
    response = parse(chunks, eof=True)
    assert (response.status, response.body) == (404, b"no such page")


def test_interim_response_is_skipped() -> None:
    data = (
        b"HTTP/1.1 100 Continue\r\n\r\n"
        b"HTTP/1.1 301 Moved\r\nLocation: /x/\r\nContent-Length: 0\r\n\r\n"
    )
    response = parse([data])
    assert (response.status, response.headers["location"]) == (301, "/x/")


def test_no_body_for_304() -> None:
    assert parse([b"HTTP/1.1 304 Not Modified\r\nContent-Length: 50\r\n\r\n"]).body == b""


def test_bytes_after_the_body_are_ignored() -> None:
    assert parse([b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA"]).body == b"ok"


def kind_of(chunks: list[bytes], eof: bool = True, max_body: int = MAX_BODY) -> ErrorKind:
    with pytest.raises(FetchError) as caught:
        parse(chunks, eof=eof, max_body=max_body)
    return caught.value.kind


@pytest.mark.parametrize(
    "data",
    [
        b"garbage\r\n\r\n",
        b"\x00\xff\xfe binary noise",
        b"HTTP/2 200 OK\r\n\r\n",
        b"HTTP/1.1 2000 OK\r\n\r\n",
        b"HTTP/1.1 abc OK\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXY",
    ],
)
def test_malformed_response_is_a_protocol_error(data: bytes) -> None:
    assert kind_of([data]) == ErrorKind.PROTOCOL


@pytest.mark.parametrize(
    "data",
    [
        b"HTTP/1.1 200 OK\nContent-Length: 2\n\nok",
        b"HTTP/1.1 200 OK\r\nX-A: b\r\n c\r\nContent-Length: 2\r\n\r\nok",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2 \r\nok\r\n0\r\n\r\n",
    ],
    ids=["bare-lf", "obs-fold", "space-after-chunk-size"],
)
def test_what_aiohttp_and_browsers_accept_is_accepted(data: bytes) -> None:
    assert parse([data]).body == b"ok"


def test_garbage_is_refused_before_the_head_ends() -> None:
    with pytest.raises(FetchError) as caught:
        ResponseParser(MAX_BODY).feed(b"<html>not http")
    assert caught.value.kind == ErrorKind.PROTOCOL


def test_truncated_body_is_a_protocol_error() -> None:
    assert kind_of([b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort"]) == ErrorKind.PROTOCOL


def test_truncated_chunked_body_is_a_protocol_error() -> None:
    data = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"
    assert kind_of([data]) == ErrorKind.PROTOCOL


def test_eof_inside_the_head_is_a_protocol_error() -> None:
    assert kind_of([b"HTTP/1.1 200 OK\r\nContent-"]) == ErrorKind.PROTOCOL


def test_eof_before_any_byte_is_a_reset() -> None:
    assert kind_of([]) == ErrorKind.RESET


def test_huge_head_is_a_protocol_error() -> None:
    data = b"HTTP/1.1 200 OK\r\n" + b"X-Big: " + b"a" * 70_000
    assert kind_of([data], eof=False) == ErrorKind.PROTOCOL


def test_declared_length_over_the_limit_is_too_large() -> None:
    data = b"HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n"
    assert kind_of([data], eof=False) == ErrorKind.TOO_LARGE


def test_counted_body_over_the_limit_is_too_large() -> None:
    chunk = b"HTTP/1.1 200 OK\r\n\r\n" + b"x" * 600
    assert kind_of([chunk, b"y" * 600], eof=False) == ErrorKind.TOO_LARGE


def test_chunked_body_over_the_limit_is_too_large() -> None:
    data = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + b"400\r\n" + b"z" * 1024
    data += b"\r\n1\r\nz\r\n0\r\n\r\n"
    assert kind_of([data], eof=False) == ErrorKind.TOO_LARGE


def test_body_exactly_at_the_limit_is_accepted() -> None:
    data = b"HTTP/1.1 200 OK\r\nContent-Length: 1024\r\n\r\n" + b"x" * 1024
    assert len(parse([data]).body) == MAX_BODY


def test_request_is_a_get_with_connection_close() -> None:
    request = build_request("/p/1/?a=b", "127.0.0.1:8080")
    assert request.startswith(b"GET /p/1/?a=b HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n")
    assert b"Connection: close\r\n" in request
    assert request.endswith(b"\r\n\r\n")


def test_keep_alive_request_asks_for_no_close() -> None:
    request = build_request("/p/1/", "127.0.0.1:8080", keep_alive=True)
    assert request.startswith(b"GET /p/1/ HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n")
    assert b"connection" not in request.lower()
    assert request.endswith(b"\r\n\r\n")


# -- whether a kept-alive connection may carry the next request ---------------------------


def reusable_after(chunks: list[bytes], eof: bool = False) -> bool:
    """Feed a keep-alive parser the chunks (and EOF if asked); whether it allows a reuse."""
    parser = ResponseParser(MAX_BODY, keep_alive=True)
    for chunk in chunks:
        if parser.feed(chunk) is not None:
            break
    else:
        parser.feed_eof() if eof else pytest.fail("the parser wanted more bytes")
    return parser.reusable


KEPT = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


@pytest.mark.parametrize("chunks", every_split(KEPT))
def test_a_whole_http11_response_leaves_the_connection_reusable(chunks: list[bytes]) -> None:
    assert reusable_after(chunks)


@pytest.mark.parametrize(
    "data",
    [
        KEPT,
        CHUNKED,
        b"HTTP/1.1 204 No Content\r\n\r\n",
        b"HTTP/1.1 100 Continue\r\n\r\n" + KEPT,
        b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok",
    ],
    ids=["content-length", "chunked", "no-body", "after-interim", "http10-keep-alive"],
)
def test_responses_that_keep_the_connection(data: bytes) -> None:
    assert reusable_after([data])


@pytest.mark.parametrize(
    ("data", "eof"),
    [
        (b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", False),
        (b"HTTP/1.1 200 OK\r\nconnection: Close\r\nContent-Length: 2\r\n\r\nok", False),
        (b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", False),
        (UNTIL_EOF, True),
        (KEPT + b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nno", False),
        (KEPT + b"junk", False),
    ],
    ids=["connection-close", "close-any-case", "http10", "until-eof", "next-response", "junk"],
)
def test_responses_that_end_the_connection(data: bytes, eof: bool) -> None:
    assert not reusable_after([data], eof=eof)


def test_bytes_after_a_kept_alive_response_do_not_touch_it() -> None:
    parser = ResponseParser(MAX_BODY, keep_alive=True)
    extra = b"HTTP/1.1 404 X\r\nX-Next: 1\r\nContent-Length: 0\r\n\r\n"
    response = parser.feed(KEPT + extra)
    assert response is not None
    assert (response.status, response.body, set(response.headers)) == (
        200,
        b"ok",
        {"content-length"},
    )


def test_close_mode_never_offers_a_reuse() -> None:
    parser = ResponseParser(MAX_BODY)
    assert parser.feed(KEPT) is not None
    assert not parser.reusable


def test_received_counts_the_bytes_of_the_response() -> None:
    parser = ResponseParser(MAX_BODY, keep_alive=True)
    assert parser.received == 0
    parser.feed(KEPT[:5])
    assert parser.received == 5


# -- the rule for a kept-alive connection that the server had closed -----------------------


def test_a_reused_connection_reset_before_any_byte_is_retried_fresh() -> None:
    assert retry_on_fresh_connection(reused=True, received=0, kind=ErrorKind.RESET)


@pytest.mark.parametrize(
    ("reused", "received", "kind"),
    [
        (False, 0, ErrorKind.RESET),  # a fresh connection: an ordinary failed try
        (True, 1, ErrorKind.RESET),  # the server had begun to answer
        (True, 0, ErrorKind.TIMEOUT),  # a timeout is never a stale connection
        (True, 0, ErrorKind.CONNECT),
        (True, 0, ErrorKind.PROTOCOL),
        (True, 0, ErrorKind.TOO_LARGE),
    ],
)
def test_every_other_failure_spends_a_try(reused: bool, received: int, kind: ErrorKind) -> None:
    assert not retry_on_fresh_connection(reused, received, kind)
