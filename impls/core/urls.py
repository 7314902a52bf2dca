"""URL normalisation and the same-origin policy of the crawl contract."""

from __future__ import annotations

from urllib.parse import quote, urljoin, urlsplit, urlunsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}
# Characters left as they are in a request target: the reserved set, and '%' so that
# existing escapes are kept (the contract forbids percent-decoding).
_TARGET_SAFE = "!#$%&'()*+,/:;=?@[]~"


def normalize(url: str) -> str | None:
    """Drop the fragment, lowercase scheme and host, drop a default port, '' path -> '/'.

    Returns None for a URL that cannot be parsed (for example a bad port).
    """
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
