"""The bytes of a docs page: a sidebar, then headings, prose, tables and code around its links."""

from __future__ import annotations

import html
import random
from collections.abc import Sequence

from server.page_bodies import lorem, render_link
from server.site_params import Link

_WORDS: tuple[str, ...] = (
    "the", "a", "an", "of", "to", "in", "for", "with", "on", "by", "from", "as", "is", "are",
    "be", "can", "will", "may", "must", "should", "loop", "task", "event", "socket", "stream",
    "buffer", "timeout", "request", "response", "handler", "server", "client", "connection",
    "thread", "process", "worker", "queue", "future", "callback", "coroutine", "schedule",
    "cancel", "await", "return", "raise", "close", "open", "read", "write", "send", "receive",
    "limit", "default", "option", "value", "parameter", "argument", "setting", "example",
    "note", "warning", "error", "when", "while", "each", "every", "other", "this", "that",
    "which", "where", "how", "why", "first", "next", "last", "fast", "slow", "small", "large",
    "new", "old", "safe", "simple", "explicit", "blocking", "concurrent",
)  # fmt: skip
_CODE_WORDS: tuple[str, ...] = ("loop", "task", "reader", "writer", "conn", "queue", "url")
_LANGUAGES: tuple[str, ...] = ("python", "console", "html", "ini")


class DocsText:
    """Prose, code and tables drawn once from a seed; every page picks its blocks from
    these pools with its own seed, so that rendering costs joins, not word-by-word draws."""

    def __init__(self, seed: int) -> None:
        rng = random.Random(seed)
        self.sentences = [_sentence(rng) for _ in range(400)]
        self.code = [_code_block(rng, k) for k in range(32)]
        self.tables = [_table(rng) for _ in range(24)]
        self.headings = [_words(rng, rng.randint(2, 5)).capitalize() for _ in range(64)]

    def paragraph(self, rng: random.Random) -> bytes:
        return b"<p>" + b"".join(rng.choices(self.sentences, k=rng.randint(2, 7))) + b"</p>\n"

    def block(self, rng: random.Random, n: int) -> tuple[bytes, bool]:
        """Block n of a page and whether it is a paragraph (the blocks that carry links)."""
        u = rng.random()
        if n % 7 == 0:
            title = rng.choice(self.headings)
            slug = f"{title.lower().replace(' ', '-')}-{n}"
            # Sphinx-style heading anchors: <a href="#..."> that resolve to the page itself.
            return (
                f'<h2 id="{slug}">{title}<a class="headerlink" href="#{slug}" '
                'title="Link to this heading">\u00b6</a></h2>\n'
            ).encode(), False
        if u < 0.66:
            return self.paragraph(rng), True
        if u < 0.8:
            return rng.choice(self.code), False
        if u < 0.9:
            return rng.choice(self.tables), False
        if u < 0.96:
            note = b'<div class="admonition note"><p class="admonition-title">Note</p>'
            return note + self.paragraph(rng) + b"</div>\n", False
        return _trap(rng, n), False


def nav_html(links: Sequence[Link]) -> bytes:
    """The sidebar: relative links only, so its bytes are the same for every Host."""
    items = []
    for n, link in enumerate(links):
        level = 1 if link.target is not None and link.target.endswith("/") else 2
        text = html.escape(_link_text(link))
        items.append(f'<li class="toctree-l{level}">{render_link(link, "", n, text)}</li>\n')
    return (
        '<nav class="sidebar" aria-label="Contents"><p class="caption">Contents</p><ul>\n'
        + "".join(items)
        + "</ul></nav>\n"
    ).encode()


def docs_page_body(
    text: DocsText,
    title: str,
    nav: bytes,
    links: Sequence[Link],
    authority: str,
    invalid_utf8: bool,
    size: int,
    seed: int,
) -> bytes:
    """A docs page of exactly `size` bytes (more only when its links alone do not fit)."""
    rng = random.Random(seed)
    head = _head(title, invalid_utf8) + nav + _article_start(title)
    tail = b'</article></main>\n<footer><img src="/trap/logo.png" alt=""></footer></body></html>\n'
    items = []
    for n, link in enumerate(links):
        label = html.escape(_link_text(link))
        if n % 4 == 3:  # API references: the link wraps inline code
            label = f"<code>{label}</code>"
        items.append(render_link(link, authority, n, label).encode())
    # Each link costs its bytes plus ", "; each paragraph that hosts some costs " See .".
    reserve = sum(len(item) + 2 for item in items) + 64
    budget = size - len(head) - len(tail) - reserve
    blocks: list[tuple[bytes, bool]] = []
    used = 0
    while True:
        block = text.block(rng, len(blocks))
        used += len(block[0]) + (8 if block[1] else 0)
        if used > budget:
            break
        blocks.append(block)
    hosts = [k for k, (_, para) in enumerate(blocks) if para]
    if not hosts:
        blocks.append((b"<p>See also:</p>\n", True))
        hosts = [len(blocks) - 1]
    parts = [head]
    given = 0
    for k, (data, _) in enumerate(blocks):
        if hosts and k == hosts[0]:
            hosts.pop(0)
            # Spread the links evenly over the paragraphs that remain.
            take = (len(items) - given + len(hosts)) // (len(hosts) + 1)
            if take:
                group = b", ".join(items[given : given + take])
                data = data[: -len(b"</p>\n")].rstrip() + b" See " + group + b".</p>\n"
                given += take
        parts.append(data)
    parts.append(_pad(size - sum(map(len, parts)) - len(tail)))
    parts.append(tail)
    return b"".join(parts)


