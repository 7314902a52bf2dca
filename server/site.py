"""The site model: a deterministic web site, what to serve for each path, and its manifest."""

from __future__ import annotations

import html
import random
import re
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import Literal, NamedTuple
from urllib.parse import urlsplit

Outcome = int | str
FaultKind = Literal["reset", "hang", "truncate", "garbage"]

# What each fault yields under docs/contract.md (error500 is an ordinary 500 response).
FAULT_OUTCOMES: dict[str, Outcome] = {
    "reset": "error:reset",
    "hang": "error:timeout",
    "error500": 500,
    "truncate": "error:protocol",
    "garbage": "error:protocol",
}
FAULT_KINDS: tuple[str, ...] = tuple(FAULT_OUTCOMES)

# Link kinds: each link slot of a page is exactly one of these, drawn with the ratios.
SLOT_KINDS: tuple[str, ...] = (
    "slash_redirect",
    "redirect_chain",
    "redirect_cycle",
    "missing",
    "non_html",
    "offsite",
    "query",
)
REDIRECT_STATUSES: tuple[int, ...] = (301, 302, 303, 307, 308)

# Off-site hrefs (never fetched by a correct crawler); {j} is a page number.
OFFSITE_FORMS: tuple[str, ...] = (
    "http://example.com/p/{j}/",
    "http://127.0.0.1:9/p/{j}/",
    "https://127.0.0.1/p/{j}/",
    "//example.org/p/{j}/",
    "HTTP://EXAMPLE.NET/p/{j}/",
    "mailto:webmaster@example.com",
    "javascript:void(0)",
    "ftp://example.com/p/{j}.txt",
    "tel:+15550100",
)
OFFSITE_ORIGINS = frozenset(
    {("example.com", 80), ("example.org", 80), ("example.net", 80), ("127.0.0.1", 9)}
)

# Non-HTML resources: extension -> Content-Type. Their bodies hold fake <a href> text.
NON_HTML_TYPES: dict[str, str] = {
    "txt": "text/plain; charset=utf-8",
    "png": "image/png",
    "json": "application/json",
    "xml": "application/xhtml+xml",
}
PAGE_CONTENT_TYPES: tuple[str, ...] = (
    "text/html; charset=utf-8",
    "text/html",
    "Text/HTML; Charset=UTF-8",
)

FILLER = (
    b"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
    b"incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud "
    b"exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat. "
)
# Not HTTP: no status line, binary noise (a client must report error:protocol).
GARBAGE = b"\x16\x03\x01\x00\xa5SSH-2.0-NOT-HTTP\xff\xfe\x00garbage, no status line\r\n\r\n"

_PAGE_RE = re.compile(r"/p/(0|[1-9][0-9]*)(/?)")
_CHAIN_RE = re.compile(r"/r/(0|[1-9][0-9]*)/(0|[1-9][0-9]*)")
_CYCLE_RE = re.compile(r"/c/(0|[1-9][0-9]*)/(0|[1-9][0-9]*)")
_FILE_RE = re.compile(r"/f/(0|[1-9][0-9]*)\.([a-z]+)")


