"""Freed heap memory given back to the system after a large page (glibc's malloc_trim)."""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable

# Why: lexbor builds a page's DOM with malloc. For the c100k root page (one page linking to
# every page of the site), from 60,000 links on, glibc served the DOM from its main heap
# and, once it was freed, kept it: the heap shrinks only from its top, and a later small
# allocation sits there. Parsing the test site's root page of 120,000 links grew RSS by
# 937 B per link, 84 B with the trim (the hrefs themselves); 20,000 links grew it by 44 B
# (CPython 3.11, glibc 2.36, the harness's pinned malloc thresholds). A memory-per-
# connection slope counted that per connection, as the root page grows with C. The default
# profile's widest page (sleepy's root, 20,000 links) is 858 KB: only the full profile's
# large points take this branch.
LARGE_PAGE_BYTES = 1 << 20


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
