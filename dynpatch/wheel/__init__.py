"""``python -m dynpatch wheel``: the pinned release with ``patches/`` applied, as an
installable wheel in ``dist/`` with its sha256 and provenance (:mod:`.build`), built a
second time and compared byte for byte; ``--prove`` and ``--replay`` try it as installed
(:mod:`.prove`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from dynpatch import console
from dynpatch.console import say
from dynpatch.evidence import StageResult
from dynpatch.pin import load_pin
from dynpatch.wheel import build, prove
from dynpatch.workspace import Workspace


@dataclass
class WheelOptions:
    reproduce: bool = True
    prove: bool = False
    install_into: Path | None = None  # prove in this interpreter instead of a fresh venv
    tier: str = "cpu"  # the proof's tests: cpu, or gpu (with dynamo's trtllm tests)
    replay: bool = False  # the named scenarios through the installed stock and patched wheels


def run(options: WheelOptions, ws: Workspace) -> StageResult:
    """Build, rebuild and compare; the proof and the replay print their steps as they go
    (each takes minutes), so the build's lines are printed first, as they happen."""
    the_pin = load_pin(ws.pin)
    recipe = build.recipe_of(the_pin, ws.cache, ws.patches)
    say(f"upstream: {recipe.upstream.name} sha256 {the_pin.pinned.sha256} (verified)")
    say(f"series: {len(recipe.patches)} patch(es), sha256 {recipe.series_sha256}")
    wheel, digest = build.into_dist(recipe, ws.dist, ws.cache)
    say(f"built: {console.rel(wheel)} (version {recipe.version})")
    say(f"sha256: {digest}")
    if options.reproduce:
        again = build.rebuild_matches(recipe, wheel, ws.cache)
        say(f"reproducible: second build sha256 {again}: identical bytes")
    if options.prove or options.install_into:
        into, tier = options.install_into, options.tier
        prove.run_proof(the_pin, wheel, ws.cache, into, tier, ws.out / "wheel")
    if options.replay:
        prove.replay_installed(recipe.upstream, wheel, ws.scratch, sys.executable)
    return StageResult()
