"""Durations and latencies as the command lines write them ('50ms', '2s', 'lognormal:50ms,0.5'),
held as numbers of seconds: the server's options and the results document read them alike."""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

_DURATION_RE = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(us|µs|ms|s|m)?\s*")
_DURATION_UNITS = {None: 1.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "m": 60.0}


def parse_duration(text: str) -> float:
    """'0', '50ms', '2s', '1.5', '250us', '250µs', '1m' -> seconds (a bare number is seconds)."""
    m = _DURATION_RE.fullmatch(text)
    if not m:
        raise ValueError(f"bad duration {text!r} (expected e.g. 0, 50ms, 2s, 1.5s)")
    return float(m.group(1)) * _DURATION_UNITS[m.group(2)]


def duration_text(seconds: float) -> str:
    """Seconds as a command line writes them: '0', '50ms', '2s', '1.5s' (parse_duration's)."""
    if seconds == 0:
        return "0"
    if seconds < 1:
        return f"{round(seconds * 1000, 6):g}ms"
    return f"{seconds:g}s"


def _unit_interval(seed: int, key: str, n: int) -> float:
    """A deterministic number in (0, 1) for (seed, key, n); the same in every process."""
    digest = hashlib.blake2b(f"{seed}\0{key}\0{n}".encode(), digest_size=8).digest()
    return (int.from_bytes(digest, "big") + 0.5) / 2.0**64


@dataclass(frozen=True, slots=True)
class Latency:
    """A latency distribution, in seconds: 'fixed' (a), 'uniform' (a..b), 'exp' (mean a) or
    'lognormal' (median a, sigma b). delay() draws from it deterministically: key is the
    request path and n the request's index for that path, so a retried URL gets a fresh
    draw but every run with the same seed sees the same delays."""

    kind: Literal["fixed", "uniform", "exp", "lognormal"]
    a: float = 0.0
    b: float = 0.0

    @property
    def is_zero(self) -> bool:
        return self.kind == "fixed" and self.a == 0.0

    def delay(self, key: str, n: int = 0, seed: int = 0) -> float:
        if self.kind == "fixed":
            return self.a
        u = _unit_interval(seed, key, n)
        if self.kind == "uniform":
            return self.a + u * (self.b - self.a)
        if self.kind == "exp":
            return -self.a * math.log(1.0 - u)
        return self.a * math.exp(self.b * NormalDist().inv_cdf(u))

    @property
    def mean_s(self) -> float:
        """The distribution's mean in seconds (to compare with measurements)."""
        if self.kind == "fixed":
            return self.a
        if self.kind == "uniform":
            return (self.a + self.b) / 2
        if self.kind == "exp":
            return self.a
        return self.a * math.exp(self.b**2 / 2)

    @property
    def text(self) -> str:
        """As `c10k serve --latency` takes it: '2s', 'uniform:10ms..100ms', 'lognormal:50ms,0.5'."""
        if self.kind == "fixed":
            return duration_text(self.a)
        if self.kind == "uniform":
            return f"uniform:{duration_text(self.a)}..{duration_text(self.b)}"
        if self.kind == "exp":
            return f"exp:{duration_text(self.a)}"
        return f"lognormal:{duration_text(self.a)},{self.b:g}"


NO_LATENCY = Latency("fixed")


def parse_latency(text: str) -> Latency:
    """'0', '50ms', 'uniform:10ms..100ms', 'exp:50ms', 'lognormal:50ms,0.5' -> Latency."""
    spec = text.strip()
    kind, sep, arg = spec.partition(":")
    try:
        if not sep:
            return Latency("fixed", parse_duration(spec))
        if kind == "uniform":
            lo_text, dots, hi_text = arg.partition("..")
            if not dots:
                raise ValueError("expected uniform:LOW..HIGH")
            lo, hi = parse_duration(lo_text), parse_duration(hi_text)
            if hi < lo:
                raise ValueError("HIGH is below LOW")
            return Latency("uniform", lo, hi)
        if kind == "exp":
            return Latency("exp", parse_duration(arg))
        if kind == "lognormal":
            median_text, comma, sigma_text = arg.partition(",")
            if not comma:
                raise ValueError("expected lognormal:MEDIAN,SIGMA")
            sigma = float(sigma_text)
            if not 0 <= sigma <= 5:
                raise ValueError("SIGMA must be between 0 and 5")
            return Latency("lognormal", parse_duration(median_text), sigma)
        raise ValueError(f"unknown distribution {kind!r}")
    except ValueError as exc:
        raise ValueError(
            f"bad latency {text!r}: {exc} (expected e.g. 50ms, uniform:10ms..100ms, "
            "exp:50ms, lognormal:50ms,0.5)"
        ) from None
