"""dynamo's DCO rule on a commit message, as a pure check with line numbers.

dynamo's commit-msg hook (``scripts/dco_check.py``, the pre-commit hook "DCO check")
passes a message that has a line matching ``^Signed-off-by: .+ <.+>$``; the DCO check on
their pull requests also wants that sign-off to be the commit's author. The patterns
are :mod:`dynpatch.pr.rules`' (one place for dynamo's contribution rules).
"""

from __future__ import annotations

from dynpatch.format.findings import Finding
from dynpatch.io.git import CommitInfo
from dynpatch.pr import rules

HOOK = "DCO"
PIN = f"`{rules.SIGNED_OFF_BY.pattern}`, by the author"


def check(commit: CommitInfo, label: str) -> list[Finding]:
    """What the rule finds in ``commit``'s message as git recorded it; ``label`` names the
    message in a finding (a message is no file: the patch it comes from, say)."""
    lines = commit.message.rstrip("\n").split("\n")
    signed = [(n, line) for n, line in enumerate(lines, 1) if rules.SIGNED_OFF_BY.match(line)]
    if not signed:
        return [
            Finding(HOOK, label, len(lines),
                    f"no line matching {rules.SIGNED_OFF_BY.pattern} (a DCO sign-off)")
        ]  # fmt: skip
    author = commit.author
    for _n, line in signed:
        if any(
            s.name == author.name and s.email.lower() == author.email.lower()
            for s in rules.sign_offs(line)
        ):
            return []
    first, line = signed[0]
    return [Finding(HOOK, label, first, f"{line!r} is not the author {author}")]