@dataclass(frozen=True, slots=True)
class SiteParams:
    """Everything that determines a site; equal params give byte-identical sites."""

    pages: int = 1000
    links: int = 10
    seed: int = 0
    body_size: int = 2048
    shape: str = "deep"
    # Kinds of link slot (fractions of all link slots of the pages; the rest are plain).
    # The defaults add about 15% URLs beyond the pages (each such slot is a new URL).
    slash_redirect: float = 0.005
    redirect_chain: float = 0.0005
    chain_length: int = 12
    redirect_cycle: float = 0.0005
    missing: float = 0.003
    non_html: float = 0.003
    offsite: float = 0.01
    query: float = 0.002
    # Spellings of links to this site (fractions of those links).
    fragment: float = 0.05
    relative: float = 0.05
    absolute: float = 0.02
    odd_markup: float = 0.05
    # Faults: fractions of the pages /p/N/ (the root never faults).
    reset: float = 0.0
    hang: float = 0.0
    error500: float = 0.0
    truncate: float = 0.0
    garbage: float = 0.0

    def __post_init__(self) -> None:
        if self.pages < 1:
            raise ValueError(f"pages must be >= 1, got {self.pages}")
        if self.links < 0:
            raise ValueError(f"links must be >= 0, got {self.links}")
        if self.body_size < 0:
            raise ValueError(f"body_size must be >= 0, got {self.body_size}")
        if self.shape not in ("deep", "wide"):
            raise ValueError(f"shape must be 'deep' or 'wide', got {self.shape!r}")
        if self.chain_length < 1:
            raise ValueError(f"chain_length must be >= 1, got {self.chain_length}")
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, float) and not 0.0 <= value <= 1.0:
                raise ValueError(f"{f.name} must be between 0 and 1, got {value}")
        if sum(getattr(self, k) for k in SLOT_KINDS) > 1.0:
            raise ValueError("the link-kind ratios add up to more than 1")
        if self.relative + self.absolute > 1.0:
            raise ValueError("relative + absolute add up to more than 1")
        if sum(getattr(self, k) for k in FAULT_KINDS) > 1.0:
            raise ValueError("the fault rates add up to more than 1")

    def faults(self) -> dict[str, float]:
        return {k: float(getattr(self, k)) for k in FAULT_KINDS}


class Link(NamedTuple):
    """One <a href> as the model generated it, with the URL it must resolve to."""

    href: str  # the attribute value before HTML escaping (a path if absolute=True)
    target: str | None  # normalised path+query on this site; None when off-site
    kind: str  # 'plain' or one of SLOT_KINDS
    absolute: bool = False  # rendered as <scheme>://<authority><href>
    markup: int = 0  # 0 plain; 1 <A HREF>; 2 whitespace; 3 single quotes; 4 extra attribute


@dataclass(frozen=True, slots=True)
class Redirect:
    """A chain or cycle step: where it points, written as Location, and its status."""

    status: int
    location: str  # the Location header value (may be relative or off-site)
    target: str | None  # the normalised path it leads to on this site; None if off-site


