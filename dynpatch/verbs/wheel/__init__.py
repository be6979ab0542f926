"""``python -m dynpatch wheel``: the pinned release with ``patches/``, as a reproducible wheel
in ``dist/`` with its sha256 and provenance: the pinned wheel with the series applied exactly,
its local version ``+dynpatch.<8 hex of the series sha256>``, repacked so that two builds give
the same bytes; ``--prove`` and ``--replay`` try it installed."""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from dynpatch import console, series
from dynpatch.console import err
from dynpatch.errors import ToolkitError
from dynpatch.io import files, proc, pypi
from dynpatch.io import git as gitio
from dynpatch.pin import Pin, load_pin
from dynpatch.results import StageResult
from dynpatch.verbs.wheel import prove
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
    recipe = recipe_of(pin, ws)
    said = [
        f"upstream: {recipe.upstream.name} sha256 {pin.pinned.sha256} (verified)",
        f"series: {len(recipe.patches)} patch(es), sha256 {recipe.series_sha256}",
    ]
    with (
        err.status("building the wheel ..."),
        files.lock(ws.locks / "dist.lock", f"the wheel build in {ws.dist}"),
    ):
        old = ws.dist.iterdir() if ws.dist.is_dir() else ()
        keep = frozenset(p.name for p in old if f"+{LOCAL_PREFIX}" not in p.name)
        with files.staged_dir(ws.dist, keep=keep) as staging:
            with files.owned_dir(ws.scratch, ".wheel-build-") as scratch:
                made = build(recipe, staging, scratch)
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
                "source_date_epoch": epoch(pin.date),
            }
            text = json.dumps(provenance, indent=2) + "\n"
            files.write_atomic(staging / f"{made.stem}.provenance.json", text)
    wheel = ws.dist / made.name
    said += [f"built: {console.rel(wheel)} (version {recipe.version})", f"sha256: {digest}"]
    if options.reproduce:
        with files.owned_dir(ws.scratch, ".wheel-again-") as scratch:
            again = build(recipe, scratch / "dist", scratch / "unpack")
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


LOCAL_PREFIX = "dynpatch."


@dataclass(frozen=True)
class Recipe:
    pin: Pin
    upstream: Path
    patches: tuple[Path, ...]
    series_sha256: str

    @property
    def version(self) -> str:
        return f"{self.pin.pinned.version.split('+', 1)[0]}+{LOCAL_PREFIX}{self.series_sha256[:8]}"


def recipe_of(pin: Pin, ws: Workspace) -> Recipe:
    """The series in ``patches/`` on the pinned wheel (downloaded if absent), sha256-verified."""
    if not (names := series.names(ws.patches)):
        raise ToolkitError(f"{ws.patches}/series lists no patch: run `nox -s apply` first")
    release = pin.pinned
    wheel = pypi.download_wheel(pin.package, release.version, release.wheel, ws.wheels)
    if (got := pypi.sha256_of(wheel)) != release.sha256:
        raise ToolkitError(
            f"{wheel} has sha256 {got}, not the pinned {release.sha256}: refusing it "
            "(delete the file to download it again)"
        )
    patches = tuple(ws.patches / n for n in names)
    return Recipe(pin, wheel, patches, series.series_digest(ws.patches))


def epoch(date: str) -> int:
    return int(datetime.fromisoformat(date).timestamp())  # the pin's date, checked by load_pin


def build(recipe: Recipe, dest: Path, scratch: Path) -> Path:
    """The patched wheel built into ``dest``, unpacked in ``scratch`` (empty, this build's)."""
    _wheel_cli("unpack", "-d", scratch, recipe.upstream)
    tree = next(scratch.iterdir())  # the one folder it unpacked
    for patch in recipe.patches:
        apply_patch(tree, patch, recipe.pin.wheel_prefix, recipe.pin.repo_prefix)
    tree = _set_version(tree, recipe.version)
    _normalise_modes(tree)
    dest.mkdir(parents=True, exist_ok=True)
    before = set(dest.iterdir())
    _wheel_cli("pack", "-d", dest, tree, SOURCE_DATE_EPOCH=str(epoch(recipe.pin.date)))
    (made,) = [p for p in set(dest.iterdir()) - before if p.suffix == ".whl"]  # the one made
    return made


def _wheel_cli(verb: str, *args: str | Path, **env: str) -> None:
    cmd = [sys.executable, "-m", "wheel", verb, *map(str, args)]
    env = {**os.environ, "LC_ALL": "C", **env}
    proc.check(cmd, doing=f"wheel {verb} {Path(args[-1]).name}", timeout=600, env=env)


def _normalise_modes(tree: Path) -> None:
    """0755 for folders and executables, 0644 for other files: independent of the umask."""
    for path in sorted(tree.rglob("*")):
        mode = path.lstat().st_mode
        if stat.S_ISDIR(mode):
            path.chmod(0o755)
        elif stat.S_ISREG(mode):
            path.chmod(0o755 if mode & 0o111 else 0o644)
        else:
            raise ToolkitError(f"{path.relative_to(tree)} in the unpacked wheel is not a file")


def apply_patch(tree: Path, patch: Path, wheel_prefix: str, repo_prefix: str) -> None:
    """Apply ``patch`` (repository layout, under ``repo_prefix``) to the wheel ``tree`` exactly."""
    strip = 1 + repo_prefix.rstrip("/").count("/") + 1
    try:
        outside = [p for p in gitio.paths_in_patch(patch) if not p.startswith(repo_prefix)]
        if not outside:
            gitio.apply_to_folder(tree, patch, strip, wheel_prefix.strip("/"))
    except ToolkitError as exc:
        reason = str(exc).split(": ", 1)[-1]
        raise ToolkitError(f"{patch.name} does not apply to the wheel: {reason}") from None
    if outside:
        raise ToolkitError(
            f"{patch.name} changes {outside[0]}, which is outside {repo_prefix} "
            "(the part of the repository the wheel holds)"
        )


def _set_version(tree: Path, new: str) -> Path:
    """The tree renamed to version ``new``, with its dist-info folder and METADATA."""
    infos = sorted(p for p in tree.iterdir() if p.is_dir() and p.name.endswith(".dist-info"))
    if len(infos) != 1:
        raise ToolkitError(f"the wheel has {len(infos)} .dist-info folders, not one")
    info = infos[0]
    name = info.name.removesuffix(".dist-info").partition("-")[0]
    # Only the headers: after the first blank line, the body is the description.
    head, blank, body = (info / "METADATA").read_bytes().partition(b"\n\n")
    head, found = re.subn(rb"(?m)^Version:.*$", b"Version: " + new.encode(), head, count=1)
    if not found:
        raise ToolkitError(f"{info.name}/METADATA has no Version: header")
    files.write_atomic(info / "METADATA", head + blank + body)
    (info / "RECORD").unlink(missing_ok=True)  # wheel pack writes it anew
    info.rename(tree / f"{name}-{new}.dist-info")
    renamed = tree.parent / f"{name}-{new}"
    tree.rename(renamed)
    return renamed
