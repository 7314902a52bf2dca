"""Parsers for the server's option values: fault specs and byte sizes."""

from __future__ import annotations

import re

from server.site_params import FAULT_KINDS

_SIZE_RE = re.compile(r"\s*([0-9]*\.?[0-9]+)\s*([kmg]i?b?|b)?\s*(?:/s)?\s*", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "b": 1} | {
    prefix + suffix: base**power
    for power, prefix in enumerate("kmg", start=1)
    for suffix, base in (("", 1000), ("b", 1000), ("i", 1024), ("ib", 1024))
}


def parse_size(text: str) -> int:
    """'2048', '64k', '64KiB', '1MB', '1MiB/s' -> bytes (k/M/G are 1000s, Ki/Mi/Gi 1024s)."""
    m = _SIZE_RE.fullmatch(text)
    if not m:
        raise ValueError(f"bad size {text!r} (expected e.g. 2048, 64KiB, 1MB)")
    return int(float(m.group(1)) * _SIZE_UNITS[(m.group(2) or "").lower()])


def parse_size_range(text: str) -> tuple[int, int]:
    """'2048' -> (2048, 0): a fixed size; '50KB..200KB' -> (50000, 200000): drawn per page."""
    low, dots, high = text.partition("..")
    if not dots:
        return parse_size(text), 0
    lo, hi = parse_size(low), parse_size(high)
    if hi < lo:
        raise ValueError(f"bad size range {text!r}: the upper bound is below the lower")
    return lo, hi


def parse_faults(text: str) -> dict[str, float]:
    """'reset=0.01,hang=0.01,500=0.02,truncate=0.01,garbage=0.01' -> rates by kind (500 or
    error500); '' or 'none' is no faults."""
    rates = dict.fromkeys(FAULT_KINDS, 0.0)
    if text.strip().lower() in ("", "none", "0"):
        return rates
    for item in text.split(","):
        name, eq, value = item.strip().partition("=")
        name = "error500" if name.strip() == "500" else name.strip()
        if not eq or name not in rates:
            raise ValueError(
                f"bad faults {text!r}: expected KIND=RATE,... with KIND one of "
                "reset, hang, 500, truncate, garbage"
            )
        try:
            rate = float(value)
        except ValueError:
            raise ValueError(f"bad faults {text!r}: {value!r} is not a number") from None
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"bad faults {text!r}: rate {rate} is not between 0 and 1")
        rates[name] = rate
    if sum(rates.values()) > 1.0:
        raise ValueError(f"bad faults {text!r}: the rates add up to more than 1")
    return rates
