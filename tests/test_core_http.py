"""The response parser, fed whole, byte by byte, and split at every offset."""

from __future__ import annotations

import pytest

from impls.core import ErrorKind, FetchError, Response, ResponseParser, build_request

MAX_BODY = 1024


def parse(chunks: list[bytes], eof: bool = False, max_body: int = MAX_BODY) -> Response:
    """Feed the chunks; return the response, finishing with EOF if asked."""
    parser = ResponseParser(max_body)
    for chunk in chunks:
        response = parser.feed(chunk)
        if response is not None:
            return response
    if not eof:
        raise AssertionError("the parser wanted more bytes")
    return parser.feed_eof()


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