@dataclass(frozen=True, slots=True)
class PageResponse:
    """What the server must do for one request path."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes
    fault: FaultKind | None = None
    raw: bytes = b""  # for 'truncate' and 'garbage': the exact bytes to send, then close


@dataclass(slots=True)
class _Chain:
    steps: list[Redirect]  # step k is /r/<c>/<k>


@dataclass(slots=True)
class _Pages:
    """Per-page data, built once."""

    links: list[list[Link]] = field(default_factory=list)
    content_type: list[str] = field(default_factory=list)
    invalid_utf8: list[bool] = field(default_factory=list)


class Site:
    """A deterministic site built from SiteParams; only random.Random(seed) places things."""

    def __init__(self, params: SiteParams) -> None:
        self.params = params
        self.root_links: list[Link] = []
        self._pages = _Pages()
        self.chains: list[_Chain] = []
        self.cycles: list[list[Redirect]] = []
        self.files: list[str] = []  # extension of /f/<m>.<ext>
        self.missing_count = 0
        self.page_faults: dict[int, str] = {}
        self._cache: dict[tuple[str, str], PageResponse] = {}
        self._build(random.Random(params.seed))

    # -- building -------------------------------------------------------------------

    def _build(self, rng: random.Random) -> None:
        p = self.params
        n = p.pages
        self._place_faults(rng)
        for _ in range(n):
            self._pages.content_type.append(rng.choice(PAGE_CONTENT_TYPES))
            self._pages.invalid_utf8.append(rng.random() < p.odd_markup)

        # Slots: None marks a plain slot whose target page is assigned below.
        slots: list[list[Link | None]] = []
        for i in range(n):
            slots.append([self._draw_slot(rng, i) for _ in range(p.links)])

        if p.shape == "wide":
            self.root_links = [Link(f"/p/{i}/", f"/p/{i}/", "plain") for i in range(n)]
            for i in range(n):
                for s, link in enumerate(slots[i]):
                    if link is None:
                        slots[i][s] = self._plain(rng, i, rng.randrange(n))
        else:
            self._wire_deep(rng, slots)
        for row in slots:
            self._pages.links.append([link for link in row if link is not None])

    def _place_faults(self, rng: random.Random) -> None:
        n = self.params.pages
        counts = [(k, round(self.params.faults()[k] * n)) for k in FAULT_KINDS]
        chosen = rng.sample(range(n), min(n, sum(c for _, c in counts)))
        pos = 0
        for kind, count in counts:
            for i in chosen[pos : pos + count]:
                self.page_faults[i] = kind
            pos += count

    def _wire_deep(self, rng: random.Random, slots: list[list[Link | None]]) -> None:
        """Give every page an incoming plain link from an already reachable, non-faulty page.

        Pages are attached in index order to a random open plain slot of the pages reached
        so far (a random recursive tree, so the crawl fans out over generations); leftover
        plain slots link to random pages.
        """
        p = self.params
        n = p.pages
        root_slots: list[Link | None] = [None] * max(1, p.links)
        open_slots: list[tuple[int, int]] = [(-1, s) for s in range(len(root_slots))]

        def row(owner: int) -> list[Link | None]:
            return root_slots if owner < 0 else slots[owner]

        for i in range(n):
            if open_slots:
                k = rng.randrange(len(open_slots))
                owner, s = open_slots[k]
                open_slots[k] = open_slots[-1]
                open_slots.pop()
                row(owner)[s] = self._plain(rng, owner, i)
            else:
                # Not enough plain slots (few links or high ratios): add an extra link.
                owner = rng.randrange(-1, i)
                while owner >= 0 and owner in self.page_faults:
                    owner = rng.randrange(-1, i)
                row(owner).append(self._plain(rng, owner, i))
            if i not in self.page_faults:
                open_slots.extend((i, s) for s, link in enumerate(slots[i]) if link is None)
        for owner, s in open_slots:
            row(owner)[s] = self._plain(rng, owner, rng.randrange(n))
        for i in self.page_faults:  # their links are never followed, but keep K of them
            for s, link in enumerate(slots[i]):
                if link is None:
                    slots[i][s] = self._plain(rng, i, rng.randrange(n))
        self.root_links = [link for link in root_slots if link is not None]

    def _draw_slot(self, rng: random.Random, src: int) -> Link | None:
        """Draw the kind of one link slot of page src; None means a plain link (wired later)."""
        p = self.params
        u = rng.random()
        for kind in SLOT_KINDS:
            ratio: float = getattr(p, kind)
            if u < ratio:
                return self._make_slot(rng, src, kind)
            u -= ratio
        return None

    def _make_slot(self, rng: random.Random, src: int, kind: str) -> Link:
        p = self.params
        if kind == "slash_redirect":
            j = rng.randrange(p.pages)
            return self._spell(rng, src, f"/p/{j}", kind)
        if kind == "query":
            j = rng.randrange(p.pages)
            return self._spell(rng, src, f"/p/{j}/?a={src}&b={j}", kind)
        if kind == "redirect_chain":
            c = len(self.chains)
            self.chains.append(self._make_chain(rng, c))
            return self._spell(rng, src, f"/r/{c}/0", kind)
        if kind == "redirect_cycle":
            m = len(self.cycles)
            length = rng.randint(1, 3)
            self.cycles.append(
                [
                    Redirect(
                        rng.choice(REDIRECT_STATUSES),
                        f"/c/{m}/{(k + 1) % length}",
                        f"/c/{m}/{(k + 1) % length}",
                    )
                    for k in range(length)
                ]
            )
            return self._spell(rng, src, f"/c/{m}/0", kind)
        if kind == "missing":
            self.missing_count += 1
            return self._spell(rng, src, f"/missing/{self.missing_count - 1}/", kind)
        if kind == "non_html":
            m = len(self.files)
            self.files.append(rng.choice(tuple(NON_HTML_TYPES)))
            return self._spell(rng, src, f"/f/{m}.{self.files[m]}", kind)
        # offsite
        form = rng.choice(OFFSITE_FORMS)
        return Link(form.format(j=rng.randrange(p.pages)), None, kind, markup=self._markup(rng))

    def _make_chain(self, rng: random.Random, c: int) -> _Chain:
        """A chain of 2..chain_length redirects; it ends at a page, a 404 or off-site."""
        p = self.params
        length = rng.randint(min(2, p.chain_length), p.chain_length)
        u = rng.random()
        if u < 0.8:
            end: tuple[str, str | None] = (f"/p/{rng.randrange(p.pages)}/?via=r{c}",) * 2
        elif u < 0.9:
            end = (f"/missing/r{c}/",) * 2
        else:
            end = (f"http://example.com/r/{c}/", None)
        steps = []
        for k in range(length):
            status = rng.choice(REDIRECT_STATUSES)
            if k == length - 1:
                steps.append(Redirect(status, end[0], end[1]))
            elif rng.random() < 0.3:
                # A relative Location, resolved against /r/<c>/<k>.
                steps.append(Redirect(status, f"{k + 1}", f"/r/{c}/{k + 1}"))
            else:
                steps.append(Redirect(status, f"/r/{c}/{k + 1}", f"/r/{c}/{k + 1}"))
        return _Chain(steps)

    def _plain(self, rng: random.Random, src: int, j: int) -> Link:
        return self._spell(rng, src, f"/p/{j}/", "plain")

    def _markup(self, rng: random.Random) -> int:
        return rng.randint(1, 4) if rng.random() < self.params.odd_markup else 0

    def _spell(self, rng: random.Random, src: int, target: str, kind: str) -> Link:
        """Write a link to target (a path on this site) from page src (-1 is the root)."""
        p = self.params
        href = target
        absolute = False
        u = rng.random()
        if u < p.relative:
            if src < 0:
                href = target[1:] if rng.random() < 0.5 else "./" + target[1:]
            elif target.startswith("/p/"):
                rest = target[len("/p/") :]
                href = "../" + rest if rng.random() < 0.5 else "../../p/" + rest
            else:
                href = "../.." + target
        elif u < p.relative + p.absolute:
            absolute = True
        if rng.random() < p.fragment:
            href += rng.choice(("#top", "#section-2", "#"))
        return Link(href, target, kind, absolute, self._markup(rng))

    # -- hand-building (tests) -------------------------------------------------------
    # Small scenarios are easiest to state exactly: start from a plain site and add
    # the structures by hand. Keep the order-independence rule: link only to chain
    # heads and cycle entries, never to their later steps.

    def add_link(self, page: int | None, link: Link | str) -> Link:
        """Add a link to the root (page None) or to /p/<page>/; a str is a plain href."""
        if isinstance(link, str):
            link = Link(link, link if link.startswith("/") else None, "plain")
        (self.root_links if page is None else self._pages.links[page]).append(link)
        self._cache.clear()
        return link

    def add_chain(self, statuses: list[int], end: str, end_target: str | None = None) -> str:
        """A redirect chain with one step per status, the last pointing to `end`.

        end_target is the normalised path of `end` (defaults to end itself when it is a
        path, None when it is off-site). Returns the head's path.
        """
        c = len(self.chains)
        if end_target is None and end.startswith("/"):
            end_target = end
        steps = [Redirect(s, f"/r/{c}/{k + 1}", f"/r/{c}/{k + 1}") for k, s in enumerate(statuses)]
        steps[-1] = Redirect(statuses[-1], end, end_target)
        self.chains.append(_Chain(steps))
        self._cache.clear()
        return f"/r/{c}/0"

    def add_cycle(self, statuses: list[int]) -> str:
        """A redirect cycle /c/<m>/0 -> /c/<m>/1 -> ... -> /c/<m>/0; returns its entry."""
        m = len(self.cycles)
        n = len(statuses)
        self.cycles.append(
            [
                Redirect(s, f"/c/{m}/{(k + 1) % n}", f"/c/{m}/{(k + 1) % n}")
                for k, s in enumerate(statuses)
            ]
        )
        self._cache.clear()
        return f"/c/{m}/0"

    def set_fault(self, page: int, kind: str | None) -> None:
        """Make /p/<page>/ fault with kind (one of FAULT_KINDS), or stop faulting (None)."""
        if kind is None:
            self.page_faults.pop(page, None)
        elif kind in FAULT_KINDS:
            self.page_faults[page] = kind
        else:
            raise ValueError(f"unknown fault kind {kind!r}")
        self._cache.clear()

    # -- queries --------------------------------------------------------------------

    def links(self, path: str) -> list[Link]:
        """The <a> links of the HTML page at path ([] if path is not a 200 HTML page)."""
        res = self._resolve(path)
        if res[0] == "root":
            return self.root_links
        if res[0] == "page" and res[1] not in self.page_faults:
            return self._pages.links[res[1]]
        return []

    def all_page_links(self) -> Iterable[Link]:
        """Every link slot of the pages /p/N/ (the ratios apply to these)."""
        for row in self._pages.links:
            yield from row

    def _resolve(self, path: str) -> tuple[str, int, int]:
        """Classify a request path (path plus query) into (kind, a, b)."""
        route, _, _query = path.partition("?")
        if route == "/":
            return ("root", 0, 0)
        m = _PAGE_RE.fullmatch(route)
        if m and int(m.group(1)) < self.params.pages:
            return ("page" if m.group(2) else "slash", int(m.group(1)), 0)
        if _query:
            return ("missing", 0, 0)
        m = _CHAIN_RE.fullmatch(route)
        if m and int(m.group(1)) < len(self.chains):
            c, k = int(m.group(1)), int(m.group(2))
            if k < len(self.chains[c].steps):
                return ("chain", c, k)
        m = _CYCLE_RE.fullmatch(route)
        if m and int(m.group(1)) < len(self.cycles):
            c, k = int(m.group(1)), int(m.group(2))
            if k < len(self.cycles[c]):
                return ("cycle", c, k)
        m = _FILE_RE.fullmatch(route)
        if m and int(m.group(1)) < len(self.files) and self.files[int(m.group(1))] == m.group(2):
            return ("file", int(m.group(1)), 0)
        return ("missing", 0, 0)

    def redirect(self, path: str) -> Redirect | None:
        """The redirect served at path, if it is one."""
        kind, a, b = self._resolve(path)
        if kind == "slash":
            query = path.partition("?")[2]
            target = f"/p/{a}/" + (f"?{query}" if query else "")
            return Redirect(301, target, target)
        if kind == "chain":
            return self.chains[a].steps[b]
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
        """The exact fetched map of a correct crawl from root_url under docs/contract.md.

        Computed from the links the model generated, never from its HTML. `order`, if
        given, pops the frontier in random order (the result must not change).
        """
        origin = _origin(root_url)
        seen = {"/"}
        frontier: deque[tuple[str, int]] = deque([("/", max_redirect)])
        fetched: dict[str, Outcome] = {}
        while frontier:
            if order is not None:
                frontier.rotate(-order.randrange(len(frontier)))
            path, budget = frontier.popleft()
            outcome = self.outcome(path)
            fetched[origin + path] = outcome
            if outcome == 200:
                for link in self.links(path):
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

    def prerender(self, authority: str) -> None:
        """Build and cache the root and every page for this Host, so that serving them
        costs a lookup (do it before forking workers: they inherit the cache)."""
        self.response("/", authority)
        for i in range(self.params.pages):
            self.response(f"/p/{i}/", authority)

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
        fault = self.page_faults.get(a) if kind == "page" else None
        redirect = self.redirect(path)
        if redirect is not None:
            body = _small_html("Moved", f"Moved to {redirect.location}.")
            moved = (
                ("Content-Type", "text/html; charset=utf-8"),
                ("Location", redirect.location),
            )
            return PageResponse(redirect.status, moved, body)
        if kind == "missing":
            body = _small_html("Not found", f"Nothing at {path}.")
            return PageResponse(404, (("Content-Type", "text/html; charset=utf-8"),), body)
        if kind == "file":
            ext = self.files[a]
            return PageResponse(
                200, (("Content-Type", NON_HTML_TYPES[ext]),), self._file_body(a, ext)
            )
        if fault == "error500":
            body = _small_html("Server error", "Something broke.")
            return PageResponse(500, (("Content-Type", "text/html; charset=utf-8"),), body)
        if kind == "root":
            body = self._page_body("Home", self.root_links, authority, invalid_utf8=False)
            headers: tuple[tuple[str, str], ...] = (("Content-Type", "text/html; charset=utf-8"),)
        else:
            body = self._page_body(
                f"Page {a}", self._pages.links[a], authority, self._pages.invalid_utf8[a]
            )
            headers = (("Content-Type", self._pages.content_type[a]),)
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

    def _page_body(
        self, title: str, links: list[Link], authority: str, invalid_utf8: bool
    ) -> bytes:
        parts = [
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{title}</title>\n"
            # Elements other than <a> are never followed: these targets are not pages.
            '<link rel="stylesheet" href="/trap/style.css"></head>\n'
            f'<body><h1 id="top">{title} \u2014 caf\u00e9</h1>\n'
            '<a name="anchor"></a> <a href="">empty</a> <a href="  ">blank</a> '
            '<a href="#top">top</a>\n<ul>\n'
        ]
        for n, link in enumerate(links):
            parts.append(f"<li>{_render(link, authority, n)}</li>\n")
        parts.append('</ul>\n<img src="/trap/img.png" alt="">\n<form action="/trap/form"></form>\n')
        head = "".join(parts).encode()
        tail = b"</body></html>\n"
        filler = b"<p>" + (b"caf\xe9 " if invalid_utf8 else b"")
        pad = max(0, self.params.body_size - len(head) - len(tail) - len(filler) - 5)
        filler += (FILLER * (pad // len(FILLER) + 1))[:pad] + b"</p>\n"
        return head + filler + tail

    def _file_body(self, m: int, ext: str) -> bytes:
        fake = f'<a href="/trap/f/{m}/">not a link</a> <A HREF="/p/0/">nor this</A>\n'.encode()
        if ext == "png":
            head = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe" + fake
        elif ext == "json":
            head = b'{"html": "' + fake.replace(b'"', b'\\"').rstrip() + b'", "pad": "'
        else:
            head = b"Not HTML. " + fake
        pad = max(0, self.params.body_size - len(head))
        return head + (FILLER * (pad // len(FILLER) + 1))[:pad]


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


def _render(link: Link, authority: str, n: int) -> str:
    href = f"HTTP://{authority}{link.href}" if link.absolute else link.href
    value = html.escape(href, quote=True)  # '&' becomes '&amp;': entity-encoded hrefs
    text = f"link {n}"
    if link.markup == 1:
        return f'<A HREF="{value}">{text}</A>'
    if link.markup == 2:
        return f'<a href="  {value}\n ">{text}</a>'
    if link.markup == 3:
        return f"<a href='{value}'>{text}</a>"
    if link.markup == 4:
        return f'<a class="nav" title="a &lt;link&gt;" href="{value}">{text}</a>'
    return f'<a href="{value}">{text}</a>'


def _small_html(title: str, text: str) -> bytes:
    # Links in non-200 bodies must not be followed: this one is a trap.
    return (
        f"<!DOCTYPE html>\n<html><head><title>{title}</title></head><body>"
        f'<p>{html.escape(text)}</p><p><a href="/trap/{title.lower().replace(" ", "-")}/">'
        "home</a></p></body></html>\n"
    ).encode()
