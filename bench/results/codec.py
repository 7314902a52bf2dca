"""The one serialiser of the results document: typed values to JSON and back, by their fields.

A dataclass of TYPES is written as a JSON object of its fields, and every JSON object whose
keys are exactly one of theirs is read back as it (pyperf's Run and Benchmark, as one walk);
an Interval is written [low, high], NaN and infinities as null (JSON has none)."""

from __future__ import annotations

import json
import math
import types
import typing
from dataclasses import fields, is_dataclass
from typing import Any

from bench.results.derived import NotCounted
from bench.results.identity import Block, PointKey
from bench.results.tables import IdleEntry, LeftOut, MemoryFit, PerUrl
from c10k.durations import Latency
from c10k.quantity import Fit, Interval, Quantity, Spread

TYPES: tuple[type, ...] = (
    *(Quantity, Spread, Fit, Latency, PointKey, Block),
    *(MemoryFit, PerUrl, LeftOut, IdleEntry, NotCounted),
)
_BY_FIELDS = {frozenset(f.name for f in fields(cls)): cls for cls in TYPES}


def _interval_fields(cls: type) -> frozenset[str]:
    hints = typing.get_type_hints(cls)
    return frozenset(
        name
        for name, hint in hints.items()
        if hint is Interval or (isinstance(hint, types.UnionType) and Interval in hint.__args__)
    )


_INTERVALS = {cls: _interval_fields(cls) for cls in TYPES}


def record(value: Any) -> Any:
    """value as JSON holds it: dataclasses as objects, Intervals as [low, high], no NaN."""
    if isinstance(value, Interval):
        return [record(value.low), record(value.high)]
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: record(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): record(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [record(v) for v in value]
    return value


def _typed(found: dict[str, Any]) -> Any:
    cls = _BY_FIELDS.get(frozenset(found))
    if cls is None:
        return found
    intervals = _INTERVALS[cls]
    return cls(
        **{k: Interval(*v) if k in intervals and v is not None else v for k, v in found.items()}
    )


def dumps(recorded: Any) -> str:
    """What record() gave, as one line of compact JSON (the file is rewritten after every run
    and grows with the raw samples: one string at once, which json encodes in C)."""
    return json.dumps(recorded, separators=(",", ":"), allow_nan=False) + "\n"


def loads(text: str) -> Any:
    """JSON text with every object of TYPES read back as its type."""
    return json.loads(text, object_hook=_typed)
