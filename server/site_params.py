"""What determines a site (SiteParams) and what it is made of: link, redirect and fault kinds."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal, NamedTuple

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
# Every ratio of a site's variety: the link kinds, then the spellings and the odd markup.
VARIETY: tuple[str, ...] = (*SLOT_KINDS, "fragment", "relative", "absolute", "odd_markup")
REDIRECT_STATUSES: tuple[int, ...] = (301, 302, 303, 307, 308)
SHAPES: tuple[str, ...] = ("deep", "wide", "docs")

# How an absolute link (Link.absolute) writes the origin before its path, by Link.form:
# {a} is the Host header the page is served for, {h} its host part, {A} it upper-cased.
# Only the docs shape uses forms other than 0; form 4 (https) is never the site's origin,
# and PORT80_FORM is the site's origin only when the site listens on port 80.
ABSOLUTE_FORMS: tuple[str, ...] = (
    "HTTP://{a}",
    "http://{a}",
    "http://{h}:80",
    "HTTP://{A}",
    "https://{a}",
)
PORT80_FORM = 2
HTTPS_FORM = 4

# Named starting points for `c10k serve --preset NAME`: SiteParams values, which any option
# given explicitly overrides. docs: a documentation site as crawlers meet it in the wild
# (about 300 links a page, half of them a sidebar repeated on every page, 50-200 KB pages);
# its kind ratios are low because each docs page has ~150 link slots, not 10.
PRESETS: dict[str, dict[str, Any]] = {
    "docs": {
        "shape": "docs",
        "pages": 500,
        "links": 300,
        "body_size": 50_000,
        "body_size_max": 200_000,
        "slash_redirect": 0.0002,
        "redirect_chain": 0.0001,
        "redirect_cycle": 0.00005,
        "missing": 0.0005,
        "non_html": 0.0003,
        "offsite": 0.05,
        "query": 0.0005,
        "fragment": 0.15,
        "relative": 0.6,
        "absolute": 0.05,
    },
}

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

PAGE_CONTENT_TYPES: tuple[str, ...] = (
    "text/html; charset=utf-8",
    "text/html",
    "Text/HTML; Charset=UTF-8",
)


# Non-HTML resources: extension -> Content-Type. Their bodies hold fake <a href> text.
NON_HTML_TYPES: dict[str, str] = {
    "txt": "text/plain; charset=utf-8",
    "png": "image/png",
    "json": "application/json",
    "xml": "application/xhtml+xml",
}


@dataclass(frozen=True, slots=True)
class SiteParams:
    """Everything that determines a site; equal params give byte-identical sites."""

    pages: int = 1000
    links: int = 10
    seed: int = 0
    body_size: int = 2048
    shape: str = "deep"
    # Disjoint parts, each at /?part=K with its own manifest: part k holds the pages
    # k*pages//parts .. (k+1)*pages//parts - 1, and no link leaves its part. One part draws
    # exactly the site drawn before parts existed.
    parts: int = 1
    # docs only: each page's body size is drawn from body_size..body_size_max (0: fixed).
    body_size_max: int = 0
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
        for name, least in (("pages", 1), ("links", 0), ("body_size", 0), ("chain_length", 1)):
            if (value := getattr(self, name)) < least:
                raise ValueError(f"{name} must be >= {least}, got {value}")
        if self.shape not in SHAPES:
            raise ValueError(f"shape must be one of {', '.join(SHAPES)}, got {self.shape!r}")
        if not 1 <= self.parts <= self.pages:
            raise ValueError(f"parts must be 1..pages ({self.pages}), got {self.parts}")
        if self.parts > 1 and self.shape == "docs":
            raise ValueError("a docs site cannot be split: its sidebar links every section")
        if self.body_size_max and self.body_size_max < self.body_size:
            raise ValueError(
                f"body_size_max ({self.body_size_max}) is below body_size ({self.body_size})"
            )
        if self.body_size_max and self.shape != "docs":
            raise ValueError(
                "a body size range (body_size_max) needs shape 'docs'; "
                "give deep and wide one --body-size"
            )
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


def fault_counts(rates: Mapping[str, float], pages: int) -> dict[str, int]:
    """How many of a site's pages fail with each kind: its rate of the pages, rounded."""
    return {kind: round(rate * pages) for kind, rate in rates.items()}


class Link(NamedTuple):
    """One <a href> as the model generated it, with the URL it must resolve to."""

    href: str  # the attribute value before HTML escaping (a path if absolute=True)
    target: str | None  # normalised path+query on this site; None when off-site
    kind: str  # 'plain' or one of SLOT_KINDS
    absolute: bool = False  # rendered as <scheme>://<authority><href>
    markup: int = 0  # the index of its <a> element's spelling in page_bodies.MARKUPS
    form: int = 0  # if absolute: the index of its origin's spelling in ABSOLUTE_FORMS


@dataclass(frozen=True, slots=True)
class Redirect:
    """A chain or cycle step: where it points, written as Location, and its status."""

    status: int
    location: str  # the Location header value (may be relative or off-site)
    target: str | None  # the normalised path it leads to on this site; None if off-site
