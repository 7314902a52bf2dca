"""Durations as the command lines write them ('50ms', '2s'), in seconds: the server's options
and the recorded latencies read them alike."""

from __future__ import annotations

import re

_DURATION_RE = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(us|µs|ms|s|m)?\s*")
_DURATION_UNITS = {None: 1.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "m": 60.0}


def parse_duration(text: str) -> float:
    """'0', '50ms', '2s', '1.5', '250us', '250µs', '1m' -> seconds (a bare number is seconds)."""
    m = _DURATION_RE.fullmatch(text)
    if not m:
        raise ValueError(f"bad duration {text!r} (expected e.g. 0, 50ms, 2s, 1.5s)")
    return float(m.group(1)) * _DURATION_UNITS[m.group(2)]
