"""The pin, ``dynamo.toml``: read with ``tomllib``; edited with ``tomlkit``, which keeps its
comments (they say where each sha256 came from), each edit parsed back before it is returned."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.items import Comment, Item, KeyType, SingleKey, Table, Trivia, Whitespace
from tomlkit.toml_document import TOMLDocument

from dynpatch.errors import ToolkitError
from dynpatch.io import files


@dataclass(frozen=True)
class Release:
    version: str
    tag: str
    wheel: str
    sha256: str
    tree: str = ""  # git tree id of the laid-out wheel ("": not recorded yet)

    @property
    def base_tag(self) -> str:  # the pristine upstream commit in a checkout
        return f"upstream/{self.version}"


@dataclass(frozen=True)
class Pin:
    url: str
    version: str
    package: str
    wheel_prefix: str
    repo_prefix: str
    exclude: tuple[str, ...]
    author: str
    date: str
    branch: str
    path: Path
    releases: dict[str, Release] = field(default_factory=dict)
    matrix: tuple[str, ...] = ()  # [matrix] versions
    matrix_newest: bool = False

    @property
    def pinned(self) -> Release:
        return self.release(self.version)

    def release(self, version: str) -> Release:
        """The entry for ``version``; else an error naming the known ones."""
        if version not in self.releases:
            raise ToolkitError(
                f'unknown version {version}: {self.path.name} has no [releases."{version}"] '
                f"entry with its wheel sha256 (known: {self.known()})"
            )
        return self.releases[version]

    def known(self) -> str:
        """The versions it lists, in release order."""
        return ", ".join(sorted(self.releases, key=version_key)) or "none"


def load_pin(path: Path) -> Pin:
    """The pin in ``path`` (a dead bump undone first); a fault is one ToolkitError."""
    files.undo_dead(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise ToolkitError(f"pin file not found: {path}") from None
    except OSError as exc:
        raise ToolkitError(f"cannot read the pin file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ToolkitError(f"pin file {path} is malformed: not UTF-8 text") from None
    return parse_pin(text, path)


def parse_pin(text: str, path: Path) -> Pin:
    try:
        pin = _pin_of(tomllib.loads(text), path)
    except tomllib.TOMLDecodeError as exc:
        raise ToolkitError(f"pin file {path} is malformed: {exc}") from None
    except KeyError as exc:
        raise ToolkitError(f"pin file {path} is malformed: missing key {exc}") from None
    except (TypeError, AttributeError) as exc:
        raise ToolkitError(
            f"pin file {path} is malformed: a value has the wrong type ({exc})"
        ) from None
    pin.release(pin.version)  # the pinned version must be a known release
    try:  # git records the date: ISO 8601 with a time zone
        when = datetime.fromisoformat(pin.date)
    except (TypeError, ValueError):
        when = None
    if when is None or when.utcoffset() is None:
        raise ToolkitError(
            f"pin file {pin.path} is malformed: [series] date {pin.date!r} is not an ISO 8601 "
            "date with a time zone (e.g. 2026-11-30T00:00:00+00:00)"
        )
    return pin


def _pin_of(data: dict[str, Any], path: Path) -> Pin:
    up, layout, series = data["upstream"], data["layout"], data["series"]
    matrix = data.get("matrix", {})
    releases = {
        v: Release(v, r["tag"], r["wheel"], r["sha256"].lower(), r.get("tree", ""))
        for v, r in data.get("releases", {}).items()
    }
    return Pin(
        url=up["url"],
        version=up["version"],
        package=data["pypi"]["package"],
        wheel_prefix=layout["wheel_prefix"],
        repo_prefix=layout["repo_prefix"],
        exclude=tuple(layout.get("exclude", ())),
        author=series["author"],
        date=series["date"],
        branch=series["branch"],
        releases=releases,
        path=path,
        matrix=tuple(str(v) for v in matrix.get("versions", ())),
        matrix_newest=bool(matrix.get("newest", False)),
    )


def with_release(
    text: str, release: Release, comment: str = "", path: Path = Path("dynamo.toml")
) -> str:
    """``text`` with a ``[releases."X"]`` table for ``release`` (``comment`` above it) after the
    last one. An entry already there must say the same; one without a tree gets it."""
    known = parse_pin(text, path).releases.get(release.version)
    if known is not None:
        same = known.sha256 == release.sha256 and known.wheel == release.wheel
        if not same or (known.tree and release.tree and known.tree != release.tree):
            raise ToolkitError(
                f'the pin already has [releases."{release.version}"] with sha256 '
                f"{known.sha256}, not {release.sha256}: refusing to replace it"
            )
        if not release.tree or known.tree:
            return text
    doc = tomlkit.parse(text)
    if known is None:
        _add_release(doc, release, comment)
        failed = f"could not add release {release.version} to the pin text"
    else:
        _set_tree(_releases(doc)[release.version], release.tree)
        failed = f"could not record the tree of release {release.version} in the pin"
    return _checked(doc, path, lambda pin: pin.releases.get(release.version) == release, failed)


def with_version(text: str, version: str, path: Path = Path("dynamo.toml")) -> str:
    """``text`` with ``[upstream] version`` set to ``version`` (which must be a release)."""
    doc = tomlkit.parse(text)
    upstream = doc.get("upstream")
    if not isinstance(upstream, Table) or "version" not in upstream:
        raise ToolkitError("the pin has no [upstream] version line to move")
    upstream["version"] = version  # tomlkit keeps the line's place and its comment
    failed = f"could not set the pinned version to {version}"
    return _checked(doc, path, lambda pin: pin.version == version, failed)


def _checked(doc: TOMLDocument, path: Path, ok: Callable[[Pin], bool], failed: str) -> str:
    """The edited text, once parsing it back shows the edit (else ``failed``)."""
    new = tomlkit.dumps(doc)
    if not ok(parse_pin(new, path)):
        raise ToolkitError(failed)
    return new


def _releases(doc: TOMLDocument) -> Table:
    releases = doc.get("releases")
    if not isinstance(releases, Table) or not releases:
        raise ToolkitError("the pin has no [releases] table to add a release after")
    return releases


def _add_release(doc: TOMLDocument, release: Release, comment: str) -> None:
    releases = _releases(doc)
    last = releases[list(releases)[-1]]
    tail = _detach_tail(last)
    # tomlkit keeps the comment lines just above a header in the table before it; those
    # belong to the next table, so they move below the new one, as a reader expects.
    cut = max((i for i, item in enumerate(tail) if isinstance(item, Whitespace)), default=0)
    for item in [*tail[:cut], tomlkit.nl(), *(_comment(line) for line in comment.splitlines())]:
        last.add(item)
    table = tomlkit.table()
    for key in ("tag", "wheel", "sha256", "tree"):
        table.add(key, getattr(release, key))
    for item in tail[cut:]:
        table.add(item)
    releases.append(SingleKey(release.version, KeyType.Basic), table)  # quoted, as written
    table.trivia.indent = ""  # tomlkit puts a blank line above a table after a comment


def _set_tree(table: Table, tree: str) -> None:
    if "tree" in table:
        table["tree"] = tree  # in place, where the line is
        return
    tail = _detach_tail(table)  # a new key would otherwise land after the trailing comments
    table.add("tree", tree)
    for item in tail:
        table.add(item)


def _detach_tail(table: Table) -> list[Item]:
    """Remove and return the blank and comment lines after ``table``'s last key (keyless
    pairs at the end of tomlkit's ``body``: popping them keeps every key's index)."""
    body = table.value.body
    tail: list[Item] = []
    while body and body[-1][0] is None and isinstance(body[-1][1], Comment | Whitespace):
        tail.insert(0, body.pop()[1])
    return tail


def _comment(line: str) -> Comment:
    return Comment(Trivia(comment_ws="", comment=f"# {line}" if line else "#", trail="\n"))


_PEP440 = re.compile(r"^(?P<nums>\d+(?:\.\d+)*)(?:\.?post(?P<post>\d+))?(?:\.?dev(?P<dev>\d+))?$")


def version_key(version: str) -> tuple[tuple[int, ...], int, int, int]:
    """Release order for the versions dynamo uses: X.devN < X < X.postN."""
    if not (m := _PEP440.match(version)):
        return ((), 0, 0, 0)
    nums = tuple(int(n) for n in m["nums"].split("."))
    return (nums, 0 if m["dev"] else 1, int(m["post"] or 0), int(m["dev"] or 0))
