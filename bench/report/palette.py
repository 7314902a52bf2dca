"""The chart style of a model or an idle kind, as the catalog gives it."""

from __future__ import annotations

from c10k.catalog import IDLE_KINDS, MODELS, Style, idle_order, model_order

__all__ = ["idle_order", "model_order", "style"]

_FALLBACK = Style("#777777", "8", "-", "||")


def style(name: str) -> Style:
    """The style of a model or idle kind; a name the catalog does not know gets a neutral one."""
    if name in MODELS:
        return MODELS[name].style
    if name in IDLE_KINDS:
        return IDLE_KINDS[name].style
    return _FALLBACK
