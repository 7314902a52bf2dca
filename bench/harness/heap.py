"""How crawls whose memory is fitted run: glibc's thresholds pinned, layout and hash seed drawn."""

from __future__ import annotations

import os
import random
from collections.abc import Mapping

from bench.results import Heap

# glibc moves its mmap and trim thresholds up after the first large block is freed, so
# whether megabytes of freed pages stay in the heap depends on what the process allocated
# before the crawl: an editable install and a wheel of the same commit held the same sleepy
# point 11 MB apart (docs/results.md, "Where the drift came from"). Setting the thresholds
# turns the adjustment off; these are glibc's own starting values. A lower mmap threshold
# (32 KiB) took away a second level that aiohttp's C 10,000 plateau takes at random, but it
# also raised threads' slope by 17%, away from what a process with glibc's defaults does
# (docs/results.md, "Two plateaus per point").
PINNED_MALLOC = {"MALLOC_MMAP_THRESHOLD_": "131072", "MALLOC_TRIM_THRESHOLD_": "131072"}
# The environment's size shifts the heap's layout, and the layout moves the plateau by a few
# hundred KiB: constant within one session, so runs of one session agreed and sessions did
# not. A padding of random length in each run samples layouts, so the repeated points'
# interval holds that spread too.
LAYOUT_PAD_VARIABLE = "C10K_LAYOUT_PAD"
LAYOUT_PAD_MAX = 8192  # bytes: two pages, beyond which the measured spread did not grow
# tox sets one PYTHONHASHSEED per invocation, and every crawler of a session inherited it. The
# seed decides some levels: aiohttp-uvloop's C 10,000 plateau sat 530 KiB higher under some
# seeds than under others, and of ten seeds run twice, nine took the same level both times
# (docs/results.md, "The hash seed"), so the runs of one session agreed and sessions did not.
# A seed drawn for each run samples the seeds, as the padding samples layouts.
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
    thresholds (unless not pinned), a padding of the given length and a hash seed (None:
    each drawn afresh)."""
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
