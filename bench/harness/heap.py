"""How crawls whose memory is fitted run: glibc's thresholds pinned, layout and hash seed drawn."""

from __future__ import annotations

import os
import random
from collections.abc import Mapping

from bench.results import Heap

# glibc raises its mmap and trim thresholds after the first large block is freed, so how much
# freed memory stays in the heap would depend on what the process did while starting (an
# editable install or a wheel). Pinning them at glibc's own starting values turns that off.
# The mmap threshold stays at glibc's 128 KiB: lower, each waiting thread's 64 KiB receive
# buffer would be mapped on its own, a cost no user of threads pays
# (docs/notes/2026-11-25-heap-layout-and-glibc-thresholds.md,
# docs/notes/2026-11-25-two-plateau-levels.md).
PINNED_MALLOC = {"MALLOC_MMAP_THRESHOLD_": "131072", "MALLOC_TRIM_THRESHOLD_": "131072"}
# The environment's size shifts the heap's layout, and the layout moves the plateau by a few
# hundred KiB. A padding of random length in each run samples layouts, so the runs of one
# session spread as sessions do and the repeated points' interval holds that spread
# (docs/notes/2026-11-25-heap-layout-and-glibc-thresholds.md).
LAYOUT_PAD_VARIABLE = "C10K_LAYOUT_PAD"
LAYOUT_PAD_MAX = 8192  # bytes: two pages, beyond which the measured spread did not grow
# Every crawler inherits the harness's PYTHONHASHSEED, and tox fixes one per invocation. The
# seed nearly fixes some plateau levels (aiohttp-uvloop's at C 10,000, 530 KiB apart), so a
# seed drawn for each run samples the seeds, as the padding samples layouts
# (docs/notes/2026-11-26-hash-seed.md).
HASH_SEED_VARIABLE = "PYTHONHASHSEED"
HASH_SEED_MAX = 2**32  # Python takes 0 to 4294967295

_draws = random.SystemRandom()


def memory_env(
    base: Mapping[str, str] | None = None,
    pad: int | None = None,
    pinned: bool = True,
    hash_seed: int | None = None,
) -> tuple[dict[str, str], Heap]:
    """The environment of one fitted crawl (base: the harness's) and its record: the pinned
    thresholds, a padding and a hash seed (None: drawn afresh)."""
    length = _draws.randrange(LAYOUT_PAD_MAX) if pad is None else pad
    seed = _draws.randrange(HASH_SEED_MAX) if hash_seed is None else hash_seed
    env = {
        **(os.environ if base is None else base),
        LAYOUT_PAD_VARIABLE: "x" * length,
        HASH_SEED_VARIABLE: str(seed),
    }
    if pinned:
        env.update(PINNED_MALLOC)
    malloc = dict(PINNED_MALLOC) if pinned else {}
    return env, {"malloc": malloc, "layout_pad_bytes": length, "hash_seed": seed}