def _head(title: str, invalid_utf8: bool) -> bytes:
    lead = b'<p class="lead">caf\xe9 au lait</p>\n' if invalid_utf8 else b""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{title} \u2014 Example docs</title>\n"
        # Elements other than <a> are never followed: these targets are not pages.
        '<link rel="stylesheet" href="/trap/style.css">'
        '<script src="/trap/app.js"></script></head>\n<body>\n'
    ).encode() + lead


def _article_start(title: str) -> bytes:
    return (
        f'<main><article><h1 id="top">{title} \u2014 caf\u00e9</h1>\n'
        '<a name="anchor"></a> <a href="">empty</a> <a href="  ">blank</a> '
        '<a href="#top">top</a> <a href="#">#</a>\n<form action="/trap/search"></form>\n'
    ).encode()


def _pad(n: int) -> bytes:
    if n >= 8:
        return b"<p>" + lorem(n - 8) + b"</p>\n"
    return b" " * max(0, n)


def _link_text(link: Link) -> str:
    if link.target is None:
        return "external site"
    name = link.target.partition("?")[0].rstrip("/").rsplit("/", 1)[-1]
    return name.removesuffix(".html").replace("-", " ") or "home"


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(_WORDS, k=n))


def _sentence(rng: random.Random) -> bytes:
    words = rng.choices(_WORDS, k=rng.randint(6, 20))
    u = rng.random()
    if u < 0.25:
        words.insert(rng.randrange(len(words)), f"<code>{rng.choice(_CODE_WORDS)}()</code>")
    elif u < 0.35:
        words.insert(rng.randrange(len(words)), "<em>not</em>")
    elif u < 0.4:
        words.insert(rng.randrange(len(words)), "&amp; &lt;tags&gt;")
    return (" ".join(words).capitalize() + ". ").encode()


def _code_block(rng: random.Random, k: int) -> bytes:
    """Highlighted code whose text holds <a href> (escaped): a crawler must not follow it."""
    lines = []
    for _ in range(rng.randint(4, 24)):
        name = rng.choice(_CODE_WORDS)
        lines.append(
            rng.choice(
                (
                    f'<span class="k">await</span> {name}.send(<span class="s">'
                    f"&quot;&lt;a href=&#39;/trap/code/{k}/&#39;&gt;&quot;</span>)",
                    f'<span class="k">async def</span> <span class="nf">{name}_{k}</span>'
                    f'({name}, timeout=<span class="mi">{rng.randint(1, 60)}</span>):',
                    f'    <span class="c1"># {_words(rng, rng.randint(3, 9))}</span>',
                    f'    {name} = <span class="k">await</span> queue.get()',
                )
            )
        )
    language = rng.choice(_LANGUAGES)
    return (
        f'<div class="highlight-{language}"><pre><code>'
        + "\n".join(lines)
        + "</code></pre></div>\n"
    ).encode()


def _table(rng: random.Random) -> bytes:
    rows = []
    for _ in range(rng.randint(3, 12)):
        rows.append(
            f"<tr><td><code>{rng.choice(_CODE_WORDS)}_{rng.choice(_WORDS)}</code></td>"
            f"<td>{rng.randint(0, 10_000)}</td><td>{_words(rng, rng.randint(4, 14))}</td></tr>"
        )
    return (
        '<table class="docutils"><thead><tr><th>Option</th><th>Default</th><th>Meaning</th>'
        "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>\n"
    ).encode()


def _trap(rng: random.Random, n: int) -> bytes:
    """Markup that holds <a href> text that is not an element: in a script, in a comment."""
    if rng.random() < 0.5:
        return (
            f"<script>var tpl{n} = '<a href=\"/trap/script/{n}/\">' + label + '<' + '/a>';"
            "</script>\n"
        ).encode()
    return f'<!-- old sidebar: <a href="/trap/comment/{n}/">moved</a> -->\n'.encode()
