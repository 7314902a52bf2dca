"""The thresholds of the chapter's claims: what the rounds run until, and what judges them."""

from __future__ import annotations

# C6, "moderately slower": the event loops' pages/s at 50-95% of the threads'.
MODERATE_RANGE = (0.5, 0.95)
# C7, "async is right for many sleepy connections": asyncio at least as fast as threads.
AT_LEAST_AS_FAST = 1.0
# C8, "even better without a GIL": at least 5% more pages/s than the GIL build.
GIL_GAIN = 1.05
# C9, "uvloop makes asyncio 2-4x faster": at least 2x less CPU per page.
UVLOOP_SPEEDUP = 2.0
