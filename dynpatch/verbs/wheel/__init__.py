"""``python -m dynpatch wheel``: the pinned release with ``patches/``, as a reproducible wheel
in ``dist/`` with its sha256 and provenance; ``--prove`` and ``--replay`` try it installed."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from dynpatch import console, series
from dynpatch.console import err
from dynpatch.errors import ToolkitError
from dynpatch.io import files, pypi
from dynpatch.pin import load_pin
from dynpatch.results import StageResult
from dynpatch.verbs.wheel import build, prove
from dynpatch.workspace import Workspace


@dataclass(frozen=True)
class WheelOptions:
    reproduce: bool = True
    prove: bool = False
    install_into: Path | None = None  # prove in this interpreter instead of a fresh venv
    tier: str = "cpu"  # the proof's tests: cpu, or gpu (with dynamo's trtllm tests)
    replay: bool = False  # the named scenarios through the installed stock and patched wheels


def run(options: WheelOptions, ws: Workspace) -> StageResult:
    """Earlier ``+dynpatch.`` builds in ``dist/`` replaced whole, anything else kept."""
    pin = load_pin(ws.pin)
    recipe = build.recipe_of(pin, ws)
    said = [
        f"upstream: {recipe.upstream.name} sha256 {pin.pinned.sha256} (verified)",
        f"series: {len(recipe.patches)} patch(es), sha256 {recipe.series_sha256}",
    ]
    with (
        err.status("building the wheel ..."),
        files.lock(ws.locks / "dist.lock", f"the wheel build in {ws.dist}"),
    ):
        old = ws.dist.iterdir() if ws.dist.is_dir() else ()
        keep = frozenset(p.name for p in old if f"+{build.LOCAL_PREFIX}" not in p.name)
        with files.staged_dir(ws.dist, keep=keep) as staging:
            with files.owned_dir(ws.scratch, ".wheel-build-") as scratch:
                made = build.build(recipe, staging, scratch)
            digest = pypi.sha256_of(made)
            files.write_atomic(staging / f"{made.name}.sha256", f"{digest}  {made.name}\n")
            provenance = {
                "wheel": made.name,
                "sha256": digest,
                "version": recipe.version,
                "pinned_version": pin.pinned.version,
                "upstream_wheel": pin.pinned.wheel,
                "upstream_sha256": pin.pinned.sha256,
                "series_sha256": recipe.series_sha256,
                "patches": [p.name for p in recipe.patches],
                "source_date_epoch": build.epoch(pin.date),
            }
            text = json.dumps(provenance, indent=2) + "\n"
            files.write_atomic(staging / f"{made.stem}.provenance.json", text)
    wheel = ws.dist / made.name
    said += [f"built: {console.rel(wheel)} (version {recipe.version})", f"sha256: {digest}"]
    if options.reproduce:
        with files.owned_dir(ws.scratch, ".wheel-again-") as scratch:
            again = build.build(recipe, scratch / "dist", scratch / "unpack")
            if again.read_bytes() != wheel.read_bytes():
                raise ToolkitError(
                    f"the wheel is not reproducible: a second build gave {again.name} sha256 "
                    f"{pypi.sha256_of(again)}, the first {wheel.name} sha256 {digest}"
                )
        said.append(f"reproducible: second build sha256 {digest}: identical bytes")
    if options.prove or options.install_into:
        into, reports = options.install_into, ws.stage.wheel
        said += prove.run_proof(pin, wheel, ws.scratch, into, options.tier, reports)
    if options.replay:
        keyword = series.design_of(ws.patches).keyword
        said += prove.replay_installed(recipe.upstream, wheel, ws.scratch, sys.executable, keyword)
    return StageResult(shown=tuple(said))
