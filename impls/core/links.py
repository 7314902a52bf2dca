"""Link extraction: the href of every <a> element of an HTML page."""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

HTML_TYPE = "text/html"


def is_html(content_type: str | None) -> bool:
    """True when the media type (parameters ignored, any case) is text/html."""
    if not content_type:
        return False
    return content_type.split(";", 1)[0].strip().lower() == HTML_TYPE


def extract_links(body: bytes) -> list[str]:
    """Every non-empty <a href> of the page, entities decoded and whitespace stripped.

    A real HTML5 tokenizer (lexbor, through selectolax) so that comments, scripts,
    attribute quoting and entities are handled as a browser would; bodies that are not
    UTF-8 are decoded with replacement, as the contract says.
    """
    tree = LexborHTMLParser(body.decode("utf-8", "replace"))
    links = []
    for node in tree.css("a"):
        href = node.attributes.get("href")
        if href:
            href = href.strip()
            if href:
                links.append(href)
    return links
