"""Canonical serialisation of what the handler emitted, and the first divergence of two runs.

A replay produces a list of *records*: ``submit`` (what dynamo passed to
``generate_async``), one ``chunk`` per yielded response dict, and events (``worker_exit``
when dynamo's fatal path asked to exit the process, ``engine_abort`` when dynamo cancelled
the engine request, ``raised`` when an exception left the handler). Each record is serialised to one canonical JSON string at the moment it is
observed, so two runs are equal exactly when their lists of strings are equal.

The canonical form keeps everything a byte-level comparison needs: dict key order, the
difference between ``1``, ``1.0`` and ``True``, tuples versus lists, non-string keys and
objects that are not JSON at all (by type name and ``repr``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

_TAGS = ("__tuple__", "__pairs__", "__object__", "__float__")


def tagged(value: Any) -> Any:
    """``value`` as plain JSON data with explicit tags where JSON would lose information."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return (
            int(value)
            if type(value) is int
            else {"__object__": type(value).__name__, "repr": repr(value)}
        )
    if isinstance(value, float):
        if type(value) is not float:
            return {"__object__": type(value).__name__, "repr": repr(value)}
        if math.isfinite(value):
            return value
        return {"__float__": repr(value)}
    if isinstance(value, list):
        return [tagged(v) for v in value]
    if isinstance(value, tuple):
        return {"__tuple__": [tagged(v) for v in value]}
    if isinstance(value, dict):
        if all(isinstance(k, str) and k not in _TAGS for k in value):
            return {k: tagged(v) for k, v in value.items()}
        return {"__pairs__": [[tagged(k), tagged(v)] for k, v in value.items()]}
    return {"__object__": type(value).__qualname__, "repr": repr(value)}


def canonical(value: Any) -> str:
    """One JSON line; insertion order is kept (it is what goes on the wire)."""
    return json.dumps(tagged(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def record(kind: str, value: Any) -> str:
    return canonical({"kind": kind, "value": value})


@dataclass(frozen=True)
class Divergence:
    scenario: str
    index: int  # record index in the stream
    chunk: int | None  # chunk index (None when the record is not a chunk)
    kind: str  # record kind on the baseline side ("<end>" if the stream ended)
    field: str  # path inside the record's value, e.g. "top_logprobs[0][1].logprob"
    baseline: str  # JSON of the differing part (or "<absent>")
    patched: str

    def describe(self) -> str:
        where = f"chunk {self.chunk}" if self.chunk is not None else f"record {self.index}"
        return (
            f"scenario {self.scenario}, {where} ({self.kind}), field {self.field or '<whole>'}: "
            f"baseline {self.baseline} | patched {self.patched}"
        )


_ABSENT = object()


def _short(value: Any, limit: int = 240) -> str:
    if value is _ABSENT:
        return "<absent>"
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _first_difference(a: Any, b: Any, path: str) -> tuple[str, Any, Any] | None:
    if type(a) is not type(b):
        return path, a, b
    if isinstance(a, dict):
        for key in list(dict.fromkeys([*a, *b])):
            sub = f"{path}.{key}" if path else key
            diff = _first_difference(a.get(key, _ABSENT), b.get(key, _ABSENT), sub)
            if diff is not None:
                return diff
        if list(a) != list(b):  # same keys and values, different order
            return f"{path}<key order>" if path else "<key order>", list(a), list(b)
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            diff = _first_difference(x, y, f"{path}[{i}]")
            if diff is not None:
                return diff
        if len(a) != len(b):
            i = min(len(a), len(b))
            return (
                f"{path}[{i}]",
                a[i] if i < len(a) else _ABSENT,
                b[i] if i < len(b) else _ABSENT,
            )
        return None
    return None if a == b else (path, a, b)


def first_divergence(scenario: str, baseline: list[str], patched: list[str]) -> Divergence | None:
    """Where two record streams first differ (``None`` if they are identical)."""
    chunk = 0
    for i in range(max(len(baseline), len(patched))):
        a = baseline[i] if i < len(baseline) else None
        b = patched[i] if i < len(patched) else None
        ra = json.loads(a) if a is not None else None
        rb = json.loads(b) if b is not None else None
        kind = ra["kind"] if ra else "<end>"
        if a != b:
            if ra is None or rb is None:
                return Divergence(
                    scenario,
                    i,
                    chunk if (ra or rb or {}).get("kind") == "chunk" else None,
                    kind if ra else f"<end> vs {rb['kind']}",  # type: ignore[index]
                    "",
                    "<stream ended>" if ra is None else _short(ra),
                    "<stream ended>" if rb is None else _short(rb),
                )
            diff = _first_difference(ra, rb, "")
            path, va, vb = diff if diff is not None else ("", ra, rb)
            path = path.removeprefix("value").removeprefix(".")
            return Divergence(
                scenario,
                i,
                chunk if ra["kind"] == "chunk" else None,
                kind,
                path,
                _short(va),
                _short(vb),
            )
        if ra and ra["kind"] == "chunk":
            chunk += 1
    return None
