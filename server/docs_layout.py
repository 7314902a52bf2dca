"""The docs shape: /docs/<section>/<page>.html paths, a sidebar on every page, wild hrefs."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from server.docs_bodies import DocsText, docs_page_body, nav_html
from server.site_params import (
    HTTPS_FORM,
    OFFSITE_FORMS,
    PAGE_CONTENT_TYPES,
    PORT80_FORM,
    Link,
    SiteParams,
)

if TYPE_CHECKING:  # the layout the docs shape reads and fills (it imports this module)
    from server.site_layout import SiteLayout


SECTIONS: tuple[str, ...] = (
    "getting-started",
    "tutorial",
    "howto",
    "guide",
    "reference",
    "api",
    "internals",
    "release-notes",
)
_NAME_A: tuple[str, ...] = (
    "event", "socket", "stream", "task", "queue", "timer", "buffer", "worker",
    "thread", "process", "signal", "pipe", "future", "loop", "handler", "server",
    "client", "session", "cookie", "header", "proxy", "cache", "limit", "retry",
)  # fmt: skip
_NAME_B: tuple[str, ...] = (
    "basics", "options", "errors", "lifecycle", "tuning", "examples", "internals",
    "scheduling", "cancellation", "timeouts", "logging", "security", "testing",
    "migration", "patterns", "reference",
)  # fmt: skip
# Off-site links of a docs page: the generic ones plus the hosts docs pages link to. None
# stands for https:// on the site's own authority (same host and port, another scheme).
_OFFSITE: tuple[str | None, ...] = (
    *OFFSITE_FORMS,
    "https://docs.python.org/3/library/asyncio-{j}.html",
    "https://github.com/example/project/issues/{j}",
    "https://pypi.org/project/example-{j}/",
    None,
)
_FRAGMENTS: tuple[str, ...] = ("#top", "#examples", "#id3", "#module-loop", "#")


class DocsTree:
    """Where every docs page lives, its sidebar, and how its links are written: pages keep
    their index (as in the other shapes), only paths and spellings differ. Section s holds
    pages first[s]..first[s+1]-1, the first its index /docs/<section>/.
    """

    # Slot kinds whose targets depend on the path scheme; the rest are the shared ones.
    OWN_KINDS = frozenset({"slash_redirect", "query", "missing", "offsite"})

    def __init__(self, params: SiteParams) -> None:
        self.params = params
        n = params.pages
        nav_budget = params.links // 2  # about half of a page's links are its sidebar
        count = max(1, min(len(SECTIONS), n, nav_budget // 4))
        self.sections = SECTIONS[:count]
        self.first = [s * n // count for s in range(count + 1)]
        self.section_of: list[int] = []
        self.paths: list[str] = []
        self.lookup: dict[str, int] = {}  # every path that serves a page -> its index
        self.slashes: dict[str, int] = {}  # /docs/<section> (301) -> its index page
        for s, name in enumerate(self.sections):
            self.slashes[f"/docs/{name}"] = self.first[s]
            self.lookup[f"/docs/{name}/index.html"] = self.first[s]
            for k in range(self.first[s + 1] - self.first[s]):
                self.section_of.append(s)
                self.paths.append(f"/docs/{name}/" + (_page_name(k - 1) if k else ""))
        self.lookup.update((path, i) for i, path in enumerate(self.paths))
        # The sidebar: every section's index, then its first pages, the same on every page.
        per_section = max(0, (nav_budget - count) // count)
        self.nav_pages = [
            i
            for s in range(count)
            for i in range(self.first[s], min(self.first[s + 1], self.first[s] + 1 + per_section))
        ]
        self.nav_len = len(self.nav_pages)
        self.body_sizes: list[int] = []
        self.body_seeds: list[int] = []
        self.text_seed = 0
        self._text: DocsText | None = None
        self._nav_html: dict[int, bytes] = {}

    def is_index(self, i: int) -> bool:
        return self.paths[i].endswith("/")

    def directory(self, src: int) -> str:
        """The directory relative links of page src (-1 is the root) resolve against."""
        return "/" if src < 0 else f"/docs/{self.sections[self.section_of[src]]}/"

    # -- the layout -------------------------------------------------------------------

    def build(self, layout: SiteLayout, rng: random.Random) -> None:
        """Fill the layout's tables for the docs shape (deep and wide never come here)."""
        p = self.params
        # Never on a section index (the sidebar's entry points).
        layout.place_faults(rng, [i for i in range(p.pages) if not self.is_index(i)])
        high = p.body_size_max or p.body_size
        for _ in range(p.pages):
            layout.page_content_types.append(rng.choice(PAGE_CONTENT_TYPES))
            layout.page_invalid_utf8.append(rng.random() < p.odd_markup)
            self.body_sizes.append(rng.randint(p.body_size, high))
            # Each body is drawn from its own seed, so it does not depend on render order.
            self.body_seeds.append(rng.getrandbits(32))
        self.text_seed = rng.getrandbits(32)
        navs = {s: self._nav(layout, rng, s) for s in range(-1, len(self.sections))}
        slots = max(0, p.links - self.nav_len)
        rows = [[layout.draw_slot(rng, i) for _ in range(slots)] for i in range(p.pages)]
        root_row: list[Link | None] = [None] * max(1, slots)
        self._wire(layout, rng, rows, root_row)
        layout.root_links = navs[-1] + [link for link in root_row if link is not None]
        for i, row in enumerate(rows):
            body = [link for link in row if link is not None]
            layout.page_links.append(navs[self.section_of[i]] + body)

    def _nav(self, layout: SiteLayout, rng: random.Random, s: int) -> list[Link]:
        """The sidebar of section s (-1: the root), written relative to its directory, so
        every page of a section carries the same bytes."""
        base = "/" if s < 0 else f"/docs/{self.sections[s]}/"
        links = []
        for j in self.nav_pages:
            target = self.paths[j]
            if base == "/":
                href = target[1:]
            elif target.startswith(base):
                href = target[len(base) :] or "./"
            else:
                href = "../" + target[len("/docs/") :]
            links.append(Link(href, target, "nav", markup=layout.markup(rng)))
        return links

    def _wire(
        self,
        layout: SiteLayout,
        rng: random.Random,
        rows: list[list[Link | None]],
        root_row: list[Link | None],
    ) -> None:
        """Give every page outside the sidebar an incoming plain link from a reachable,
        non-faulty page (as the deep shape does); leftover plain slots link anywhere."""
        n = self.params.pages
        faults = layout.page_faults
        in_nav = set(self.nav_pages)

        def row(owner: int) -> list[Link | None]:
            return root_row if owner < 0 else rows[owner]

        owners = [-1] + [i for i in self.nav_pages if i not in faults]
        open_slots = [(o, s) for o in owners for s, link in enumerate(row(o)) if link is None]
        for i in range(n):
            if i in in_nav:
                continue
            if open_slots:
                owner, s = layout.take_open_slot(rng, open_slots)
                row(owner)[s] = self.plain(layout, rng, owner, i, tree=True)
            else:
                # Not enough plain slots (few links or high ratios): add an extra link.
                owner = rng.choice(owners)
                row(owner).append(self.plain(layout, rng, owner, i, tree=True))
            if i not in faults:
                owners.append(i)
                open_slots.extend((i, s) for s, link in enumerate(rows[i]) if link is None)
        for owner, s in open_slots:
            row(owner)[s] = self.plain(layout, rng, owner, rng.randrange(n))
        for i in faults:  # their links are never followed, but keep them
            for s, link in enumerate(rows[i]):
                if link is None:
                    rows[i][s] = self.plain(layout, rng, i, rng.randrange(n))

    def plain(
        self, layout: SiteLayout, rng: random.Random, src: int, j: int, tree: bool = False
    ) -> Link:
        target = self.paths[j]
        if not tree and self.is_index(j) and rng.random() < 0.3:
            target += "index.html"  # another URL for the same page, as docs sites have
        return self.spell(layout, rng, src, target, "plain", tree)

    # -- link kinds and spellings -----------------------------------------------------

    def make_slot(self, layout: SiteLayout, rng: random.Random, src: int, kind: str) -> Link:
        """A link slot of a kind in OWN_KINDS, from page src (-1 is the root)."""
        j = rng.randrange(self.params.pages)
        target = self.paths[j]
        if kind == "slash_redirect":  # /docs/<section>: 301 to /docs/<section>/
            return self.spell(layout, rng, src, target[: target.index("/", 6)], kind)
        if kind == "query":
            u = rng.random()
            if u < 1 / 3 and src >= 0 and not self.is_index(src):
                # A bare query resolves against the page's own URL: only pages with one path.
                own = f"?a={src}&b={j}"
                return Link(own, self.paths[src] + own, kind, markup=layout.markup(rng))
            query = f"?v={1 + j % 3}" if u < 2 / 3 else f"?a={src}&b={j}"
            return self.spell(layout, rng, src, target + query, kind)
        if kind == "missing":
            if rng.random() < 0.25 or self.is_index(j):
                layout.missing_count += 1
                target = f"/missing/{layout.missing_count - 1}/"
            else:
                target = _variant(rng, target)
            return self.spell(layout, rng, src, target, kind)
        form = rng.choice(_OFFSITE)
        markup = layout.markup(rng)
        if form is None:
            return Link(target, None, kind, True, markup, HTTPS_FORM)
        return Link(form.format(j=j), None, kind, markup=markup)

    def spell(
        self,
        layout: SiteLayout,
        rng: random.Random,
        src: int,
        target: str,
        kind: str,
        tree: bool = False,
    ) -> Link:
        """Write a link to target (path and query on this site) as docs pages do; a tree link
        (the one that makes a page reachable) never with :80, the origin only on port 80."""
        p = self.params
        href = target
        absolute = False
        form = 0
        u = rng.random()
        if u < p.relative:
            href = _relative(rng, self.directory(src), target)
        elif u < p.relative + p.absolute:
            absolute = True
            form = rng.choice((0, 1, 3) if tree else (0, 1, PORT80_FORM, 3))
        if rng.random() < p.fragment:
            href += rng.choice(_FRAGMENTS)
        return Link(href, target, kind, absolute, layout.markup(rng), form)

    # -- bodies -----------------------------------------------------------------------

    def body(self, layout: SiteLayout, i: int, authority: str) -> bytes:
        """The HTML of page i (-1 is the root) for this Host."""
        if self._text is None:
            self._text = DocsText(self.text_seed)
        s = -1 if i < 0 else self.section_of[i]
        nav = self._nav_html.get(s)
        links = layout.root_links if i < 0 else layout.page_links[i]
        if nav is None:
            # Sidebar links are relative, so their bytes do not depend on the Host.
            nav = self._nav_html[s] = nav_html(links[: self.nav_len])
        if i < 0:
            title, size, seed, bad = "Documentation", self.params.body_size, self.text_seed, False
        else:
            title = _title(self.paths[i])
            size, seed = self.body_sizes[i], self.body_seeds[i]
            bad = layout.page_invalid_utf8[i]
        return docs_page_body(
            self._text, title, nav, links[self.nav_len :], authority, bad, size, seed
        )


