"""Freed heap memory given back to the system after a large page (glibc's malloc_trim)."""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable

# Why: lexbor builds a page's DOM with malloc. For the c100k root page (one page linking to
# every page of the site), from about 60,000 links on, glibc served the DOM from its main
# heap and, once it was freed, kept it: the heap shrinks only from its top, and a later
# small allocation sits there. On the 2-core dev VM that was ~660 bytes per link held as
# free heap (80 MB for 120,000 links, CPython 3.11, glibc 2.36), which a memory-per-
# connection slope then counted per connection, as the root page grows with C. Smaller
# pages left nothing behind, so the default profile's sites never reach this branch.
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
