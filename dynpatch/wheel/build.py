"""The patched wheel: the pinned upstream wheel unpacked with the ``wheel`` library, the
series applied with ``git apply`` (exact context, no fuzz), the local version
``<version>+dynpatch.<8 hex of the series sha256>`` set, and repacked with ``wheel pack``.
File modes are normalised and ``SOURCE_DATE_EPOCH`` fixed, so two builds give the same
bytes; :func:`into_dist` swaps the wheel, its ``.sha256`` and ``.provenance.json`` into
``dist/`` in one go, replacing earlier ``+dynpatch.`` builds and keeping anything else.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from dynpatch import series
from dynpatch.errors import ToolkitError
from dynpatch.io import files, proc, pypi
from dynpatch.io import git as gitio
from dynpatch.pin import Pin

LOCAL_PREFIX = "dynpatch."
TIMEOUT = 600.0


@dataclass(frozen=True)
class Recipe:
    """What a build needs: the pin, its verified upstream wheel and the series, in order."""

    pin: Pin
    upstream: Path
    patches: tuple[Path, ...]
    series_sha256: str

    @property
    def version(self) -> str:
        return f"{self.pin.pinned.version.split('+', 1)[0]}+{LOCAL_PREFIX}{self.series_sha256[:8]}"


def recipe_of(pin: Pin, cache: Path, patches: Path) -> Recipe:
    """The series in ``patches`` on the pinned wheel from the fetch cache (downloaded if
    absent), sha256-verified."""
    names = series.names(patches)
    if not names:
        raise ToolkitError(f"{patches}/series lists no patch: run `nox -s apply` first")
    release = pin.pinned
    wheel = pypi.download_wheel(pin.package, release.version, release.wheel, cache / "wheels")
    if (got := pypi.sha256_of(wheel)) != release.sha256:
        raise ToolkitError(
            f"{wheel} has sha256 {got}, not the pinned {release.sha256}: refusing it "
            "(delete the file to download it again)"
        )
    return Recipe(pin, wheel, tuple(patches / n for n in names), series.series_digest(patches))


def into_dist(recipe: Recipe, dist: Path, cache: Path) -> tuple[Path, str]:
    """Build into a staging copy of ``dist`` and swap it in whole (nothing half-written);
    the wheel's final path and sha256."""
    with files.lock(cache / "locks" / "dist.lock", f"the wheel build in {dist}"):
        old = dist.iterdir() if dist.is_dir() else ()
        keep = frozenset(p.name for p in old if f"+{LOCAL_PREFIX}" not in p.name)
        with files.staged_dir(dist, keep=keep) as staging:
            with files.owned_dir(cache / "scratch", ".wheel-build-") as scratch:
                wheel = build(recipe, staging, scratch)
            digest = pypi.sha256_of(wheel)
            files.write_atomic(staging / f"{wheel.name}.sha256", f"{digest}  {wheel.name}\n")
            provenance = {
                "wheel": wheel.name,
                "sha256": digest,
                "version": recipe.version,
                "pinned_version": recipe.pin.pinned.version,
                "upstream_wheel": recipe.pin.pinned.wheel,
                "upstream_sha256": recipe.pin.pinned.sha256,
                "series_sha256": recipe.series_sha256,
                "patches": [p.name for p in recipe.patches],
                "source_date_epoch": int(source_date_epoch(recipe.pin.date)),
            }
            stem = wheel.name.removesuffix(".whl")
            text = json.dumps(provenance, indent=2) + "\n"
            files.write_atomic(staging / f"{stem}.provenance.json", text)
    return dist / wheel.name, digest


def rebuild_matches(recipe: Recipe, first: Path, cache: Path) -> str:
    """Build again in a scratch folder; the second build's sha256 (raises if it differs)."""
    with files.owned_dir(cache / "scratch", ".wheel-again-") as scratch:
        again = build(recipe, scratch / "dist", scratch / "unpack")
        digest = pypi.sha256_of(again)
        if again.name != first.name or again.read_bytes() != first.read_bytes():
            raise ToolkitError(
                f"the wheel is not reproducible: a second build gave {again.name} "
                f"sha256 {digest}, the first {first.name} sha256 {pypi.sha256_of(first)}"
            )
    return digest


