"""Seeded random HTTP responses and HTML pages for the differential tests of the two cores.

A response is built from what a server may send, right or wrong: status lines, interim
responses, the framing headers in odd spellings, folded and empty values, bodies framed by
length, by chunks (extensions, trailers) or by EOF, bytes after the response, and now and
then a few flipped bytes. Each choice draws its usual values, and an odd one with the
chance `odd`, so most samples are whole responses and each oddity shows up often. A page
mixes the markup a link extractor must read as a browser does.
"""

from __future__ import annotations

import itertools
import random

Choice = tuple[list[bytes], list[bytes]]  # (usual values, odd values)

PROTOCOLS: Choice = (
    [b"HTTP/1.1", b"HTTP/1.1", b"HTTP/1.0"],
    [b"HTTP/2.0", b"HTTP/0.9", b"HTTP/1.2", b"RTSP/1.0", b"ICE/1.0", b"HTTP/1.x", b"http/1.1"],
)
STATUSES: Choice = (
    [b"200", b"200", b"200", b"204", b"301", b"302", b"304", b"404", b"500"],
    [b"100", b"101", b"102", b"103", b"150", b"099", b"999", b"2000", b"20", b"abc", b"1 2"],
)
REASONS: Choice = ([b" OK", b" Not Found", b" ", b""], [b" odd\x01\x7f\xff", b" \x00"])
LINE_ENDS: Choice = ([b"\r\n", b"\r\n", b"\r\n", b"\n"], [b"\r", b"\r\r\n", b"\n\r", b""])
SPACES: Choice = ([b" "], [b"  ", b"\t", b""])
NAMES: Choice = (
    [b"Content-Type", b"X-A", b"x-dup", b"X-Dup", b"Location", b"Server", b"Trailer"],
    [b"Content-Length ", b"Connection  ", b"Connection x", b"X A", b"", b" X-Lead", b"X-\xff"],
)
COLONS: Choice = ([b":"], [b" :", b"::", b"\t:"])
VALUES: Choice = (
    [b" text/html", b" a", b" b", b" /x/", b"", b" caf\xc3\xa9", b"no-space", b" a: b"],
    [b" trailing \t", b" nul\x00 bell\x07", b" \xff\xfe", b" cr\rin value", b" \x7f"],
)
LENGTHS: Choice = (
    [b" 0", b" 2", b" 11", b" 40", b" 5000"],
    [b" 1, 2", b" ten", b"  2  ", b"", b" 18446744073709551616", b" 0002", b"\t3\t", b" 2 3"],
)
ENCODINGS: Choice = (
    [b" chunked", b" gzip, chunked", b" Chunked"],
    [b" chunked, gzip", b" chunked\t", b" gzip , chunked", b"", b" identity", b" chunk", b" ,"],
)
CONNECTIONS: Choice = (
    [b" close", b" keep-alive", b" Keep-Alive", b" close, foo"],
    [b" closed", b" upgrade", b" close ,x", b"", b" CLOSE", b" keep-alive\x01, close", b" clo"],
)
EXTENSIONS: Choice = ([b""], [b";ext=1", b";a", b';q="x\\"y"', b"; bad", b";a b", b"  ", b";="])
CHUNK_ENDS: Choice = ([b"\r\n"], [b"\n", b"X\r\n", b"\r", b"", b"\r\r\n"])  # also of sizes
MORE_VALUES: Choice = (VALUES[0] + CONNECTIONS[0], VALUES[1] + CONNECTIONS[1])
AFTER: Choice = (
    [b""],
    [b"junk", b"\r\n", b"\r\n\r\nX", b"HTTP/1.1 404 X\r\nX-Next: 1\r\nX-B: 2\r\n\r\n"],
)
AFTER[1].append(b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n")
INTERIM: Choice = ([b""], [b"HTTP/1.1 100 Continue\r\n\r\n", b"HTTP/1.0 100 X\r\n\r\n"])
INTERIM[1].extend([b"HTTP/1.1 103 Hints\r\nLink: </a>\r\n\r\n", b"\r\n", b"\n\r\n"])


class Responses:
    """Random responses from one seed; `odd` is the chance of each odd choice."""

    def __init__(self, seed: int, odd: float = 0.06) -> None:
        self.rng = random.Random(seed)
        self.odd = odd

    def pick(self, choice: Choice) -> bytes:
        usual, odd = choice
        return self.rng.choice(odd if self.rng.random() < self.odd else usual)

    def response(self) -> bytes:
        rng = self.rng
        framing = rng.choice(["length", "length", "chunked", "chunked", "eof", "none"])
        status = self.pick(PROTOCOLS) + self.pick(SPACES) + self.pick(STATUSES)
        head = [self.pick(INTERIM), status + self.pick(REASONS) + self.pick(LINE_ENDS)]
        head += self.headers(framing)
        head.append(self.pick(LINE_ENDS))
        size = rng.choice([0, 2, 11, 40, 300])
        body = bytes(rng.choice(b"abcxyz<>\r\n") for _ in range(size))
        data = b"".join(head) + (self.chunked(body) if framing == "chunked" else body)
        data += self.pick(AFTER)
        return self.flip(data) if rng.random() < self.odd else data

    def headers(self, framing: str) -> list[bytes]:
        rng = self.rng
        lines = [self.header(self.pick(NAMES), self.pick(VALUES)) for _ in range(rng.randint(0, 4))]
        if framing == "length" or rng.random() < self.odd:
            lines.append(self.header(b"Content-Length", self.pick(LENGTHS)))
        if framing == "chunked" or rng.random() < self.odd:
            lines.append(self.header(b"Transfer-Encoding", self.pick(ENCODINGS)))
        if rng.random() < 0.3:
            name = rng.choice([b"Connection", b"connection", b"Proxy-Connection"])
            lines.append(self.header(name, self.pick(CONNECTIONS)))
        if rng.random() < self.odd:
            lines.append(self.header(b"Upgrade", b" websocket"))
        rng.shuffle(lines)
        return lines

    def header(self, name: bytes, value: bytes) -> bytes:
        line = name + self.pick(COLONS) + value
        if self.rng.random() < self.odd:  # obsolete folding: the value goes on
            line += b"\r\n" + self.rng.choice([b" ", b"\t"]) + self.pick(MORE_VALUES)
        return line + self.pick(LINE_ENDS)

    def chunked(self, body: bytes) -> bytes:
        parts, at = [], 0
        while at < len(body):
            size = self.rng.randint(1, len(body) - at)
            digits = f"{size:x}".encode()
            if self.rng.random() < self.odd:
                digits = self.rng.choice([digits.upper(), b"0" + digits, b"zz", b" " + digits])
            parts.append(digits + self.pick(EXTENSIONS) + self.pick(CHUNK_ENDS))
            parts.append(body[at : at + size] + self.pick(CHUNK_ENDS))
            at += size
        parts.append(b"0" + self.pick(EXTENSIONS) + self.pick(CHUNK_ENDS))
        if self.rng.random() < 0.2:  # trailers, read as headers
            name = self.rng.choice([b"Trailer", b"X-T", b"Connection", b"Content-Length"])
            parts.append(self.header(name, self.pick(MORE_VALUES)))
        parts.append(self.pick(LINE_ENDS))
        return b"".join(parts)

    def flip(self, data: bytes) -> bytes:
        """A few bytes changed, dropped or added."""
        mutable = bytearray(data)
        for _ in range(self.rng.randint(1, 3)):
            at = self.rng.randrange(len(mutable) + 1)
            what = self.rng.random()
            if what < 0.4 and at < len(mutable):
                mutable[at] = self.rng.choice(b'\r\n :;,\t\x00\x7f\xffaZ0"\\')
            elif what < 0.7 and at < len(mutable):
                del mutable[at]
            else:
                mutable.insert(at, self.rng.choice(b"\r\n :;,\t\x00aZ0"))
        return bytes(mutable)

    def splits(self, data: bytes) -> list[bytes]:
        """The data in 1 to 6 pieces cut at random places (a piece may be empty)."""
        cuts = sorted(self.rng.randint(0, len(data)) for _ in range(self.rng.randint(0, 5)))
        edges = [0, *cuts, len(data)]
        return [data[a:b] for a, b in itertools.pairwise(edges)]


HREFS = [
    "/a",
    "/p/1/",
    "rel/",
    "../up",
    "/q?a=1&amp;b=2",
    "/q?a=1&b=2",
    "/q?x&copy=2",
    "&copy;",
    "/caf\u00e9",
    "  /spaced\n ",
    "",
    "   ",
    "#top",
    "/frag#x",
    "&#47;num&#x2F;hex",
    "&notit;",
    "/a&lt=b",
    "&AMP;&Amp;",
    "&#0;&#128;",
    "mailto:x@y",
    "javascript:void(0)",
    "/t\tab",
    "HTTP://127.0.0.1:8080/abs",
    "/x>y",
    "/\u200b",
    "&ampx",
    "/e=mc2",
    "&#x;",
    "/\xa0nb",
]
ATTRIBUTES = ['class="nav"', "id=i", 'title="a &lt;link&gt;"', "data-x='1'", "rel=next", "hidden"]
TEXT_ELEMENTS = ["script", "style", "title", "textarea", "xmp", "iframe", "noembed", "noframes"]
OTHER_TAGS = ['<link href="/trap/style.css">', '<img src="/trap/i.png">', '<area href="/map">']
OTHER_TAGS += ["<br/>", "<hr>", "<!DOCTYPE html>", "<?pi x?>", "<![CDATA[x]]>", "<noscript>"]
OTHER_TAGS += ["</noscript>", "<b>", "</b>", "<em>x</em>", "<p>", "</p>", "<span>", "</span>"]


class Pages:
    """Random HTML pages from one seed: markup whose <a> elements a tokenizer can tell apart
    as HTML5's tree building does (each <a> closed, none inside another, no tables)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def page(self) -> bytes:
        parts = [self.piece().encode() for _ in range(self.rng.randint(0, 12))]
        if self.rng.random() < 0.1:  # bytes that are not UTF-8, between two pieces
            at = self.rng.randint(0, len(parts))
            parts.insert(at, self.rng.choice([b"\xff", b"\xe9", b"\xc3", b"\x80\x80"]))
        return b"".join(parts)

    def piece(self) -> str:
        rng = self.rng
        kind = rng.random()
        if kind < 0.45:
            return self.anchor()
        if kind < 0.55:
            return f"<!-- {self.anchor()} {rng.choice(['', '-', '<!-', '--!'])} -->"
        if kind < 0.65:
            name = rng.choice(TEXT_ELEMENTS)
            closing = rng.choice([name, name.upper()])
            return f"<{name}>var s = '{self.anchor()}' + '<' + '/a>';</{closing}>"
        if kind < 0.7:
            return f"<template>{self.anchor()}</template>"
        if kind < 0.72:
            return f"<plaintext>{self.anchor()}"
        if kind < 0.9:
            return rng.choice(OTHER_TAGS)
        return rng.choice(["text ", "a < b ", "x & y ", "\r\n", "\0", "caf\u00e9 ", "&amp; "])

    def anchor(self) -> str:
        rng = self.rng
        name = rng.choice(["a", "A"])
        attributes = rng.sample(ATTRIBUTES, rng.randint(0, 2))
        if rng.random() < 0.9:
            href = rng.choice(HREFS)
            quote = rng.choice(['"', '"', "'", ""])
            if quote == "" and (not href or any(c in href for c in " \t\n\"'=<>`")):
                quote = '"'
            key = rng.choice(["href", "HREF", "hReF"])
            spacing = rng.choice(["=", "=", " = ", "\n=\n"])
            attribute = f"{key}{spacing}{quote}{href}{quote}"
            attributes.insert(rng.randint(0, len(attributes)), attribute)
            if rng.random() < 0.1:
                attributes.append(f'href="{rng.choice(HREFS)}"')  # the first one counts
        separator = rng.choice([" ", " ", "\t", "\n", "/"])
        inside = separator + separator.join(attributes) if attributes else ""
        text = rng.choice(["link", "", "caf\u00e9"])
        return f"<{name}{inside}>{text}</{name}>"
