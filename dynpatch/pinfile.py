"""Edits of ``vendor/dynamo.toml`` that keep its comments and layout.

The pin is hand-annotated TOML; a TOML library round trip would drop the comments that
say where each sha256 came from. These functions change one thing in the text (the
pinned version, or one added ``[releases."X"]`` table) and check the result by parsing it
back with ``load_pin``, so an edit either yields a valid pin or raises.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.pin import Pin, Release, load_pin

_HEADER = re.compile(r"^\s*\[(?P<name>[^\[\]]+)\]\s*(#.*)?$")
_VERSION = re.compile(r'^(?P<lead>\s*version\s*=\s*)"[^"]*"(?P<tail>\s*(#.*)?)$')


def release_table(release: Release, comment: str = "") -> str:
    """The ``[releases."X"]`` table for ``release`` (with optional comment lines above)."""
    lines = [f"# {line}" if line else "#" for line in comment.splitlines()]
    lines += [
        f'[releases."{release.version}"]',
        f'tag = "{release.tag}"',
        f'wheel = "{release.wheel}"',
        f'sha256 = "{release.sha256}"',
        f'tree = "{release.tree}"',
    ]
    return "\n".join(lines) + "\n"


def with_release(text: str, release: Release, comment: str = "") -> str:
    """``text`` with a ``[releases."X"]`` table for ``release`` after the last one.

    An entry that is already there must say the same (sha256, wheel, and tree when both
    record one); a different one is an error, never silently replaced.
    """
    known = _parse(text).releases.get(release.version)
    if known is not None:
        same = known.sha256 == release.sha256 and known.wheel == release.wheel
        if not same or (known.tree and release.tree and known.tree != release.tree):
            raise ToolkitError(
                f'the pin already has [releases."{release.version}"] with sha256 '
                f"{known.sha256}, not {release.sha256}: refusing to replace it"
            )
        if release.tree and not known.tree:
            return _set_tree(text, release)
        return text
    lines = text.splitlines(keepends=True)
    at = _end_of_last_release(lines)
    block = release_table(release, comment)
    before = "".join(lines[:at]).rstrip("\n")
    after = "".join(lines[at:]).lstrip("\n")
    new = f"{before}\n\n{block}" + (f"\n{after}" if after else "")
    parsed = _parse(new)
    if parsed.releases.get(release.version) != release:
        raise ToolkitError(f"could not add release {release.version} to the pin text")
    return new


def _set_tree(text: str, release: Release) -> str:
    """Record ``release.tree`` in its existing table (whose tree was not recorded)."""
    lines = text.splitlines(keepends=True)
    table = f'releases."{release.version}"'
    section = None
    for i, line in enumerate(lines):
        header = _HEADER.match(line)
        if header:
            section = header["name"].strip()
            continue
        if section == table and re.match(r"^\s*tree\s*=", line):
            lines[i] = f'tree = "{release.tree}"\n'
            break
    else:
        at = next(
            i
            for i, ln in enumerate(lines)
            if (h := _HEADER.match(ln)) and h["name"].strip() == table
        )
        lines.insert(at + 1, f'tree = "{release.tree}"\n')
    new = "".join(lines)
    if _parse(new).releases.get(release.version) != release:
        raise ToolkitError(f"could not record the tree of release {release.version} in the pin")
    return new


def with_version(text: str, version: str) -> str:
    """``text`` with ``[upstream] version`` set to ``version`` (which must be a release)."""
    lines = text.splitlines(keepends=True)
    section, done = None, False
    for i, line in enumerate(lines):
        header = _HEADER.match(line)
        if header:
            section = header["name"].strip()
            continue
        match = _VERSION.match(line.rstrip("\n"))
        if section == "upstream" and match and not done:
            end = "\n" if line.endswith("\n") else ""
            lines[i] = f'{match["lead"]}"{version}"{match["tail"]}{end}'
            done = True
    if not done:
        raise ToolkitError("the pin has no [upstream] version line to move")
    new = "".join(lines)
    if _parse(new).version != version:
        raise ToolkitError(f"could not set the pinned version to {version}")
    return new


def _end_of_last_release(lines: list[str]) -> int:
    """Index of the line after the last ``[releases."X"]`` table (before the next header
    and the comment lines that introduce it)."""
    last = None
    for i, line in enumerate(lines):
        header = _HEADER.match(line)
        if header and header["name"].strip().startswith("releases."):
            last = i
    if last is None:
        raise ToolkitError("the pin has no [releases] table to add a release after")
    end = len(lines)
    for j in range(last + 1, len(lines)):
        if _HEADER.match(lines[j]):
            end = j
            break
    while end > last + 1 and lines[end - 1].lstrip().startswith("#"):
        end -= 1  # keep the next table's own comment with it
    return end


def _parse(text: str) -> Pin:
    """``load_pin`` on ``text`` (it reads files, so via a temporary one)."""
    with tempfile.TemporaryDirectory(prefix="dynpatch-pin-") as tmp:
        path = Path(tmp) / "dynamo.toml"
        path.write_text(text)
        return load_pin(path)
