"""A site's layout, drawn from its SiteParams: where every link, redirect chain and fault is."""

from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Sequence

from server.docs_layout import DocsTree
from server.site_params import (
    NON_HTML_TYPES,
    OFFSITE_FORMS,
    PAGE_CONTENT_TYPES,
    REDIRECT_STATUSES,
    SLOT_KINDS,
    Link,
    Redirect,
    SiteParams,
    fault_counts,
)


class SiteLayout:
    """The links of the root and of each page, the redirect chains and cycles, the non-HTML
    files and the faulty pages; only random.Random(seed) places them, so equal params give
    equal layouts."""

    def __init__(self, params: SiteParams) -> None:
        self.params = params
        # Part k's pages are bounds[k]..bounds[k+1]-1; its root links are part_roots[k].
        n = params.pages
        self.bounds = [k * n // params.parts for k in range(params.parts + 1)]
        self.part_roots: list[list[Link]] = []
        self.root_links: list[Link] = []  # the root's: every part's, in order
        self.page_links: list[list[Link]] = []
        self.page_content_types: list[str] = []
        self.page_invalid_utf8: list[bool] = []
        self.chains: list[list[Redirect]] = []  # chain c's step k is /r/<c>/<k>
        self.cycles: list[list[Redirect]] = []  # cycle m's step k is /c/<m>/<k>
        self.files: list[str] = []  # extension of /f/<m>.<ext>
        self.missing_count = 0
        self.page_faults: dict[int, str] = {}
        # The docs shape's paths, sidebar and link spellings; None for deep and wide.
        self.docs: DocsTree | None = DocsTree(params) if params.shape == "docs" else None
        self._build(random.Random(params.seed))

    def page_path(self, j: int) -> str:
        """The canonical path of page j: /p/<j>/, or /docs/<section>/<name>.html."""
        return f"/p/{j}/" if self.docs is None else self.docs.paths[j]

    def part_pages(self, page: int) -> tuple[int, int]:
        """The pages [first, last) of the part that holds page (-1-k: part k's root)."""
        k = -1 - page if page < 0 else bisect.bisect_right(self.bounds, page) - 1
        return self.bounds[k], self.bounds[k + 1]

    def _build(self, rng: random.Random) -> None:
        if self.docs is not None:
            self.docs.build(self, rng)
            return
        p = self.params
        n = p.pages
        self.place_faults(rng, range(n))
        for _ in range(n):
            self.page_content_types.append(rng.choice(PAGE_CONTENT_TYPES))
            self.page_invalid_utf8.append(rng.random() < p.odd_markup)

        # Slots: None marks a plain slot whose target page is assigned below.
        slots: list[list[Link | None]] = []
        for i in range(n):
            slots.append([self.draw_slot(rng, i) for _ in range(p.links)])

        if p.shape == "wide":
            self.part_roots = [
                [Link(f"/p/{i}/", f"/p/{i}/", "plain") for i in range(first, last)]
                for first, last in itertools.pairwise(self.bounds)
            ]
            for i in range(n):
                for s, link in enumerate(slots[i]):
                    if link is None:
                        slots[i][s] = self._plain(rng, i, rng.randrange(*self.part_pages(i)))
        else:
            self._wire_deep(rng, slots)
        for row in slots:
            self.page_links.append([link for link in row if link is not None])
        roots = self.part_roots
        self.root_links = roots[0] if p.parts == 1 else [link for r in roots for link in r]

    def place_faults(self, rng: random.Random, candidates: Sequence[int]) -> None:
        """Draw the faulty pages among the candidates, each kind's count of the pages."""
        counts = list(fault_counts(self.params.faults(), self.params.pages).items())
        chosen = rng.sample(candidates, min(len(candidates), sum(c for _, c in counts)))
        pos = 0
        for kind, count in counts:
            for i in chosen[pos : pos + count]:
                self.page_faults[i] = kind
            pos += count

    def _wire_deep(self, rng: random.Random, slots: list[list[Link | None]]) -> None:
        """Give every page an incoming plain link from a reachable, non-faulty page of its
        part: in index order, a random open plain slot of the part's pages reached so far,
        its root's (owner -1-k) first (a random recursive tree: the crawl fans out over
        generations); leftover plain slots link to random pages of the part.
        """
        p = self.params
        roots: list[list[Link | None]] = [[None] * max(1, p.links) for _ in range(p.parts)]

        def row(owner: int) -> list[Link | None]:
            return roots[-1 - owner] if owner < 0 else slots[owner]

        for k, (first, last) in enumerate(itertools.pairwise(self.bounds)):
            open_slots = [(-1 - k, s) for s in range(max(1, p.links))]
            for i in range(first, last):
                if open_slots:
                    owner, s = self.take_open_slot(rng, open_slots)
                    row(owner)[s] = self._plain(rng, owner, i)
                else:
                    # Not enough plain slots (few links or high ratios): add an extra link,
                    # from the part's root (drawn as first - 1) or one of its pages so far.
                    owner = rng.randrange(first - 1, i)
                    while owner >= first and owner in self.page_faults:
                        owner = rng.randrange(first - 1, i)
                    owner = owner if owner >= first else -1 - k
                    row(owner).append(self._plain(rng, owner, i))
                if i not in self.page_faults:
                    open_slots.extend((i, s) for s, link in enumerate(slots[i]) if link is None)
            for owner, s in open_slots:
                row(owner)[s] = self._plain(rng, owner, rng.randrange(first, last))
        for i in self.page_faults:  # their links are never followed, but keep K of them
            for s, link in enumerate(slots[i]):
                if link is None:
                    slots[i][s] = self._plain(rng, i, rng.randrange(*self.part_pages(i)))
        self.part_roots = [[link for link in root if link is not None] for root in roots]

    @staticmethod
    def take_open_slot(rng: random.Random, open_slots: list[tuple[int, int]]) -> tuple[int, int]:
        """Remove and return a random (owner, slot) of open_slots: the last takes its place."""
        k = rng.randrange(len(open_slots))
        open_slots[k], open_slots[-1] = open_slots[-1], open_slots[k]
        return open_slots.pop()

    def draw_slot(self, rng: random.Random, src: int) -> Link | None:
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
        if self.docs is not None and kind in self.docs.OWN_KINDS:
            return self.docs.make_slot(self, rng, src, kind)
        if kind == "slash_redirect":
            j = rng.randrange(*self.part_pages(src))
            return self._spell(rng, src, f"/p/{j}", kind)
        if kind == "query":
            j = rng.randrange(*self.part_pages(src))
            return self._spell(rng, src, f"/p/{j}/?a={src}&b={j}", kind)
        if kind == "redirect_chain":
            c = len(self.chains)
            self.chains.append(self._make_chain(rng, c, src))
            return self._spell(rng, src, f"/r/{c}/0", kind)
        if kind == "redirect_cycle":
            m = len(self.cycles)
            length = rng.randint(1, 3)
            steps = [f"/c/{m}/{(k + 1) % length}" for k in range(length)]
            self.cycles.append([Redirect(rng.choice(REDIRECT_STATUSES), s, s) for s in steps])
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
        return Link(form.format(j=rng.randrange(p.pages)), None, kind, markup=self.markup(rng))

    def _make_chain(self, rng: random.Random, c: int, src: int) -> list[Redirect]:
        """A chain of 2..chain_length redirects; it ends at a page of src's part, a 404 or
        off-site."""
        p = self.params
        length = rng.randint(min(2, p.chain_length), p.chain_length)
        u = rng.random()
        if u < 0.8:
            end: tuple[str, str | None] = (
                f"{self.page_path(rng.randrange(*self.part_pages(src)))}?via=r{c}",
            ) * 2
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
        return steps

    def _plain(self, rng: random.Random, src: int, j: int) -> Link:
        return self._spell(rng, src, self.page_path(j), "plain")

    def markup(self, rng: random.Random) -> int:
        return rng.randint(1, 4) if rng.random() < self.params.odd_markup else 0

    def _spell(self, rng: random.Random, src: int, target: str, kind: str) -> Link:
        """Write a link to target (a path on this site) from page src (-1 is the root)."""
        if self.docs is not None:
            return self.docs.spell(self, rng, src, target, kind)
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
        return Link(href, target, kind, absolute, self.markup(rng))
