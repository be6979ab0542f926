"""``python -m dynpatch wheel``: the pinned release with ``patches/`` applied, as an
installable wheel in ``dist/`` with its sha256 and provenance (:mod:`.build`), built a
second time and compared byte for byte; ``--prove`` and ``--replay`` try it as installed
(:mod:`.prove`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from dynpatch import console, fetch, pin
from dynpatch.apply.export import PATCHES
from dynpatch.console import say
from dynpatch.pin import ROOT, load_pin
from dynpatch.wheel import build, prove

DIST = ROOT / "dist"
REPORTS = ROOT / "out" / "wheel"  # the proof's JUnit XML


@dataclass
class WheelOptions:
    pin: Path = pin.PIN_FILE
    vendor: Path = fetch.VENDOR
    patches: Path = PATCHES
    dist: Path = DIST
    reproduce: bool = True
    prove: bool = False
    install_into: Path | None = None  # prove in this interpreter instead of a fresh venv
    tier: str = "cpu"  # the proof's tests: cpu, or gpu (with dynamo's trtllm tests)
    reports: Path = REPORTS
    replay: bool = False  # the named scenarios through the installed stock and patched wheels


def run(options: WheelOptions) -> int:
    the_pin = load_pin(options.pin)
    recipe = build.recipe_of(the_pin, options.vendor, options.patches)
    say(f"upstream: {recipe.upstream.name} sha256 {the_pin.pinned.sha256} (verified)")
    say(f"series: {len(recipe.patches)} patch(es), sha256 {recipe.series_sha256}")
    wheel, digest = build.into_dist(recipe, options.dist, options.vendor)
    say(f"built: {console.rel(wheel)} (version {recipe.version})")
    say(f"sha256: {digest}")
    if options.reproduce:
        again = build.rebuild_matches(recipe, wheel, options.vendor)
        say(f"reproducible: second build sha256 {again}: identical bytes")
    if options.prove or options.install_into:
        into, tier = options.install_into, options.tier
        prove.run_proof(the_pin, wheel, options.vendor, into, tier, options.reports)
    if options.replay:
        scratch = options.vendor / "scratch"
        prove.replay_installed(recipe.upstream, wheel, scratch, sys.executable)
    return 0
