"""The PR branch: ``git am`` of the series onto the base in a throwaway clone, each commit
re-authored and signed off by the person (the series identity's sign-off dropped), signed
with their key when asked, checked against dynamo's rules (DCO, a Conventional Commit
title) and compared with an existing branch of that name, whose different commits are kept
as the earlier revision (``<branch>-v1``, ...) as b4 keeps a series' revisions. Only
:func:`place` writes to the checkout, and only refs and objects: never its work tree,
index or HEAD.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.fetch import Checkout
from dynpatch.io import git as gitio
from dynpatch.io.git import CommitInfo, Identity, Signing
from dynpatch.services import precommit

# A ref for a moment: in the scratch clone, the checkout's branch to compare with; in the
# checkout, the new commits on their way to the branch.
_PASSING = "refs/dynpatch/pr"
# Commits this tool placed on a PR branch (a remote branch at one of them is ours).
MADE = "refs/dynpatch/made"
# dynamo's PR-title check: a Conventional Commit of one of these types.
TITLE_TYPES = "feat|fix|docs|test|ci|refactor|perf|chore|build|style|revert"
TITLE = re.compile(rf"^(?:{TITLE_TYPES})(?:\([A-Za-z0-9][A-Za-z0-9._/-]*\))?!?: \S")


@dataclass(frozen=True)
class BranchPlan:
    """The branch as it will be, decided in the scratch clone (nothing placed yet)."""

    tip: str
    old: str | None  # the checkout's branch tip now (None: no branch); == tip: unchanged
    state: str  # created | unchanged ... | replaced ... | revision N ...
    commits: list[CommitInfo]
    revision: int = 1  # the series' revision on this branch (v1, v2, ...)
    keep: str | None = None  # the branch that keeps the earlier revision (its tip: old)
    changes: tuple[str, ...] = ()  # how this revision differs from the one kept
    range_diff: str = ""  # git range-diff -s, earlier revision -> this one
    signatures: tuple[str, ...] = ()  # git's verification line per commit (signed only)


def check_checkout(checkout: Checkout, branch: str) -> None:
    """The checkout is clean, the name is a valid branch, and that branch is not checked out
    (its HEAD would then not be the base, and a work tree would go stale under it)."""
    if changes := gitio.local_changes(checkout.path):
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
    signing: Signing | None,
    force: bool,
    scratch: Path,
) -> BranchPlan:
    """Build, sign (with ``signing``, then ``git verify-commit``) and check the commits in a
    new clone ``scratch``, and compare them with the checkout's branch ``name`` there: a
    different one is kept as the earlier revision (``force``: replaced). The checkout is
    only read."""
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
        gitio.amend_head(scratch, message, signer, signing)
    commits = gitio.commits_between(scratch, checkout.base, "HEAD")
    if problems := check(commits, series_identity):
        more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ToolkitError(f"{problems[0]}{more}")
    old = None
    if gitio.rev_parse(checkout.path, f"refs/heads/{name}") is not None:
        # Its commits copied into the scratch clone: comparing there writes nothing.
        gitio.fetch_ref(scratch, checkout.path, f"refs/heads/{name}", _PASSING)
        old = gitio.rev_parse(scratch, _PASSING)
    kept = _kept(checkout.path, name)
    plan = _decide(scratch, checkout.base, name, commits, old, force, kept)
    if plan.old == plan.tip and kept:  # this revision again: its changes from the kept one
        gitio.fetch_ref(scratch, checkout.path, f"refs/heads/{name}-v{kept}", _PASSING)
        previous = gitio.rev_parse(scratch, _PASSING)
        # The branch's own commits: the ones made here differ (commit time, signature).
        was = _decide(scratch, checkout.base, name, list(plan.commits), previous, False, kept - 1)
        same = ("revision", "keep", "changes", "range_diff")
        plan = dataclasses.replace(plan, **{f: getattr(was, f) for f in same})
    if signing is not None:  # what the branch will hold, each signature checked by git
        lines = [gitio.verify_commit(scratch, c.sha, signing, c.author.email) for c in plan.commits]
        plan = dataclasses.replace(plan, signatures=tuple(lines))
    return plan


def _kept(repo: Path, name: str) -> int:
    """The highest revision N of ``name`` kept as a branch ``name-vN`` (0: none)."""
    found = [n for n in range(1, 100) if gitio.rev_parse(repo, f"refs/heads/{name}-v{n}")]
    return max(found, default=0)


def _decide(
    repo: Path,
    base: str,
    name: str,
    commits: list[CommitInfo],
    old: str | None,
    force: bool,
    kept: int,
) -> BranchPlan:
    """The branch ``name`` is to hold ``commits`` (their tip), unless it already holds the
    same; a different one is kept as ``name-v<N>`` (``force``: replaced, in the reflog).
    ``repo`` holds both tips and is only read."""
    new = commits[-1].sha
    if old is None:
        return BranchPlan(new, None, "created", commits, kept + 1)
    based = gitio.is_ancestor(repo, base, old)
    before = gitio.commits_between(repo, base, old) if based else []
    differences = _differences(before, commits) if based else [f"not based on {base[:12]}"]
    if not differences:
        return BranchPlan(
            old, old, "unchanged (same trees, messages, authors and signing)", before, kept + 1
        )
    earlier = f"{base}..{old}" if based else f"{old}~{len(commits)}..{old}"
    summary = gitio.range_diff(repo, earlier, f"{base}..{new}", summary=True).rstrip()
    what = "; ".join(differences)
    if force:
        state = f"replaced (was {old[:12]}: {what}; old tip in the reflog)"
        return BranchPlan(new, old, state, commits, kept + 1, range_diff=summary)
    keep = f"{name}-v{kept + 1}"
    changes = tuple(_changes(before[:1] or [], commits))
    state = f"v{kept + 2} (v{kept + 1} kept as {keep}: {what})"
    return BranchPlan(new, old, state, commits, kept + 2, keep, (*changes, what), summary)


def _changes(before: Sequence[CommitInfo], after: Sequence[CommitInfo]) -> list[str]:
    """The title change, when the earlier revision's first commit had another."""
    if before and before[0].subject != after[0].subject:
        return [f"title: `{before[0].subject}` -> `{after[0].subject}`"]
    return []


