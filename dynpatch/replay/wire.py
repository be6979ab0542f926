"""Each replay record as one canonical JSON line keeping what JSON would lose (key order, ``1`` vs
``1.0`` vs ``True``, tuples, non-string keys, objects), and where two runs first differ."""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass
from typing import Any

_TAGS = ("__tuple__", "__pairs__", "__object__", "__float__")


def tagged(value: Any) -> Any:
    """``value`` as plain JSON data with explicit tags where JSON would lose information."""
    if value is None or isinstance(value, (bool, str)) or type(value) is int:
        return value
    if type(value) is float:
        return value if math.isfinite(value) else {"__float__": repr(value)}
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
    kind: str  # the record's kind
    field: str  # path inside the record's value, e.g. "top_logprobs[0][1].logprob"
    baseline: str  # JSON of the differing part, or "<absent>"
    patched: str

    @property
    def place(self) -> str:
        """Where in the stream: its chunk (else its record) and the field."""
        where = f"chunk {self.chunk}" if self.chunk is not None else f"record {self.index}"
        return f"{where} ({self.kind}), field {self.field or '<whole>'}"

    def describe(self) -> str:
        where = f"scenario {self.scenario}, {self.place}"
        return f"{where}: baseline {self.baseline} | patched {self.patched}"


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
        for key in dict.fromkeys([*a, *b]):
            sub = f"{path}.{key}" if path else key
            if diff := _first_difference(a.get(key, _ABSENT), b.get(key, _ABSENT), sub):
                return diff
        return None if list(a) == list(b) else (f"{path}<key order>", list(a), list(b))
    if isinstance(a, list):
        for i, (x, y) in enumerate(itertools.zip_longest(a, b, fillvalue=_ABSENT)):
            if diff := _first_difference(x, y, f"{path}[{i}]"):
                return diff
        return None
    return None if a == b else (path, a, b)


def first_divergence(scenario: str, baseline: list[str], patched: list[str]) -> Divergence | None:
    """Where two record streams first differ (``None`` if they are identical)."""
    pairs = itertools.zip_longest(baseline, patched)
    i = next((i for i, (a, b) in enumerate(pairs) if a != b), None)
    if i is None:
        return None
    a, b = (json.loads(s[i]) if i < len(s) else _ABSENT for s in (baseline, patched))
    kind = (a if a is not _ABSENT else b)["kind"]
    chunks = sum(json.loads(r)["kind"] == "chunk" for r in baseline[:i])
    path, va, vb = _first_difference(a, b, "") or ("", a, b)
    chunk = chunks if kind == "chunk" else None
    field = path.removeprefix("value").removeprefix(".")
    return Divergence(scenario, i, chunk, kind, field, _short(va), _short(vb))
