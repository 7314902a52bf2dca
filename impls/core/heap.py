"""Freed heap memory given back to the system after a large page (glibc's malloc_trim)."""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable

# Why: lexbor builds a page's DOM with malloc, and glibc keeps what is freed unless it lies
# at the top of its heap. For the c100k root page (one page linking to every page of the
# site) that kept 937 B per link from 60,000 links on, 84 B with the trim (the hrefs
# themselves). Below that it happens by chance: sleepy's root of 20,000 links (858 KB) left
# about 14 MB of free heap in most trio runs and in one generators run in 18, so a plateau
# at C 10,000 took one of two levels (docs/results.md, "The root page's free heap, by
# chance"). Every sleepy root, 82 KB at C 1,000 and up, is over this size, so each point of
# the memory fit is measured the same way. A trim costs about 10 µs on a 40 MB heap.
LARGE_PAGE_BYTES = 64 << 10


def after_large_page(body_bytes: int) -> None:
    """Give the freed heap back to the system if a page of body_bytes was just parsed."""
    if body_bytes >= LARGE_PAGE_BYTES and (trim := malloc_trim()) is not None:
        trim(0)


@functools.cache
def malloc_trim() -> Callable[[int], int] | None:
    """glibc's malloc_trim, or None where the C library has none (musl, macOS)."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim
