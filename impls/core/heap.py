"""Freed heap memory given back to the system after a large page (glibc's malloc_trim)."""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable

# lexbor builds a page's DOM with malloc, and glibc keeps what is freed unless it lies at the
# top of its heap: a root page linking to the whole site keeps ~940 B per link, and from
# 20,000 links such a page leaves megabytes of free heap by chance. Every sleepy root (82 KB
# at C 1,000 and up) is over this size, so each point of the memory fit is measured the same
# way; a trim costs about 10 µs on a 40 MB heap
# (docs/notes/2026-11-25-root-page-dom-free-heap.md).
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
