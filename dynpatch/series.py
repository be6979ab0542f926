"""The patch series in a folder (``patches/``, or a release's own in the matrix): its
names, its ``series`` file, installing a new one whole, comparing two, and its digests.

:func:`code_digest` covers only the code a series changes (its diffs), not its commit
messages: a figure measured on the code can be quoted in a commit message without
making itself stale.
"""

from __future__ import annotations

import difflib
import hashlib
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.io import faults, files

SERIES_FILE = "series"
_TRAILING = ("base-commit: ", "prerequisite-patch-id: ")  # git format-patch --base lines


def names(directory: Path) -> list[str]:
    """The patch files ``directory/series`` names, in order; each must exist."""
    if not (directory / SERIES_FILE).is_file():
        raise ToolkitError(f"no patch series in {directory}: run `nox -s apply` first")
    try:
        listed = (directory / SERIES_FILE).read_text().split()
    except OSError as exc:
        raise files.os_error(exc, f"cannot read the series file of {directory}") from None
    missing = [n for n in listed if not (directory / n).is_file()]
    if missing:
        raise ToolkitError(f"{directory}/{SERIES_FILE} names {missing[0]}, which is not there")
    return listed


def lock(locks: Path, directory: Path) -> Path:
    """The lock file that guards ``directory`` (one per folder, under ``locks``)."""
    where = str(directory.resolve())
    return locks / f"patches-{hashlib.sha256(where.encode()).hexdigest()[:12]}.lock"


def series_digest(directory: Path) -> str:
    """sha256 over ``series`` and, in order, every patch it lists."""
    digest = hashlib.sha256()
    for name in [SERIES_FILE, *names(directory)]:
        digest.update(name.encode() + b"\0" + (directory / name).read_bytes() + b"\0")
    return digest.hexdigest()


def code_digest(directory: Path) -> str:
    """sha256 over the diff part (:func:`diff_part`) of every patch the series lists, in
    order: the code the series changes, whatever its messages and names say."""
    digest = hashlib.sha256()
    for name in names(directory):
        path = directory / name
        try:
            part = diff_part(path.read_text())
        except ToolkitError as exc:
            raise ToolkitError(f"{path}: {exc}") from None
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()


def diff_part(patch: str) -> str:
    """A patch's diffs: from its first ``diff --git`` line to the end, without the
    ``base-commit:`` lines and the ``-- `` signature git format-patch may add after them."""
    if patch.startswith("diff --git "):
        at = 0
    elif (found := patch.find("\ndiff --git ")) >= 0:
        at = found + 1
    else:
        raise ToolkitError("not a patch with a diff (no 'diff --git' line)")
    lines = patch[at:].split("\n")
    _drop_blank(lines)
    # The signature: "-- " and a version line; a hunk line never looks like that version.
    if len(lines) >= 2 and lines[-2] == "-- " and lines[-1][:1] not in ("+", "-", " ", "\\", "@"):
        del lines[-2:]
    _drop_blank(lines)
    while lines and lines[-1].startswith(_TRAILING):
        lines.pop()
    _drop_blank(lines)
    return "\n".join(lines) + "\n"


def _drop_blank(lines: list[str]) -> None:
    while lines and not lines[-1]:
        lines.pop()


def compare(exported: Path, committed: Path) -> None:
    """Refuse (naming the first difference) when ``committed`` holds another series."""
    want = {n: b.decode(errors="replace") for n, b in _read(exported).items()}
    have = {n: b.decode(errors="replace") for n, b in _read(committed).items()}
    for name in sorted(set(want) | set(have)):
        if want.get(name) != have.get(name):
            diff = difflib.unified_diff(
                (have.get(name) or "").splitlines(),
                (want.get(name) or "").splitlines(),
                lineterm="",
                n=0,
            )
            first = next((d for d in list(diff)[2:] if not d.startswith("@@")), "")
            raise ToolkitError(
                f"patches/{name} is stale: regenerate with `nox -s apply` "
                f"(first difference: {first.strip()[:120]!r})"
            )


def install(exported: Path, directory: Path) -> list[str]:
    """Replace ``directory`` with the export, whole (staged beside it, then swapped in);
    return the names that changed. Files there that are not part of a series (no
    ``.patch``, not ``series``) are carried over. Unchanged: nothing is written."""
    have = _read(directory)
    want = _read(exported)
    changed = sorted(n for n in set(have) | set(want) if have.get(n) != want.get(n))
    if not changed:
        return []
    keep = frozenset(
        p.name for p in (directory.iterdir() if directory.is_dir() else ()) if p.name not in have
    )
    with files.staged_dir(directory, keep=keep) as tmp:
        for name, data in want.items():
            (tmp / name).write_bytes(data)
        faults.checkpoint("patches.staged")
    return changed


def _read(directory: Path) -> dict[str, bytes]:
    """The series files of ``directory`` (patch files and ``series``) by name."""
    if not directory.is_dir():
        return {}
    try:
        return {
            p.name: p.read_bytes()
            for p in directory.iterdir()
            if p.is_file() and (p.suffix == ".patch" or p.name == SERIES_FILE)
        }
    except OSError as exc:
        raise files.os_error(exc, f"cannot read {directory}") from None
