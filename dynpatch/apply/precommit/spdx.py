"""dynamo's copyright-header rule, as a pure check of one file.

dynamo's CI (``.github/workflows/copyright-checks.yml`` runs
``.github/workflows/copyright-check.ps1``) requires, in every file of the kinds it knows,
the two SPDX lines::

    # SPDX-FileCopyrightText: Copyright (c) <year or first-last> NVIDIA CORPORATION & AFFILIATES. All rights reserved.
    # SPDX-License-Identifier: Apache-2.0

(``//`` instead of ``#`` for ``.proto`` and ``.rs``), matched anywhere in the file, case
and whitespace aside, with bare comment lines allowed after each; and the header's last
year may not be older than the file's last commit. Its ignore lists (Markdown, JSON,
images, ``.pyi``, patches, lock files ...) and empty files are not checked. This is our
reading of that script, not its code.
"""

from __future__ import annotations

import re

from dynpatch.apply.precommit.findings import Finding

HOOK = "SPDX header"
PIN = "dynamo's copyright-check.ps1 rule"

_HASH = (".containerfile", ".dockerignore", ".pbtxt", ".ps1", ".py", ".sh", ".toml", ".tpl")
_HASH += (".txt", ".yaml", ".yml", "Dockerfile")
_SLASHES = (".proto", ".rs")
_IGNORED = (".bat", ".gif", ".ico", ".ipynb", ".jpg", ".jpeg", ".patch", ".png", ".pyc", ".pyi")
_IGNORED += (".rst", ".zip", ".md", ".json", ".clang-format", ".gitattributes", ".gitignore")
_IGNORED += (".gitkeep", "Cargo.lock", "LICENSE", "uv.lock", "rust-toolchain.toml")
_IGNORED += ("codespell.txt", "exclusions.txt")
_LINES = (
    "SPDX-FileCopyrightText: Copyright (c) %%DATE%% NVIDIA CORPORATION & AFFILIATES. "
    "All rights reserved.",
    "SPDX-License-Identifier: Apache-2.0",
)


def _header(comment: str) -> re.Pattern[str]:
    parts = []
    for line in _LINES:
        text = re.sub(r"\\\s+|\s+", r"\\s+", re.escape(f"{comment} {line}"))
        text = text.replace(re.escape("%%DATE%%"), r"(?:\d{4}-)?(?P<year>\d{4})")
        parts.append(text + r"\s+" + rf"(?:{re.escape(comment)}\s+)*")
    return re.compile("".join(parts), re.IGNORECASE)


_PATTERNS = {"#": _header("#"), "//": _header("//")}


def comment_of(path: str) -> str | None:
    """The comment marker of ``path``'s header ('#' or '//'); None: the rule skips it."""
    if path.startswith(".github/") or path.endswith(_IGNORED):
        return None
    if path.endswith(_HASH):
        return "#"
    if path.endswith(_SLASHES):
        return "//"
    return None


def check(path: str, text: str, year: int) -> list[Finding]:
    """What the rule finds in ``path`` (content ``text``) committed in ``year``."""
    comment = comment_of(path)
    if comment is None or not text:
        return []
    match = _PATTERNS[comment].search(text)
    if match is None:
        header = f"'{comment} {_LINES[0]}' then '{comment} {_LINES[1]}'".replace(
            "%%DATE%%", "<year>"
        )
        return [Finding(HOOK, path, 1, f"no SPDX header ({header})")]
    if int(match["year"]) < year:
        line = text.count("\n", 0, match.start()) + 1
        why = f"copyright year {match['year']} is older than the commit ({year})"
        return [Finding(HOOK, path, line, f"{why}: the header's last year must be at least {year}")]
    return []
