"""dynamo's contribution rules as pure checks: PR title, DCO sign-off, re-signing.

The title rule is the Conventional Commit form dynamo's PR-title check asks for. The DCO
rule is their commit-msg hook (``^Signed-off-by: .+ <.+>$``) plus what the DCO check on a
pull request adds: a sign-off that matches the commit's author.
"""

from __future__ import annotations

import re

from dynpatch.apply.precommit.dco import SIGNED_OFF_BY, sign_offs
from dynpatch.io.git import CommitInfo, Identity

__all__ = ["SIGNED_OFF_BY", "dco_problems", "drop_sign_off", "sign_offs", "title_problem"]

TITLE_TYPES = (
    "feat",
    "fix",
    "docs",
    "test",
    "ci",
    "refactor",
    "perf",
    "chore",
    "build",
    "style",
    "revert",
)
TITLE = re.compile(rf"^(?:{'|'.join(TITLE_TYPES)})(?:\([A-Za-z0-9][A-Za-z0-9._/-]*\))?!?: \S")


def title_problem(title: str) -> str | None:
    """Why ``title`` is not a Conventional Commit title dynamo accepts (None: it is)."""
    if TITLE.match(title):
        return None
    return (
        f"title {title!r} is not a Conventional Commit: expected 'type(scope): summary' "
        f"with type one of {', '.join(TITLE_TYPES)}"
    )


def _same(a: Identity, b: Identity) -> bool:
    return a.name == b.name and a.email.lower() == b.email.lower()


def dco_problems(commit: CommitInfo, replaced: Identity | None = None) -> list[str]:
    """DCO problems of one commit: no sign-off line, none by its author, or one left by
    ``replaced`` (the toolkit's series identity, which the person's sign-off replaces)."""
    where = f"commit {commit.sha[:12]} ({commit.subject[:60]})"
    signers = sign_offs(commit.message)
    problems = []
    if not signers:
        problems.append(f"{where} has no line matching {SIGNED_OFF_BY.pattern}")
    elif not any(_same(s, commit.author) for s in signers):
        shown = ", ".join(map(str, signers))
        problems.append(f"{where}: no Signed-off-by matches its author {commit.author} ({shown})")
    if replaced is not None and any(_same(s, replaced) for s in signers):
        problems.append(f"{where} still carries the series identity's sign-off ({replaced})")
    return problems


def drop_sign_off(message: str, identity: Identity) -> str:
    """``message`` without the ``Signed-off-by`` lines of ``identity`` (other lines kept)."""
    kept = [
        line
        for line in message.splitlines()
        if not any(_same(signer, identity) for signer in sign_offs(line))
    ]
    return "\n".join(kept).rstrip() + "\n"