def _page_name(k: int) -> str:
    """The file name of the k-th page of a section after its index."""
    # (k mod 24, (k div 24 + k) mod 16) differs for each k below 24 * 16; past that, a suffix.
    a, b = k % len(_NAME_A), (k // len(_NAME_A) + k) % len(_NAME_B)
    name = f"{_NAME_A[a]}-{_NAME_B[b]}"
    lap = k // (len(_NAME_A) * len(_NAME_B))
    return f"{name}-{lap}.html" if lap else f"{name}.html"


def _title(path: str) -> str:
    name = path.rstrip("/").rsplit("/", 1)[1].removesuffix(".html")
    return name.replace("-", " ").capitalize()


def _relative(rng: random.Random, base: str, target: str) -> str:
    """A relative href from directory base that resolves (urljoin) to target."""
    if base == "/":
        return rng.choice((target[1:], "./" + target[1:]))
    if target.startswith(base):  # the same directory
        rest = target[len(base) :]
        if not rest:
            return rng.choice((".", "./"))
        if rest.startswith("?"):  # a bare query would resolve against the page, not its dir
            return "./" + rest
        return rng.choice((rest, rest, "./" + rest))
    # base is /docs/<section>/: two levels below the root. One '..' too many is dropped at
    # the root (RFC 3986), as urljoin and browsers do.
    if target.startswith("/docs/"):
        rest = target[len("/docs/") :]
        return rng.choice((*("../" + rest,) * 5, "../.." + target, "../../.." + target))
    return rng.choice(("../.." + target, "../.." + target, "../../.." + target))


def _variant(rng: random.Random, path: str) -> str:
    """A path that differs from a page's only by case or percent-encoding: another URL under
    the contract, which the site does not serve (404)."""
    head, _, name = path.rpartition("/")
    stem = name.removesuffix(".html")
    u = rng.randrange(3)
    if u == 0:
        return f"{head}/{stem.capitalize()}.html"
    if u == 1:
        return f"{head}/{stem[:-1]}%{ord(stem[-1]):02X}.html"
    return f"{head}/{stem}%2Ehtml"
