"""One build of the patched wheel: unpack the upstream wheel with the ``wheel`` library,
apply the series with ``git apply`` (exact context, no fuzz), give it the local version
``<version>+dynpatch.<8 hex of the series sha256>`` and repack it with ``wheel pack``.

Every file's mode is normalised (0644, or 0755 where the upstream wheel had an execute
bit) and ``SOURCE_DATE_EPOCH`` is fixed, so two builds give the same bytes.
"""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.io import files, proc
from dynpatch.io import git as gitio

LOCAL_PREFIX = "dynpatch."
TIMEOUT = 600.0


@dataclass(frozen=True)
class Recipe:
    """What a build needs: the verified upstream wheel and the series, in order."""

    upstream: Path
    patches_dir: Path
    patches: tuple[str, ...]
    series_sha256: str
    wheel_prefix: str
    repo_prefix: str
    date: str  # ISO 8601; the zip timestamps

    @property
    def local(self) -> str:
        return f"{LOCAL_PREFIX}{self.series_sha256[:8]}"


def local_version(version: str, recipe: Recipe) -> str:
    return f"{version.split('+', 1)[0]}+{recipe.local}"


def source_date_epoch(date: str) -> str:
    try:
        return str(int(datetime.fromisoformat(date).timestamp()))
    except ValueError:
        raise ToolkitError(f"the pin's [series] date {date!r} is not an ISO 8601 date") from None


def build(recipe: Recipe, dest: Path, scratch: Path) -> Path:
    """Build the patched wheel into the folder ``dest``; return its path.

    ``scratch`` is an empty folder this build owns (the unpacked tree lives there).
    """
    unpacked = _unpack(recipe.upstream, scratch)
    _normalise_modes(unpacked)
    for name in recipe.patches:
        apply_patch(unpacked, recipe.patches_dir / name, recipe.wheel_prefix, recipe.repo_prefix)
    renamed = _set_version(unpacked, recipe)
    _normalise_modes(renamed)
    return _pack(renamed, dest, recipe.date)


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "LC_ALL": "C", **extra}


def _unpack(wheel: Path, scratch: Path) -> Path:
    proc.check(
        [sys.executable, "-m", "wheel", "unpack", "-d", str(scratch), str(wheel)],
        doing=f"wheel unpack {wheel.name}",
        timeout=TIMEOUT,
        env=_env(),
    )
    found = [p for p in scratch.iterdir() if p.is_dir()]
    if len(found) != 1:
        raise ToolkitError(f"wheel unpack {wheel.name} gave {len(found)} folders, not one")
    return found[0]


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


def patch_paths(patch: Path, repo_prefix: str) -> list[str]:
    """The repository paths ``patch`` touches; each must be under ``repo_prefix``."""
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
    return paths


def apply_patch(tree: Path, patch: Path, wheel_prefix: str, repo_prefix: str) -> None:
    """Apply ``patch`` (repository layout) to the unpacked wheel ``tree`` exactly, or fail
    with one line naming the patch and what git could not apply."""
    patch_paths(patch, repo_prefix)
    strip = 1 + repo_prefix.rstrip("/").count("/") + 1
    try:
        gitio.apply_to_folder(tree, patch, strip, wheel_prefix.strip("/"))
    except ToolkitError as exc:
        reason = str(exc).split(": ", 1)[-1]
        raise ToolkitError(f"{patch.name} does not apply to the wheel: {reason}") from None


def _dist_info(tree: Path) -> Path:
    found = sorted(p for p in tree.iterdir() if p.is_dir() and p.name.endswith(".dist-info"))
    if len(found) != 1:
        raise ToolkitError(f"the wheel has {len(found)} .dist-info folders, not one")
    return found[0]


def _set_version(tree: Path, recipe: Recipe) -> Path:
    """Rename the dist-info folder (and the tree) to the local version, set METADATA's
    ``Version:``; return the renamed tree."""
    info = _dist_info(tree)
    name, _, version = info.name.removesuffix(".dist-info").partition("-")
    new = local_version(version, recipe)
    metadata = info / "METADATA"
    try:
        lines = metadata.read_bytes().split(b"\n")
    except OSError as exc:
        raise files.os_error(exc, f"cannot read {info.name}/METADATA") from None
    end = next((i for i, line in enumerate(lines) if not line.strip()), len(lines))
    # Only the headers: after the first blank line, the body is the description.
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


def _pack(tree: Path, dest: Path, date: str) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    before = set(dest.iterdir())
    proc.check(
        [sys.executable, "-m", "wheel", "pack", "-d", str(dest), str(tree)],
        doing="wheel pack",
        timeout=TIMEOUT,
        cwd=tree.parent,
        env=_env(SOURCE_DATE_EPOCH=source_date_epoch(date)),
    )
    made = sorted(p for p in set(dest.iterdir()) - before if p.suffix == ".whl")
    if len(made) != 1:
        raise ToolkitError(f"wheel pack made {len(made)} wheels in {dest}, not one")
    return made[0]
