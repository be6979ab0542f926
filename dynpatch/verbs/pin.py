"""``python -m dynpatch pin FIELD``: one value of the pin, for the noxfile (never parsing it)."""

from __future__ import annotations

from dataclasses import dataclass

from dynpatch.pin import load_pin
from dynpatch.results import StageResult
from dynpatch.workspace import Workspace


@dataclass(frozen=True)
class PinQuery:
    field: str  # version or runtime


def show(query: PinQuery, ws: Workspace) -> StageResult:
    pin = load_pin(ws.pin)
    value = {"version": pin.version, "runtime": f"ai-dynamo-runtime=={pin.version}"}
    return StageResult(shown=(value[query.field],))
