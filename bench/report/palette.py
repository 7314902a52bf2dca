"""The chart style of a model or an idle kind, as the catalog gives it."""

from __future__ import annotations

from c10k.catalog import CRAWLERS, IDLE_KINDS, PEERS, Style, idle_order, model_order

__all__ = ["idle_order", "label", "model_order", "style"]

_FALLBACK = Style("#777777", "8", "-", "||")


def style(name: str) -> Style:
    """The style of a model, peer or idle kind; a name the catalog does not know gets a
    neutral one."""
    if name in CRAWLERS:
        return CRAWLERS[name].style
    if name in IDLE_KINDS:
        return IDLE_KINDS[name].style
    return _FALLBACK


PEER_MARK = "◆"  # beside a peer's name in tables and legends: a reference, not a model


def label(name: str) -> str:
    """A model's name; a peer's with its marker and what it is: a reference line or row."""
    if name in PEERS:
        return f"{PEER_MARK} {name} (peer: what a user would use instead)"
    return name
