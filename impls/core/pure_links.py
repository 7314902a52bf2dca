"""The pure core's link extraction on html.parser, read as lexbor reads it (core-choices.md)."""

from __future__ import annotations

import html
import html.parser
import re
from html.entities import html5

from impls.core.heap import after_large_page

# Elements whose content is text to HTML5 (raw text and RCDATA; <noscript> is markup, as
# lexbor parses without scripting). Python 3.14's html.parser knows them all; 3.11's only
# <script> and <style>.
_TEXT_ELEMENTS = frozenset({"script", "style", "xmp", "iframe", "noembed", "noframes"})
_TEXT_ELEMENTS |= {"textarea", "title"}
# An attribute of a start tag, as HTML5 splits them: the name ('=' may begin it), then
# maybe '=' and a value, quoted or not ('==x' is the value '=x').
_ATTRIBUTE = re.compile(
    r"""[\t\n\f /]*([^\t\n\f />][^\t\n\f /=>]*)"""
    r"""(?:[\t\n\f ]*=[\t\n\f ]*("[^"]*"?|'[^']*'?|[^\t\n\f >]*))?"""
)
# A character reference as html.unescape finds one.
_CHARREF = re.compile(r"&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)")


def extract_links(body: bytes) -> list[str]:
    """Every non-empty <a href> of the page, entities decoded and whitespace stripped."""
    parser = _Anchors()
    parser.feed(_text(body))
    parser.close()
    after_large_page(len(body))
    return parser.links


def _text(body: bytes) -> str:
    """The page as HTML5 reads its bytes: UTF-8 with replacement, CR LF and CR as LF."""
    text = body.decode("utf-8", "replace")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\0" in text:
        text = text.replace("\0", "\ufffd")
    return text


class _Anchors(html.parser.HTMLParser):
    """Collects the href of each <a> start tag."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self._templates = 0  # <template> elements open: their content is not the document
        self._plaintext = False  # after <plaintext>, everything is text

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._plaintext:
            return
        if tag == "a":
            if not self._templates:
                self._anchor()
        elif tag in _TEXT_ELEMENTS:
            self.set_cdata_mode(tag)  # html.parser may do it again after this call
        elif tag == "template":
            self._templates += 1
        elif tag == "plaintext":
            self._plaintext = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "template" and self._templates and not self._plaintext:
            self._templates -= 1

    def _anchor(self) -> None:
        """The first href of the <a> tag just read, as HTML5 reads attributes."""
        tag = self.get_starttag_text() or ""
        for found in _ATTRIBUTE.finditer(tag, 2):  # after "<a"
            if found[1].lower() == "href":
                value = found[2] or ""
                quote = value[:1]
                if quote in ('"', "'"):  # a quote left open runs to the tag's end
                    value = value[1:-1] if len(value) > 1 and value.endswith(quote) else value[1:]
                if "&" in value:
                    value = _CHARREF.sub(_attribute_charref, value)
                if value := value.strip():
                    self.links.append(value)
                return


def _attribute_charref(reference: re.Match[str]) -> str:
    """One character reference of an attribute's value, decoded as HTML5 decodes it there:
    as html.unescape would, except that a named reference matched without its ';' and
    followed by '=' or an ASCII letter or digit stays as it is."""
    name = reference.group(1)
    if name[0] == "#" or name in html5:
        return html.unescape(reference.group(0))
    for end in range(len(name) - 1, 1, -1):  # the longest known name at the start
        if name[:end] in html5:
            following = name[end]
            if following == "=" or (following.isascii() and following.isalnum()):
                return reference.group(0)
            return html5[name[:end]] + name[end:]
    return reference.group(0)
