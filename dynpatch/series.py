"""A patch series in a folder (``patches/``, or a release's own in the matrix): its names,
installing one whole, comparing two, and its digests (``code_digest``: its diffs only)."""

from __future__ import annotations

import difflib
import hashlib
from pathlib import Path

from dynpatch.designs import DESIGNS, Design
from dynpatch.errors import ToolkitError
from dynpatch.io import faults, files

SERIES_FILE = "series"
DESIGN = "# design: "  # the series file's first line: the design it was made with
_TRAILING = ("base-commit: ", "prerequisite-patch-id: ")  # git format-patch --base lines


def names(directory: Path) -> list[str]:
    """The patch files ``directory/series`` names, in order; each must exist."""
    listed = _lines(directory)[1]
    if missing := [n for n in listed if not (directory / n).is_file()]:
        raise ToolkitError(f"{directory}/{SERIES_FILE} names {missing[0]}, which is not there")
    return listed


def design_of(directory: Path) -> Design:
    """The design ``directory/series`` says it was made with; none or an unknown one is an
    error (regenerate the series), never a default."""
    said, known = _lines(directory)[0], ", ".join(DESIGNS)
    if said is None:
        raise ToolkitError(
            f"{directory}/{SERIES_FILE} does not say its design (no '{DESIGN}NAME' line): "
            f"regenerate it with `nox -s apply -- --design NAME` ({known})"
        )
    if said not in DESIGNS:
        raise ToolkitError(f"unknown design {said!r}: one of {known}")
    return DESIGNS[said]


def write(directory: Path, design: Design, patches: list[str]) -> None:
    """The series file naming ``design`` and ``patches``, in order."""
    text = f"{DESIGN}{design.name}\n" + "".join(f"{n}\n" for n in patches)
    (directory / SERIES_FILE).write_text(text)


def _lines(directory: Path) -> tuple[str | None, list[str]]:
    """The design the series file names (None: none), and its patches."""
    if not (directory / SERIES_FILE).is_file():
        raise ToolkitError(f"no patch series in {directory}: run `nox -s apply` first")
    try:
        lines = (directory / SERIES_FILE).read_text().splitlines()
    except OSError as exc:
        raise files.os_error(exc, f"cannot read the series file of {directory}") from None
    said = next((ln.removeprefix(DESIGN).strip() for ln in lines if ln.startswith(DESIGN)), None)
    return said, [w for ln in lines if not ln.startswith("#") for w in ln.split()]


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
    """sha256 over the diffs of every patch, in order, whatever their messages say."""
    digest = hashlib.sha256()
    for name in names(directory):
        try:
            digest.update(diff_part((directory / name).read_text()).encode() + b"\0")
        except ToolkitError as exc:
            raise ToolkitError(f"{directory / name}: {exc}") from None
    return digest.hexdigest()


def diff_part(patch: str) -> str:
    """A patch's diffs: from its first ``diff --git`` line, without the ``base-commit:``
    lines and ``-- `` signature git format-patch adds after them."""
    at = 0 if patch.startswith("diff --git ") else patch.find("\ndiff --git ") + 1
    if not patch.startswith("diff --git ", at):
        raise ToolkitError("not a patch with a diff (no 'diff --git' line)")
    lines = patch[at:].rstrip("\n").split("\n")
    # The signature: "-- " and a version line; a hunk line never looks like that version.
    if len(lines) >= 2 and lines[-2] == "-- " and lines[-1][:1] not in ("+", "-", " ", "\\", "@"):
        del lines[-2:]
    while lines and (not lines[-1] or lines[-1].startswith(_TRAILING)):
        lines.pop()
    return "\n".join(lines) + "\n"


def compare(exported: Path, committed: Path) -> None:
    """Refuse (naming the first difference) when ``committed`` holds another series."""
    want, have = _read(exported), _read(committed)
    name = next((n for n in sorted(set(want) | set(have)) if want.get(n) != have.get(n)), None)
    if name is None:
        return
    old, new = (d.get(name, b"").decode(errors="replace").splitlines() for d in (have, want))
    diff = list(difflib.unified_diff(old, new, lineterm="", n=0))[2:]
    first = next((d for d in diff if not d.startswith("@@")), "")
    raise ToolkitError(
        f"patches/{name} is stale: regenerate with `nox -s apply` "
        f"(first difference: {first.strip()[:120]!r})"
    )


def install(exported: Path, directory: Path) -> list[str]:
    """Replace ``directory``'s series (other files kept) with the export; the names changed."""
    have, want = _read(directory), _read(exported)
    changed = sorted(n for n in set(have) | set(want) if have.get(n) != want.get(n))
    if not changed:
        return []
    keep = frozenset(
        p.name for p in (directory.iterdir() if directory.is_dir() else ()) if p.name not in have
    )
    with files.staged_dir(directory, keep=keep) as tmp:
        for name, data in want.items():
            files.write_new(tmp / name, data)
        faults.checkpoint("patches.staged")
    return changed


def _read(directory: Path) -> dict[str, bytes]:
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
