"""``python -m dynpatch verify``: the real TRT-LLM handler replayed on both trees of the
pinned checkout (or the one the fetch options ask for); chunk streams compared exactly."""

from __future__ import annotations

from dynpatch.fetch import pinned
from dynpatch.results import StageResult
from dynpatch.services.replay_check import VerifyOptions, _scenarios, check
from dynpatch.workspace import Workspace


def run(args: VerifyOptions, ws: Workspace) -> StageResult:
    _scenarios(args)  # bad input is refused before the fetch
    _pin, checkout = pinned(args, ws)
    return check(args, checkout, ws.patches, ws.trees, args.out or ws.stage.verify)
