"""URL normalisation and the same-origin policy of the crawl contract."""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import quote, urljoin, urlparse, urlsplit, urlunsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}
# Characters left as they are in a request target: the reserved set, and '%' so that
# existing escapes are kept (the contract forbids percent-decoding).
_TARGET_SAFE = "!#$%&'()*+,/:;=?@[]~"


def normalize(url: str) -> str | None:
    """Drop the fragment, lowercase scheme and host, drop a default port, '' path -> '/';
    None for a URL that cannot be parsed (a bad port)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    netloc = host
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        netloc = f"{host}:{port}"
    userinfo, at, _ = parts.netloc.rpartition("@")
    if at:
        netloc = f"{userinfo}@{netloc}"
    path = parts.path
    if not path and scheme in _DEFAULT_PORTS:
        path = "/"
    return urlunsplit((scheme, netloc, path, parts.query, ""))


def resolve(base: str, href: str) -> str | None:
    """Resolve a link or a Location against the URL it came from, then normalise it."""
    try:
        joined = urljoin(base, href)
    except ValueError:
        return None
    return normalize(joined)


MEMO_LIMIT = 4096  # remembered resolutions; the memo is emptied when it holds more
_UNKNOWN = "\0unknown"  # a str no resolution returns, so the memo's values stay one type


def _depends_on_directory_only(href: str) -> bool:
    """Whether urljoin(base, href) reads no more of base than its directory: not when the
    href has no path, params or netloc of its own ('?q', '#f', '//', 'http:?q'), nor when
    it holds what urlsplit strips or rewrites first (a leading space or control; a tab, a
    newline or a control anywhere: the check refuses every unprintable character)."""
    if href[0] <= " " or not href.isprintable():
        return False
    if href[0] not in "?#" and ":" not in href and href[:2] != "//":
        return True  # a path, relative or from the root: never empty
    try:
        parts = urlparse(href)
    except ValueError:
        return False
    return bool(parts.path or parts.params or parts.netloc)


# An absolute http(s) URL with a plain host (no userinfo, no IPv6) and a plain port, then '/'.
_PLAIN_ABSOLUTE = re.compile(r"(https?)://([A-Za-z0-9.-]+)(?::([0-9]{1,5}))?(?=/)", re.IGNORECASE)


def _base_segments(directory_path: str) -> list[str]:
    """The directory's segments as urljoin joins a relative path to them: empty ones dropped."""
    return ["", *(s for s in directory_path.split("/")[1:] if s)]


def _join_plain(origin: str, base_segments: list[str], href: str) -> str | None:
    """resolve() of a plain href ('../a/b.html?v=2#f', '/x', 'HTTP://ORIGIN/x'), sans urllib,
    by urljoin's and normalize()'s steps: a relative path follows the directory's segments
    with empty ones dropped, then '.' and '..' go; a root-relative path keeps its empty
    segments; an absolute http(s) URL keeps its path, its scheme and host lowercased and a
    default port dropped. None for any other href (params, what urlsplit strips, userinfo,
    an IPv6 host or an odd port): resolve() answers those.
    """
    if ";" in href or href[0] in " ?#" or not href.isprintable():
        return None
    absolute = ":" in href
    if absolute:  # only 'http(s)://host[:port]/...' with a plain host and port
        match = _PLAIN_ABSOLUTE.match(href)
        if match is None:
            return None
        scheme, host, port = match.group(1).lower(), match.group(2).lower(), match.group(3)
        if port is not None:
            number = int(port)
            if number > 65535:
                return None  # normalize() refuses it
            if number != _DEFAULT_PORTS[scheme]:
                host = f"{host}:{number}"
        origin = f"{scheme}://{host}"
        href = href[match.end() :]
        if ":" in href:
            return None
    if href[:2] == "//":
        return None
    path, _, query = href.partition("#")[0].partition("?")
    if absolute:
        joined = path  # urljoin returns an absolute URL's path untouched
    else:
        parts = path.split("/")
        if path[:1] == "/":
            segments = parts
        else:
            segments = [*base_segments, *filter(None, parts[:-1]), parts[-1]]
        if "." in segments or ".." in segments:
            segments = _remove_dots(segments)
        joined = "/".join(segments) or "/"
        if joined[0] != "/":
            joined = "/" + joined
    return f"{origin}{joined}?{query}" if query else origin + joined


def _remove_dots(segments: list[str]) -> list[str]:
    """urljoin's removal of '.' and '..' segments, as Python 3.11's urllib does it."""
    resolved: list[str] = []
    for segment in segments:
        if segment == "..":
            if resolved:
                resolved.pop()
        elif segment != ".":
            resolved.append(segment)
    if segments[-1] in (".", ".."):
        resolved.append("")
    return resolved


class LinkResolver:
    """resolve() for the links of pages, remembered per (the base's directory, the href):
    navigation bars repeat, and urljoin answers alike for pages of one directory. Fragment-
    only links ('#top') are the page itself (tests/test_core_urls.py: the differential test).
    """

    def __init__(self, limit: int = MEMO_LIMIT) -> None:
        self._limit = limit
        self._memo: dict[str, dict[str, str | None]] = {}  # directory -> href -> URL
        self._size = 0

    def resolve_links(self, base: str, hrefs: Iterable[str]) -> list[str]:
        """The resolved, normalised URLs of a page's hrefs, in order; unparseable ones dropped."""
        path_end = base.find("?")
        directory = base[: base.rfind("/", 0, path_end if path_end >= 0 else len(base)) + 1]
        origin_end = directory.index("/", directory.index("//") + 2)
        origin, base_segments = directory[:origin_end], _base_segments(directory[origin_end:])
        memo = self._memo.get(directory)
        if memo is None:
            memo = self._memo[directory] = {}
        itself: str | None = None
        urls = []
        for href in hrefs:
            url = memo.get(href, _UNKNOWN)
            if url is _UNKNOWN:
                if href[0] == "#":  # every fragment-only link is the page itself
                    url = itself = itself or resolve(base, href)
                else:
                    url = _join_plain(origin, base_segments, href)
                    if url is not None or _depends_on_directory_only(href):
                        url = memo[href] = url or resolve(base, href)
                        self._size += 1
                    else:
                        url = resolve(base, href)
            if url is not None:
                urls.append(url)
        if self._size > self._limit:  # a bound, not an LRU: the memo refills from the next pages
            self._memo.clear()
            self._size = 0
        return urls


class Origin:
    """The scheme, host and port of ROOT: the only place a crawl may fetch from."""

    def __init__(self, root: str) -> None:
        normalized = normalize(root)
        if normalized is None:
            raise ValueError(f"not a valid URL: {root!r}")
        parts = urlsplit(normalized)
        if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {root!r}")
        self.root = normalized
        self.scheme = parts.scheme
        self.host = parts.hostname
        self.port = parts.port or _DEFAULT_PORTS[parts.scheme]
        self.netloc = parts.netloc
        # Every normalised URL of this origin starts with this; netloc ends at the first '/'.
        self._prefix = f"{self.scheme}://{self.netloc}/"

    def allows(self, url: str) -> bool:
        """True for a normalised URL with the same scheme, host and port as ROOT."""
        return url.startswith(self._prefix)

    def request_target(self, url: str) -> str:
        """The origin-form target of an allowed URL ('/path?query'), ASCII-safe."""
        target = url[len(self._prefix) - 1 :]
        if not target.isascii() or " " in target:
            target = quote(target, safe=_TARGET_SAFE)
        return target
