"""``python -m dynpatch fetch``: materialise or re-verify the pinned release; say what is there."""

from __future__ import annotations

from dynpatch import console
from dynpatch.fetch import FetchOptions, pinned
from dynpatch.results import StageResult
from dynpatch.workspace import Workspace


def run(options: FetchOptions, ws: Workspace) -> StageResult:
    _pin, checkout = pinned(options, ws)
    return StageResult(
        shown=(
            f"checkout: {console.rel(checkout.path)}",
            f"base:     {checkout.base} ({checkout.source}, ai-dynamo {checkout.release.version})",
            *(f"          {line.strip()}" for line in checkout.provenance),
        )
    )