def source_date_epoch(date: str) -> str:
    try:
        return str(int(datetime.fromisoformat(date).timestamp()))
    except ValueError:
        raise ToolkitError(f"the pin's [series] date {date!r} is not an ISO 8601 date") from None


def build(recipe: Recipe, dest: Path, scratch: Path) -> Path:
    """Build the patched wheel into the folder ``dest``, unpacking it in ``scratch`` (an
    empty folder this build owns); its path."""
    _wheel_cli("unpack", "-d", scratch, recipe.upstream)
    found = [p for p in scratch.iterdir() if p.is_dir()]
    if len(found) != 1:
        raise ToolkitError(f"wheel unpack {recipe.upstream.name} gave {len(found)} folders")
    tree = found[0]
    _normalise_modes(tree)
    for patch in recipe.patches:
        apply_patch(tree, patch, recipe.pin.wheel_prefix, recipe.pin.repo_prefix)
    tree = _set_version(tree, recipe.version)
    _normalise_modes(tree)
    dest.mkdir(parents=True, exist_ok=True)
    before = set(dest.iterdir())
    _wheel_cli("pack", "-d", dest, tree, SOURCE_DATE_EPOCH=source_date_epoch(recipe.pin.date))
    made = sorted(p for p in set(dest.iterdir()) - before if p.suffix == ".whl")
    if len(made) != 1:
        raise ToolkitError(f"wheel pack made {len(made)} wheels in {dest}, not one")
    return made[0]


def _wheel_cli(verb: str, *args: str | Path, **env: str) -> None:
    cmd = [sys.executable, "-m", "wheel", verb, *map(str, args)]
    env = {**os.environ, "LC_ALL": "C", **env}
    proc.check(cmd, doing=f"wheel {verb} {Path(args[-1]).name}", timeout=TIMEOUT, env=env)


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
    """Apply ``patch`` (repository layout, only under ``repo_prefix``) to the unpacked
    wheel ``tree`` exactly, or fail with one line naming the patch and the reason."""
    try:
        paths = gitio.paths_in_patch(patch)
    except ToolkitError as exc:
        reason = str(exc).split(": ", 1)[-1]
        raise ToolkitError(f"{patch.name} is not a patch git can read: {reason}") from None
    outside = [p for p in paths if not p.startswith(repo_prefix)]
    if outside:
        raise ToolkitError(
            f"{patch.name} changes {outside[0]}, which is outside {repo_prefix} "
            "(the part of the repository the wheel holds)"
        )
    strip = 1 + repo_prefix.rstrip("/").count("/") + 1
    try:
        gitio.apply_to_folder(tree, patch, strip, wheel_prefix.strip("/"))
    except ToolkitError as exc:
        reason = str(exc).split(": ", 1)[-1]
        raise ToolkitError(f"{patch.name} does not apply to the wheel: {reason}") from None


def _set_version(tree: Path, new: str) -> Path:
    """Rename the dist-info folder (and the tree) to version ``new`` and set METADATA's
    ``Version:`` header; the renamed tree."""
    infos = sorted(p for p in tree.iterdir() if p.is_dir() and p.name.endswith(".dist-info"))
    if len(infos) != 1:
        raise ToolkitError(f"the wheel has {len(infos)} .dist-info folders, not one")
    info = infos[0]
    name = info.name.removesuffix(".dist-info").partition("-")[0]
    metadata = info / "METADATA"
    try:
        lines = metadata.read_bytes().split(b"\n")
    except OSError as exc:
        raise files.os_error(exc, f"cannot read {info.name}/METADATA") from None
    # Only the headers: after the first blank line, the body is the description.
    end = next((i for i, line in enumerate(lines) if not line.strip()), len(lines))
    at = next((i for i in range(end) if lines[i].startswith(b"Version:")), None)
    if at is None:
        raise ToolkitError(f"{info.name}/METADATA has no Version: header")
    lines[at] = b"Version: " + new.encode()
    files.write_atomic(metadata, b"\n".join(lines))
    (info / "RECORD").unlink(missing_ok=True)  # wheel pack writes it anew
    info.rename(tree / f"{name}-{new}.dist-info")
    renamed = tree.parent / f"{name}-{new}"
    tree.rename(renamed)
    return renamed
