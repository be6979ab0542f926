"""``python -m dynpatch test-upstream [--tier cpu|standin|gpu|all]``: dynamo's own tests,
baseline vs patched, on the pinned checkout (or the one the fetch options ask for)."""

from __future__ import annotations

from dynpatch.fetch import pinned
from dynpatch.results import StageResult
from dynpatch.services.upstream_tests import UpstreamTestOptions, check, tiers
from dynpatch.workspace import Workspace


def run(args: UpstreamTestOptions, ws: Workspace) -> StageResult:
    tiers.plan(args.tier, None, None)  # an unknown --tier is refused before the fetch
    _pin, checkout = pinned(args, ws)
    return check(args, checkout, ws.patches, ws.trees, args.out or ws.stage.test_upstream)
