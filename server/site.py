"""The site: what to serve for each path, and its manifest (the exact result of a correct crawl)."""

from __future__ import annotations

import random
import re
from collections import deque
from dataclasses import dataclass
from urllib.parse import urlsplit

from server.page_bodies import GARBAGE, file_body, page_body, small_html
from server.site_layout import SiteLayout
from server.site_params import (
    FAULT_OUTCOMES,
    NON_HTML_TYPES,
    OFFSITE_ORIGINS,
    PORT80_FORM,
    FaultKind,
    Link,
    Outcome,
    Redirect,
    SiteParams,
)

_PAGE_RE = re.compile(r"/p/(0|[1-9][0-9]*)(/?)")
_REDIRECT_RE = re.compile(r"/([rc])/(0|[1-9][0-9]*)/(0|[1-9][0-9]*)")  # a chain's or cycle's
_FILE_RE = re.compile(r"/f/(0|[1-9][0-9]*)\.([a-z]+)")
_PART_RE = re.compile(r"part=(0|[1-9][0-9]*)")
_HTML = ("Content-Type", "text/html; charset=utf-8")  # the root's and every status page's


@dataclass(frozen=True, slots=True)
class PageResponse:
    """What the server must do for one request path."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes
    fault: FaultKind | None = None
    raw: bytes = b""  # for 'truncate' and 'garbage': the exact bytes to send, then close


class Site(SiteLayout):
    """A deterministic site: its layout, the responses it serves and its manifest."""

    def __init__(self, params: SiteParams) -> None:
        self._cache: dict[tuple[str, str], PageResponse] = {}
        super().__init__(params)

    # -- queries --------------------------------------------------------------------

    def links(self, path: str) -> list[Link]:
        """The <a> links of the HTML page at path ([] if path is not a 200 HTML page)."""
        res = self._resolve(path)
        if res[0] == "root":
            return self.root_links if res[1] < 0 else self.part_roots[res[1]]
        if res[0] == "page" and res[1] not in self.page_faults:
            return self.page_links[res[1]]
        return []

    def _resolve(self, path: str) -> tuple[str, int, int]:
        """Classify a request path (path plus query) into (kind, a, b); the root's a is its
        part (-1: the whole site's root, whatever its query)."""
        route, _, _query = path.partition("?")
        if route == "/":
            m = _PART_RE.fullmatch(_query)
            part = int(m.group(1)) if m and self.params.parts > 1 else -1
            return ("root", part if part < self.params.parts else -1, 0)
        if self.docs is not None:
            page = self.docs.lookup.get(route)
            if page is not None:
                return ("page", page, 0)
            page = self.docs.slashes.get(route)
            if page is not None:
                return ("slash", page, 0)
        else:
            m = _PAGE_RE.fullmatch(route)
            if m and int(m.group(1)) < self.params.pages:
                return ("page" if m.group(2) else "slash", int(m.group(1)), 0)
        if _query:
            return ("missing", 0, 0)
        m = _REDIRECT_RE.fullmatch(route)
        if m:
            redirects, c, k = self.chains if m[1] == "r" else self.cycles, int(m[2]), int(m[3])
            if c < len(redirects) and k < len(redirects[c]):
                return ("chain" if m[1] == "r" else "cycle", c, k)
        m = _FILE_RE.fullmatch(route)
        if m and int(m.group(1)) < len(self.files) and self.files[int(m.group(1))] == m.group(2):
            return ("file", int(m.group(1)), 0)
        return ("missing", 0, 0)

    def redirect(self, path: str) -> Redirect | None:
        """The redirect served at path, if it is one."""
        kind, a, b = self._resolve(path)
        if kind == "slash":
            query = path.partition("?")[2]
            target = self.page_path(a) + (f"?{query}" if query else "")
            return Redirect(301, target, target)
        if kind == "chain":
            return self.chains[a][b]
        if kind == "cycle":
            return self.cycles[a][b]
        return None

    def outcome(self, path: str) -> Outcome:
        """The outcome a correct crawler records for path: a status or 'error:<kind>'."""
        kind, a, _ = self._resolve(path)
        if kind == "page" and a in self.page_faults:
            return FAULT_OUTCOMES[self.page_faults[a]]
        redirect = self.redirect(path)
        if redirect is not None:
            return redirect.status
        return 404 if kind == "missing" else 200

    # -- the manifest ---------------------------------------------------------------

    def manifest(
        self, root_url: str, max_redirect: int = 10, order: random.Random | None = None
    ) -> dict[str, Outcome]:
        """The exact fetched map of a correct crawl from root_url (the site's root, or a
        part's: /?part=K), from the links the model generated, never from its HTML. `order`
        pops the frontier in random order (the result must not change).
        """
        origin = _origin(root_url)
        parts = urlsplit(root_url.strip())
        # Links written http://<host>:80/... are on the site only when it listens on port 80.
        port80 = (parts.port or 80) == 80
        start = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        seen = {start}
        frontier: deque[tuple[str, int]] = deque([(start, max_redirect)])
        fetched: dict[str, Outcome] = {}
        while frontier:
            if order is not None:
                frontier.rotate(-order.randrange(len(frontier)))
            path, budget = frontier.popleft()
            outcome = self.outcome(path)
            fetched[origin + path] = outcome
            if outcome == 200:
                for link in self.links(path):
                    if link.form == PORT80_FORM and not port80:
                        continue
                    if link.target is not None and link.target not in seen:
                        seen.add(link.target)
                        frontier.append((link.target, max_redirect))
                continue
            redirect = self.redirect(path)
            # Not queued when the budget is 0, and then not marked seen either.
            target = redirect.target if redirect is not None else None
            if target is not None and budget > 0 and target not in seen:
                seen.add(target)
                frontier.append((target, budget - 1))
        return fetched

    # -- responses ------------------------------------------------------------------

    def part_paths(self) -> list[str]:
        """Each part's root, /?part=K; a site of one part has one, its own root."""
        parts = self.params.parts
        return [f"/?part={k}" for k in range(parts)] if parts > 1 else ["/"]

    def prerender(self, authority: str) -> None:
        """Build and cache the root and every page for this Host, so that serving them
        costs a lookup (do it before forking workers: they inherit the cache)."""
        self.response("/", authority)
        for root in self.part_paths():
            self.response(root, authority)
        for i in range(self.params.pages):
            self.response(self.page_path(i), authority)

    def response(self, path: str, authority: str = "127.0.0.1") -> PageResponse:
        """What to serve for the request path (path plus query, as sent) on host authority."""
        key = (path, authority)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        resp = self._make_response(path, authority)
        if len(self._cache) >= max(100_000, 2 * self.params.pages):  # bound the memory
            self._cache.clear()
        self._cache[key] = resp
        return resp

    def _make_response(self, path: str, authority: str) -> PageResponse:
        kind, a, _ = self._resolve(path)
        if self.docs is not None and kind == "page" and path != self.page_path(a):
            # Copies (a query, index.html) serve the canonical response: bytes shared.
            return self.response(self.page_path(a), authority)
        fault = self.page_faults.get(a) if kind == "page" else None
        redirect = self.redirect(path)
        if redirect is not None:
            body = small_html("Moved", f"Moved to {redirect.location}.")
            return PageResponse(redirect.status, (_HTML, ("Location", redirect.location)), body)
        if kind == "missing":
            body = small_html("Not found", f"Nothing at {path}.")
            return PageResponse(404, (_HTML,), body)
        if kind == "file":
            ext = self.files[a]
            return PageResponse(
                200,
                (("Content-Type", NON_HTML_TYPES[ext]),),
                file_body(a, ext, self.params.body_size),
            )
        if fault == "error500":
            body = small_html("Server error", "Something broke.")
            return PageResponse(500, (_HTML,), body)
        body = self._html(-1 if kind == "root" else a, authority, path)
        headers = (_HTML if kind == "root" else ("Content-Type", self.page_content_types[a]),)
        if fault == "truncate":
            head = (
                f"HTTP/1.1 200 OK\r\nContent-Type: {headers[0][1]}\r\n"
                f"Content-Length: {len(body) + 1000}\r\nConnection: close\r\n\r\n"
            ).encode()
            return PageResponse(200, headers, body, "truncate", head + body[: len(body) // 2])
        if fault == "garbage":
            return PageResponse(200, headers, body, "garbage", GARBAGE)
        if fault in ("reset", "hang"):
            return PageResponse(200, headers, body, "reset" if fault == "reset" else "hang")
        return PageResponse(200, headers, body)

    def _html(self, page: int, authority: str, path: str) -> bytes:
        """The HTML of the root at path (page -1) or of page `page`, for this Host."""
        if self.docs is not None:
            return self.docs.body(self, page, authority)
        if page < 0:
            return page_body("Home", self.links(path), authority, False, self.params.body_size)
        return page_body(
            f"Page {page}",
            self.page_links[page],
            authority,
            self.page_invalid_utf8[page],
            self.params.body_size,
        )


def _origin(root_url: str) -> str:
    """scheme://host[:port] of the root, normalised as the contract says."""
    parts = urlsplit(root_url.strip())
    scheme = parts.scheme.lower()
    if scheme != "http" or not parts.hostname:
        raise ValueError(f"root URL must be http://host[:port]/, got {root_url!r}")
    host = parts.hostname.lower()
    port = parts.port or 80
    if (host, port) in OFFSITE_ORIGINS:
        raise ValueError(f"root URL {root_url!r} collides with the site's off-site links")
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}" if port == 80 else f"http://{host}:{port}"
