"""``python -m dynpatch wheel``: the pinned release with ``patches/`` applied, as an
installable wheel in ``dist/``, with its sha256 and a provenance file; built a second time
into a scratch folder and compared byte for byte; ``--prove`` installs it in a fresh venv
(``--install-into PYTHON``: into that interpreter) and runs dynamo's tests from the
installed package (:mod:`dynpatch.wheel.prove`).

The wheel, its ``.sha256`` and its ``.provenance.json`` go into ``dist/`` in one swap
(:func:`dynpatch.io.files.staged_dir`): earlier ``+dynpatch.`` builds there are replaced,
anything else in ``dist/`` is kept.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from dynpatch import console, series
from dynpatch.errors import ToolkitError
from dynpatch.evidence import StageResult
from dynpatch.io import files, pypi
from dynpatch.pin import Pin, load_pin
from dynpatch.wheel import build
from dynpatch.workspace import Workspace


@dataclass
class WheelOptions:
    reproduce: bool = True
    prove: bool = False
    install_into: Path | None = None  # prove in this interpreter instead of a fresh venv
    tier: str = "cpu"  # the proof's tests: cpu, or gpu (with dynamo's trtllm tests)
    replay: bool = False  # the named scenarios through the installed stock and patched wheels


@dataclass(frozen=True)
class Built:
    wheel: Path
    sha256: str
    version: str


def upstream_wheel(the_pin: Pin, vendor: Path) -> Path:
    """The pinned wheel from the fetch cache (downloaded if absent), sha256-verified."""
    release = the_pin.pinned
    cache = vendor / "cache" / "wheels"
    wheel = pypi.download_wheel(the_pin.package, release.version, release.wheel, cache)
    got = pypi.sha256_of(wheel)
    if got != release.sha256:
        raise ToolkitError(
            f"{wheel} has sha256 {got}, not the pinned {release.sha256}: refusing it "
            "(delete the file to download it again)"
        )
    return wheel


def recipe_of(the_pin: Pin, vendor: Path, patches: Path) -> build.Recipe:
    names = tuple(series.names(patches))
    if not names:
        raise ToolkitError(f"{patches}/series lists no patch: run `nox -s apply` first")
    return build.Recipe(
        upstream=upstream_wheel(the_pin, vendor),
        patches_dir=patches,
        patches=names,
        series_sha256=series.series_digest(patches),
        wheel_prefix=the_pin.wheel_prefix,
        repo_prefix=the_pin.repo_prefix,
        date=the_pin.date,
    )


def provenance(the_pin: Pin, recipe: build.Recipe, built: Built) -> str:
    release = the_pin.pinned
    data = {
        "wheel": built.wheel.name,
        "sha256": built.sha256,
        "version": built.version,
        "pinned_version": release.version,
        "upstream_wheel": release.wheel,
        "upstream_sha256": release.sha256,
        "series_sha256": recipe.series_sha256,
        "patches": list(recipe.patches),
        "source_date_epoch": int(build.source_date_epoch(recipe.date)),
    }
    return json.dumps(data, indent=2) + "\n"


def _ours(name: str) -> bool:
    return f"+{build.LOCAL_PREFIX}" in name


def build_into_dist(the_pin: Pin, recipe: build.Recipe, dist: Path, vendor: Path) -> Built:
    """Build into a staging copy of ``dist`` and swap it in whole: nothing half-written."""
    with files.lock(vendor / "locks" / "dist.lock", f"the wheel build in {dist}"):
        keep = (
            frozenset(p.name for p in dist.iterdir() if not _ours(p.name))
            if dist.is_dir()
            else frozenset()
        )
        with files.staged_dir(dist, keep=keep) as staging:
            with files.owned_dir(vendor / "scratch", ".wheel-build-") as scratch:
                wheel = build.build(recipe, staging, scratch)
            built = Built(
                wheel, pypi.sha256_of(wheel), build.local_version(the_pin.pinned.version, recipe)
            )
            files.write_atomic(staging / f"{wheel.name}.sha256", f"{built.sha256}  {wheel.name}\n")
            stem = wheel.name.removesuffix(".whl")
            files.write_atomic(
                staging / f"{stem}.provenance.json", provenance(the_pin, recipe, built)
            )
    final = dist / wheel.name
    return Built(final, built.sha256, built.version)


def rebuild_matches(recipe: build.Recipe, first: Built, vendor: Path) -> str:
    """Build again in a scratch folder; the second build's sha256 (raises if it differs)."""
    with files.owned_dir(vendor / "scratch", ".wheel-again-") as scratch:
        again = build.build(recipe, scratch / "dist", scratch / "unpack")
        digest = pypi.sha256_of(again)
        if again.name != first.wheel.name or again.read_bytes() != first.wheel.read_bytes():
            raise ToolkitError(
                f"the wheel is not reproducible: a second build gave {again.name} "
                f"sha256 {digest}, the first {first.wheel.name} sha256 {first.sha256}"
            )
    return digest


def run(options: WheelOptions, ws: Workspace) -> StageResult:
    the_pin = load_pin(ws.pin)
    recipe = recipe_of(the_pin, ws.vendor, ws.patches)
    result = StageResult()
    result.say(
        f"upstream: {recipe.upstream.name} sha256 {the_pin.pinned.sha256} (verified)",
        f"series: {len(recipe.patches)} patch(es), sha256 {recipe.series_sha256}",
    )
    built = build_into_dist(the_pin, recipe, ws.dist, ws.vendor)
    result.say(f"built: {console.rel(built.wheel)} (version {built.version})")
    result.say(f"sha256: {built.sha256}")
    if options.reproduce:
        again = rebuild_matches(recipe, built, ws.vendor)
        result.say(f"reproducible: second build sha256 {again}: identical bytes")
    if options.prove or options.install_into:
        from dynpatch.wheel import prove

        prove.run_proof(
            the_pin, built.wheel, ws.vendor, options.install_into, options.tier, ws.out / "wheel"
        )
    if options.replay:
        from dynpatch.wheel import replay  # needs the replay group (torch and the rest)

        stock = upstream_wheel(the_pin, ws.vendor)
        replay.replay_installed(stock, built.wheel, ws.scratch, sys.executable)
    return result
