"""Parsers for the server's option values: durations, latency and fault specs, byte sizes."""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass
from statistics import NormalDist

from c10k.durations import parse_duration
from server.site_params import FAULT_KINDS

_SIZE_RE = re.compile(r"\s*([0-9]*\.?[0-9]+)\s*([kmg]i?b?|b)?\s*(?:/s)?\s*", re.IGNORECASE)
_SIZE_UNITS = {
    "": 1,
    "b": 1,
    "k": 1000,
    "kb": 1000,
    "ki": 1024,
    "kib": 1024,
    "m": 1000**2,
    "mb": 1000**2,
    "mi": 1024**2,
    "mib": 1024**2,
    "g": 1000**3,
    "gb": 1000**3,
    "gi": 1024**3,
    "gib": 1024**3,
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


def _unit_interval(seed: int, key: str, n: int) -> float:
    """A deterministic number in (0, 1) for (seed, key, n); the same in every process."""
    digest = hashlib.blake2b(f"{seed}\0{key}\0{n}".encode(), digest_size=8).digest()
    return (int.from_bytes(digest, "big") + 0.5) / 2.0**64


@dataclass(frozen=True, slots=True)
class Latency:
    """A latency distribution; delay(key, n) is deterministic from the seed.

    kind is 'fixed' (a), 'uniform' (a..b), 'exp' (mean a) or 'lognormal' (median a,
    sigma b). key is the request path and n the request's index for that path, so a
    retried URL gets a fresh draw but every run sees the same delays.
    """

    kind: str
    a: float = 0.0
    b: float = 0.0
    seed: int = 0

    @property
    def is_zero(self) -> bool:
        return self.kind == "fixed" and self.a == 0.0

    def delay(self, key: str, n: int = 0) -> float:
        if self.kind == "fixed":
            return self.a
        u = _unit_interval(self.seed, key, n)
        if self.kind == "uniform":
            return self.a + u * (self.b - self.a)
        if self.kind == "exp":
            return -self.a * math.log(1.0 - u)
        return self.a * math.exp(self.b * NormalDist().inv_cdf(u))

    def mean(self) -> float:
        """The distribution's mean in seconds (to compare with measurements)."""
        if self.kind == "fixed":
            return self.a
        if self.kind == "uniform":
            return (self.a + self.b) / 2
        if self.kind == "exp":
            return self.a
        return self.a * math.exp(self.b**2 / 2)


def parse_latency(text: str, seed: int = 0) -> Latency:
    """'0', '50ms', 'uniform:10ms..100ms', 'exp:50ms', 'lognormal:50ms,0.5' -> Latency."""
    spec = text.strip()
    kind, sep, arg = spec.partition(":")
    try:
        if not sep:
            return Latency("fixed", parse_duration(spec), seed=seed)
        if kind == "uniform":
            lo_text, dots, hi_text = arg.partition("..")
            if not dots:
                raise ValueError("expected uniform:LOW..HIGH")
            lo, hi = parse_duration(lo_text), parse_duration(hi_text)
            if hi < lo:
                raise ValueError("HIGH is below LOW")
            return Latency("uniform", lo, hi, seed)
        if kind == "exp":
            return Latency("exp", parse_duration(arg), seed=seed)
        if kind == "lognormal":
            median_text, comma, sigma_text = arg.partition(",")
            if not comma:
                raise ValueError("expected lognormal:MEDIAN,SIGMA")
            sigma = float(sigma_text)
            if not 0 <= sigma <= 5:
                raise ValueError("SIGMA must be between 0 and 5")
            return Latency("lognormal", parse_duration(median_text), sigma, seed)
        raise ValueError(f"unknown distribution {kind!r}")
    except ValueError as exc:
        raise ValueError(
            f"bad latency {text!r}: {exc} (expected e.g. 50ms, uniform:10ms..100ms, "
            "exp:50ms, lognormal:50ms,0.5)"
        ) from None


def parse_faults(text: str) -> dict[str, float]:
    """'reset=0.01,hang=0.01,500=0.02,truncate=0.01,garbage=0.01' -> rates by kind.

    Kinds: reset, hang, 500 (or error500), truncate, garbage. '' or 'none' is no faults.
    """
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
