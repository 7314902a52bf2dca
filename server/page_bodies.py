"""The bytes of the site's bodies: HTML pages with their links, non-HTML files, status pages."""

from __future__ import annotations

import html

from server.site_params import ABSOLUTE_FORMS, Link

FILLER = (
    b"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
    b"incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud "
    b"exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat. "
)
# A link's <a> element by Link.markup: plain, upper case, whitespace around the href,
# single quotes, another attribute first.
MARKUPS = (
    '<a href="{href}">{text}</a>',
    '<A HREF="{href}">{text}</A>',
    '<a href="  {href}\n ">{text}</a>',
    "<a href='{href}'>{text}</a>",
    '<a class="nav" title="a &lt;link&gt;" href="{href}">{text}</a>',
)
# Not HTTP: no status line, binary noise (a client must report error:protocol).
GARBAGE = b"\x16\x03\x01\x00\xa5SSH-2.0-NOT-HTTP\xff\xfe\x00garbage, no status line\r\n\r\n"


def page_body(
    title: str, links: list[Link], authority: str, invalid_utf8: bool, body_size: int
) -> bytes:
    """An HTML page of about body_size bytes: its links, traps that are not links, filler."""
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
        parts.append(f"<li>{render_link(link, authority, n)}</li>\n")
    parts.append('</ul>\n<img src="/trap/img.png" alt="">\n<form action="/trap/form"></form>\n')
    head = "".join(parts).encode()
    tail = b"</body></html>\n"
    filler = b"<p>" + (b"caf\xe9 " if invalid_utf8 else b"")
    pad = max(0, body_size - len(head) - len(tail) - len(filler) - 5)
    filler += lorem(pad) + b"</p>\n"
    return head + filler + tail


def file_body(m: int, ext: str, body_size: int) -> bytes:
    """The body of /f/<m>.<ext>: not HTML, though it holds <a href> text a crawler must skip."""
    fake = f'<a href="/trap/f/{m}/">not a link</a> <A HREF="/p/0/">nor this</A>\n'.encode()
    if ext == "png":
        head = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe" + fake
    elif ext == "json":
        head = b'{"html": "' + fake.replace(b'"', b'\\"').rstrip() + b'", "pad": "'
    else:
        head = b"Not HTML. " + fake
    pad = max(0, body_size - len(head))
    return head + lorem(pad)


def lorem(n: int) -> bytes:
    """n bytes of the filler text, repeated as far as it takes."""
    return (FILLER * (n // len(FILLER) + 1))[:n]


def render_link(link: Link, authority: str, n: int, text: str | None = None) -> str:
    """The <a> element of a link (text: its HTML content, default "link <n>")."""
    href = link.href
    if link.absolute:
        # Form 0 is the deep and wide shapes' only spelling: their bytes are pinned by
        # tests/test_site_docs.py (the baselines and the sample depend on them).
        prefix = f"HTTP://{authority}" if link.form == 0 else origin(link.form, authority)
        href = prefix + href
    value = html.escape(href, quote=True)  # '&' becomes '&amp;': entity-encoded hrefs
    return MARKUPS[link.markup].format(href=value, text=f"link {n}" if text is None else text)


def origin(form: int, authority: str) -> str:
    """How an absolute link of this form writes the origin of the site served as authority."""
    host = authority if authority.endswith("]") else authority.rpartition(":")[0] or authority
    return ABSOLUTE_FORMS[form].format(a=authority, h=host, A=authority.upper())


def small_html(title: str, text: str) -> bytes:
    # Links in non-200 bodies must not be followed: this one is a trap.
    return (
        f"<!DOCTYPE html>\n<html><head><title>{title}</title></head><body>"
        f'<p>{html.escape(text)}</p><p><a href="/trap/{title.lower().replace(" ", "-")}/">'
        "home</a></p></body></html>\n"
    ).encode()
