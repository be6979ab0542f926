"""The PR branch: ``git am`` of ``patches/series`` onto the pinned base in a throwaway
clone, each commit re-authored and signed off by the person (the series identity's
sign-off dropped), checked against dynamo's rules (DCO, a Conventional Commit title) and
compared with an existing branch of that name. Only :func:`place` writes to the checkout,
and only a ref and objects: never its work tree, index or HEAD.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.fetch import Checkout
from dynpatch.io import git as gitio
from dynpatch.io.git import CommitInfo, Identity
from dynpatch.services import precommit

# A ref for a moment: in the scratch clone, the checkout's branch to compare with; in the
# checkout, the new commits on their way to the branch.
_PASSING = "refs/dynpatch/pr"
# dynamo's PR-title check: a Conventional Commit of one of these types.
TITLE_TYPES = "feat|fix|docs|test|ci|refactor|perf|chore|build|style|revert"
TITLE = re.compile(rf"^(?:{TITLE_TYPES})(?:\([A-Za-z0-9][A-Za-z0-9._/-]*\))?!?: \S")


@dataclass(frozen=True)
class BranchPlan:
    """The branch as it will be, decided in the scratch clone (nothing placed yet)."""

    tip: str
    old: str | None  # the checkout's branch tip now (None: no branch); == tip: unchanged
    state: str  # created | unchanged ... | replaced ...
    commits: list[CommitInfo]


def check_checkout(checkout: Checkout, branch: str) -> None:
    """The checkout is clean, the name is a valid branch, and that branch is not checked out
    (its HEAD would then not be the base, and a work tree would go stale under it)."""
    changes = gitio.local_changes(checkout.path)
    if changes:
        shown = ", ".join(c[3:] for c in changes[:3]) + (" ..." if len(changes) > 3 else "")
        raise ToolkitError(
            f"{checkout.path} has local changes ({shown}); commit or stash them first "
            "(nothing was written)"
        )
    gitio.check_ref(branch, "--branch")
    if busy := gitio.worktrees_on(checkout.path, branch):
        raise ToolkitError(
            f"{branch} is checked out in {busy[0]}: check out the base there "
            f"(git checkout --detach {checkout.base[:12]}) and rerun"
        )


def make(
    checkout: Checkout,
    name: str,
    patches: Sequence[Path],
    signer: Identity,
    series_identity: Identity,
    force: bool,
    scratch: Path,
) -> BranchPlan:
    """Build and check the commits in a new clone ``scratch``, and compare them with the
    checkout's branch ``name`` there (differs: range-diff shown, ``force`` needed); the
    checkout is only read."""
    gitio.clone_at(checkout.path, checkout.base, scratch)
    for patch in patches:
        try:
            gitio.am(scratch, [patch])
        except ToolkitError as exc:
            raise ToolkitError(
                f"{patch.name} does not apply to the base {checkout.base[:12]}: {exc}"
            ) from None
        message = drop_sign_off(gitio.commit_message(scratch, "HEAD"), series_identity)
        message = gitio.add_trailer(message, f"Signed-off-by: {signer}")
        gitio.amend_head(scratch, message, signer)
    commits = gitio.commits_between(scratch, checkout.base, "HEAD")
    problems = check(commits, series_identity)
    if problems:
        more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ToolkitError(f"{problems[0]}{more}")
    old = None
    if gitio.rev_parse(checkout.path, f"refs/heads/{name}") is not None:
        # Its commits copied into the scratch clone: comparing there writes nothing.
        gitio.fetch_ref(scratch, checkout.path, f"refs/heads/{name}", _PASSING)
        old = gitio.rev_parse(scratch, _PASSING)
    tip, state = _decide(scratch, checkout.base, name, commits[-1].sha, old, force)
    # What the branch will hold (the earlier, identical commits when unchanged).
    return BranchPlan(tip, old, state, gitio.commits_between(scratch, checkout.base, tip))


def _decide(
    repo: Path, base: str, name: str, new: str, old: str | None, force: bool
) -> tuple[str, str]:
    """The tip branch ``name`` is to have and what that does to it; refuses to replace a
    different branch without ``force``. ``repo`` holds both tips and is only read."""
    if old is None:
        return new, "created"
    if not gitio.is_ancestor(repo, base, old):
        differences = [f"it is not based on {base[:12]}"]
    else:
        before = gitio.commits_between(repo, base, old)
        differences = _differences(before, gitio.commits_between(repo, base, new))
        if not differences:
            return old, "unchanged (same trees, messages and authors)"
        print(f"git range-diff {base[:12]} {old[:12]} {new[:12]}:")
        print(gitio.range_diff(repo, base, old, new).rstrip())
    what = "; ".join(differences)
    if not force:
        raise ToolkitError(
            f"branch {name} already exists at {old[:12]} and differs ({what}); "
            "rerun with --force to replace it (nothing was changed)"
        )
    return new, f"replaced (was {old[:12]}: {what}; old tip in the reflog)"


def _differences(before: Sequence[CommitInfo], after: Sequence[CommitInfo]) -> list[str]:
    if len(before) != len(after):
        return [f"{len(before)} commits before, {len(after)} now"]
    found = []
    for i, (a, b) in enumerate(zip(before, after, strict=True), start=1):
        what = [("content", a.tree != b.tree), ("message", a.message != b.message)]
        what.append((f"author {a.author} -> {b.author}", a.author != b.author))
        if shown := [label for label, differs in what if differs]:
            found.append(f"commit {i}: {', '.join(shown)}")
    return found


# --- dynamo's contribution rules: the PR-title check and the DCO check on a pull request


def check(commits: Sequence[CommitInfo], series_identity: Identity | None) -> list[str]:
    """DCO and title problems of the commits as git recorded them (empty: all pass)."""
    if not commits:
        return ["the series produced no commit"]
    problems = []
    for c in commits:
        problems += dco_problems(c, series_identity)
        if problem := title_problem(c.subject):
            problems.append(f"commit {c.sha[:12]}: {problem}")
    return problems


def title_problem(title: str) -> str | None:
    """Why ``title`` is not a Conventional Commit title dynamo accepts (None: it is)."""
    if TITLE.match(title):
        return None
    return (
        f"title {title!r} is not a Conventional Commit: expected 'type(scope): summary' "
        f"with type one of {TITLE_TYPES.replace('|', ', ')}"
    )


def _same(a: Identity, b: Identity) -> bool:
    return a.name == b.name and a.email.lower() == b.email.lower()


def dco_problems(commit: CommitInfo, replaced: Identity | None = None) -> list[str]:
    """dynamo's DCO rule (a sign-off by the author), and no sign-off left by ``replaced``
    (the series identity, which the person's replaces)."""
    where = f"commit {commit.sha[:12]} ({commit.subject[:60]})"
    problems = [f"{where}: {f.message}" for f in precommit.dco_check(commit, where)]
    if replaced is not None and any(
        _same(s, replaced) for s in precommit.sign_offs(commit.message)
    ):
        problems.append(f"{where} still carries the series identity's sign-off ({replaced})")
    return problems


def drop_sign_off(message: str, signer: Identity) -> str:
    """``message`` without the ``Signed-off-by`` lines of ``signer`` (other lines kept)."""
    lines = message.splitlines()
    kept = [ln for ln in lines if not any(_same(s, signer) for s in precommit.sign_offs(ln))]
    return "\n".join(kept).rstrip() + "\n"


def place(repo: Path, scratch: Path, branch: str, new: str, old: str | None) -> None:
    """Copy the commits of ``scratch`` (whose HEAD is ``new``) into ``repo`` and point
    ``branch`` at ``new`` only if it is still at ``old`` (None: absent)."""
    gitio.fetch_ref(repo, scratch, "HEAD", _PASSING)
    try:
        reason = f"dynpatch pr: {'replace' if old else 'create'} {branch}"
        gitio.update_ref(repo, f"refs/heads/{branch}", new, old, reason)
    finally:
        gitio.delete_ref(repo, _PASSING)
