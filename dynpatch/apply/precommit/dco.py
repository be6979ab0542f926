"""dynamo's DCO rule on a commit message, as a pure check with line numbers.

dynamo's commit-msg hook (``scripts/dco_check.py``, the pre-commit hook "DCO check")
passes a message that has a line matching ``^Signed-off-by: .+ <.+>$``; the DCO check on
their pull requests also wants that sign-off to be the commit's author. The pattern and
:func:`sign_offs` live here, and :mod:`dynpatch.pr.branch` uses them when it re-signs.
"""

from __future__ import annotations

import re

from dynpatch.apply.precommit.findings import Finding
from dynpatch.io.git import CommitInfo, Identity

SIGNED_OFF_BY = re.compile(r"^Signed-off-by: .+ <.+>$")
_PARTS = re.compile(r"^Signed-off-by: (?P<name>.+) <(?P<email>.+)>$")  # the same lines
HOOK = "DCO"
PIN = f"`{SIGNED_OFF_BY.pattern}`, by the author"


def sign_offs(message: str) -> list[Identity]:
    """The identities of the DCO lines (``Signed-off-by: Name <email>``) in ``message``."""
    return [
        Identity(m["name"], m["email"])
        for line in message.splitlines()
        if (m := _PARTS.match(line))
    ]


def check(commit: CommitInfo, label: str) -> list[Finding]:
    """What the rule finds in ``commit``'s message as git recorded it; ``label`` names the
    message in a finding (a message is no file: the patch it comes from, say)."""
    lines = commit.message.rstrip("\n").split("\n")
    signed = [(n, line) for n, line in enumerate(lines, 1) if SIGNED_OFF_BY.match(line)]
    if not signed:
        why = f"no line matching {SIGNED_OFF_BY.pattern} (a DCO sign-off)"
        return [Finding(HOOK, label, len(lines), why)]
    author = commit.author
    if any(
        s.name == author.name and s.email.lower() == author.email.lower()
        for s in sign_offs(commit.message)
    ):
        return []
    first, line = signed[0]
    return [Finding(HOOK, label, first, f"{line!r} is not the author {author}")]