def _differences(before: Sequence[CommitInfo], after: Sequence[CommitInfo]) -> list[str]:
    if len(before) != len(after):
        return [f"{len(before)} commits before, {len(after)} now"]
    found = []
    for i, (a, b) in enumerate(zip(before, after, strict=True), start=1):
        signed = "signed -> unsigned" if a.signed else "unsigned -> signed"
        what = [("content", a.tree != b.tree), ("message", a.message != b.message)]
        what.append((f"author {a.author} -> {b.author}", a.author != b.author))
        what.append((f"signature {signed}", a.signed != b.signed))
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


def place(repo: Path, scratch: Path, name: str, plan: BranchPlan) -> None:
    """Copy the commits of ``scratch`` (whose HEAD is the plan's tip) into ``repo``: the
    branch ``name`` moves to the tip only if it is still at ``plan.old``, the earlier
    revision's branch is made at ``plan.old``, and the tip is recorded as this tool's; all
    in one ref transaction."""
    gitio.fetch_ref(repo, scratch, plan.tip, _PASSING)
    try:
        refs = [(f"refs/heads/{name}", plan.tip, plan.old)]
        if plan.keep is not None and plan.old is not None:
            refs.append((f"refs/heads/{plan.keep}", plan.old, None))
        if not gitio.ref_exists(repo, f"{MADE}/{plan.tip}"):
            refs.append((f"{MADE}/{plan.tip}", plan.tip, None))
        what = f"keep v{plan.revision - 1} and move" if plan.keep else "place"
        gitio.update_refs(repo, refs, f"dynpatch pr: {what} {name}")
    finally:
        gitio.delete_ref(repo, _PASSING)
