"""What dynamo's GOVERNANCE.md asks of this pull request before it is opened: a Contribution
Request issue when the change exceeds 100 core lines or spans more than one area (an area
is what CODEOWNERS assigns to one owning team)."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

CR_LIMIT = 100  # core lines: changed lines outside tests, documentation and generated files
# Where GitHub reads CODEOWNERS from, in its order.
CODEOWNERS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")
# Where the base has none (a tree laid out from a PyPI wheel): the rows of dynamo's main
# CODEOWNERS for the folders the designs touch, as read there (generated from areas.yaml).
MAIN = "000e541", "2026-12"  # its commit, and when it was read
MAIN_ROWS = """\
* @ai-dynamo/dynamo-runtime-codeowners
/components/src/dynamo/vllm/ @ai-dynamo/dynamo-backend-vllm-codeowners
/components/src/dynamo/trtllm/ @ai-dynamo/dynamo-backend-trtllm-codeowners
/components/src/dynamo/trtllm/tests/ @ai-dynamo/dynamo-backend-trtllm-codeowners
/components/src/dynamo/trtllm/request_handlers/ @ai-dynamo/dynamo-backend-trtllm-codeowners
/components/src/dynamo/sglang/ @ai-dynamo/dynamo-backend-sglang-codeowners
"""
_TESTS = ("/tests/", "/test/")
_DOCS = ("/docs/",)  # a docs folder at any depth (the path is read with a "/" in front)
_DOC_FILES = (".md", ".rst")  # not .txt: requirements.txt and CMakeLists.txt are build files
_GENERATED = ("_pb2.py", ".lock", ".patch")


@dataclass(frozen=True)
class CoreLines:
    """The series' core lines and areas, as dynamo's governance counts them."""

    added: int
    removed: int
    files: tuple[str, ...]  # the core files
    tests: int  # files not counted, by kind
    docs: int
    generated: int
    areas: tuple[str, ...]  # every changed file's area, once each
    areas_from: str  # which CODEOWNERS told the areas

    @property
    def total(self) -> int:
        return self.added + self.removed

    @property
    def reasons(self) -> list[str]:
        """Why a Contribution Request is needed (empty: it is not)."""
        why = [f"{self.total} core lines, over {CR_LIMIT}"] if self.total > CR_LIMIT else []
        if len(self.areas) > 1:
            why.append(f"{len(self.areas)} areas ({', '.join(self.areas)})")
        return why

    def sentence(self) -> str:
        """Whether a Contribution Request is needed, and the counts behind it."""
        files = f"{len(self.files)} file{'s' * (len(self.files) != 1)}"
        left = [(self.tests, "test"), (self.docs, "documentation"), (self.generated, "generated")]
        out = ", ".join(f"{n} {kind} file{'s' * (n != 1)}" for n, kind in left if n)
        count = (
            f"{self.total} core lines changed ({self.added} added, {self.removed} removed, in "
            f"{files}{f'; {out} not counted' if out else ''}) and {len(self.areas)} "
            f"area{'s' * (len(self.areas) != 1)} by {self.areas_from}; one is needed above "
            f"{CR_LIMIT} core lines or for more than one area"
        )
        return f"needed: {count}" if self.reasons else f"not needed: {count}"


def core_lines(numstat: Sequence[tuple[int, int, str]], codeowners: str | None) -> CoreLines:
    """The core lines and areas of a change given as ``git diff --numstat`` rows, the areas
    by ``codeowners`` (the base's CODEOWNERS text; None: the copy of main's rows)."""
    kinds = [_kind(p) for _, _, p in numstat]
    core = [row for row, kind in zip(numstat, kinds, strict=True) if kind == "core"]
    rules = _rules(codeowners if codeowners is not None else MAIN_ROWS)
    areas = dict.fromkeys(a for _, _, p in numstat if (a := _area(p, rules)) is not None)
    return CoreLines(
        sum(a for a, _, _ in core),
        sum(r for _, r, _ in core),
        tuple(p for _, _, p in core),
        kinds.count("test"),
        kinds.count("docs"),
        kinds.count("generated"),
        tuple(areas),
        "the base's CODEOWNERS"
        if codeowners is not None
        else f"the rows of dynamo's main CODEOWNERS (commit {MAIN[0]}, read {MAIN[1]}) for "
        "these folders: this base has none",
    )


def read_codeowners(tree: Path) -> str | None:
    """The base's CODEOWNERS, where GitHub looks for it (None: none, as in a tree made from
    the PyPI wheel)."""
    found = next((tree / p for p in CODEOWNERS if (tree / p).is_file()), None)
    return found.read_text(encoding="utf-8", errors="replace") if found else None


def _kind(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    if any(part in f"/{path}" for part in _TESTS) or name.startswith("test_"):
        return "test"
    if any(part in f"/{path}" for part in _DOCS) or path.endswith(_DOC_FILES):
        return "docs"
    return "generated" if path.endswith(_GENERATED) else "core"


def _rules(text: str) -> list[tuple[str, str]]:
    """(pattern, owners) per CODEOWNERS line, in order (the last match wins)."""
    rows = (line.split("#", 1)[0].split() for line in text.splitlines())
    return [(row[0], " ".join(row[1:])) for row in rows if row]


def _area(path: str, rules: list[tuple[str, str]]) -> str | None:
    """The team CODEOWNERS gives ``path`` (None: no rule, no owner)."""
    owners = [who for pattern, who in rules if _matches(pattern, path)]  # "": unowned
    return owners[-1] or None if owners else None


def _matches(pattern: str, path: str) -> bool:
    """GitHub's CODEOWNERS matching, for the patterns dynamo's file uses: a leading ``/``
    anchors at the top, a trailing ``/`` (or no glob) matches everything below."""
    anchored, folder = pattern.startswith("/"), pattern.endswith("/")
    bare = pattern.strip("/")
    starts = [""] if anchored or "/" in bare else ["", *_prefixes(path)]
    for start in starts:
        rest = path[len(start) :]
        if fnmatch.fnmatchcase(rest, bare) and not folder:
            return True
        if fnmatch.fnmatchcase(rest, f"{bare}/*"):
            return True
    return False


def _prefixes(path: str) -> list[str]:
    """``a/``, ``a/b/``, ... for ``a/b/c``: where an unanchored pattern may start."""
    parts = path.split("/")[:-1]
    return ["/".join(parts[: i + 1]) + "/" for i in range(len(parts))]
