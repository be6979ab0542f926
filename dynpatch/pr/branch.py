"""The PR branch: ``git am`` of ``patches/series`` onto the pinned base, re-authored and
signed off by the person, optionally signed by git, then placed in the checkout.

Re-signing: after ``git am`` of each patch, the series identity's ``Signed-off-by`` line
is dropped, the person's is added with ``git interpret-trailers``, and
``git commit --amend --reset-author`` makes the person author and committer (signing
with ``-S`` when asked). Nothing else in the message or the tree changes.

The commits are made, checked and compared with an existing branch in a throwaway
clone, so every refusal comes before the checkout is written to. The checkout only
receives the finished commits (objects and refs): its work tree, index and HEAD are never
touched, and a failure at any step leaves its refs as they were.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.fetch import Checkout
from dynpatch.io import git as gitio
from dynpatch.io.git import CommitInfo, Identity, Signing
from dynpatch.pr import rules

# One ref per branch tip this tool placed: the commits it may later replace on a remote.
MADE = "refs/dynpatch/made"
# In the scratch clone only: the checkout's existing branch, to compare the new one with.
_EXISTING = "refs/dynpatch/existing"


def build(
    checkout: Checkout,
    patches: Sequence[Path],
    signer: Identity,
    series_identity: Identity | None,
    signing: Signing | None,
    scratch: Path,
) -> list[CommitInfo]:
    """Make the PR commits in a fresh clone ``scratch`` of the base; return them."""
    gitio.clone_at(checkout.path, checkout.base, scratch)
    for patch in patches:
        try:
            gitio.am(scratch, [patch])
        except ToolkitError as exc:
            raise ToolkitError(
                f"{patch.name} does not apply to the base {checkout.base[:12]}: {exc}"
            ) from None
        message = gitio.commit_message(scratch, "HEAD")
        if series_identity is not None:
            message = rules.drop_sign_off(message, series_identity)
        message = gitio.add_trailer(message, f"Signed-off-by: {signer}")
        gitio.amend_head(scratch, message, signer, signing)
    return gitio.commits_between(scratch, checkout.base, "HEAD")


def check(commits: Sequence[CommitInfo], series_identity: Identity | None) -> list[str]:
    """DCO and title problems of the commits as git recorded them (empty: all pass)."""
    if not commits:
        return ["the series produced no commit"]
    problems = []
    for c in commits:
        problems += rules.dco_problems(c, series_identity)
        if problem := rules.title_problem(c.subject):
            problems.append(f"commit {c.sha[:12]}: {problem}")
    return problems


@dataclass(frozen=True)
class Existing:
    """A branch of the same name already in the checkout, compared with the new one."""

    tip: str
    differences: list[str]  # empty: same trees, messages, authors and signing
    range_diff: str


def existing_tip(scratch: Path, repo: Path, branch: str) -> str | None:
    """The tip of ``branch`` in ``repo`` (None: no such branch), with its commits copied
    into ``scratch`` so that comparing it there writes nothing to ``repo``."""
    if gitio.rev_parse(repo, f"refs/heads/{branch}") is None:
        return None
    gitio.fetch_ref(scratch, repo, f"refs/heads/{branch}", _EXISTING)
    return gitio.rev_parse(scratch, _EXISTING)


def compare(repo: Path, old: str | None, base: str, new_tip: str) -> Existing | None:
    """How the existing branch tip ``old`` differs from ``new_tip`` (None: no branch); both
    are commits of ``repo``, which is only read."""
    if old is None:
        return None
    if not gitio.is_ancestor(repo, base, old):
        return Existing(old, [f"it is not based on {base[:12]}"], "")
    before = gitio.commits_between(repo, base, old)
    after = gitio.commits_between(repo, base, new_tip)
    differences = _differences(before, after)
    shown = gitio.range_diff(repo, base, old, new_tip) if differences else ""
    return Existing(old, differences, shown)


def _differences(before: Sequence[CommitInfo], after: Sequence[CommitInfo]) -> list[str]:
    if len(before) != len(after):
        return [f"{len(before)} commits before, {len(after)} now"]
    found = []
    for i, (a, b) in enumerate(zip(before, after, strict=True), start=1):
        what = [
            label
            for label, differs in (
                ("content", a.tree != b.tree),
                ("message", a.message != b.message),
                (f"author {a.author} -> {b.author}", a.author != b.author),
                (
                    "signature " + ("signed -> unsigned" if a.signed else "unsigned -> signed"),
                    a.signed != b.signed,
                ),
            )
            if differs
        ]
        if what:
            found.append(f"commit {i}: {', '.join(what)}")
    return found


@dataclass(frozen=True)
class Placed:
    """What :func:`place` changed in the checkout, so that :func:`undo` can put it back."""

    branch: str
    old: str | None  # the branch tip before (None: there was no branch)
    new: str
    made: str | None  # the ``MADE`` ref it created (None: that ref was there already)


def place(repo: Path, scratch: Path, branch: str, new: str, old: str | None) -> Placed:
    """Copy the commits of ``scratch`` (whose HEAD is ``new``) into ``repo``, record ``new``
    under ``MADE``, and point ``branch`` at it only if it is still at ``old`` (None:
    absent). A failure leaves the refs as they were."""
    made = f"{MADE}/{new}"
    created = None if gitio.ref_exists(repo, made) else made
    gitio.fetch_ref(repo, scratch, "HEAD", made)
    try:
        reason = f"dynpatch pr: {'replace' if old else 'create'} {branch}"
        gitio.update_ref(repo, f"refs/heads/{branch}", new, old, reason)
    except BaseException:
        if created:
            gitio.delete_ref(repo, created)
        raise
    return Placed(branch, old, new, created)


def undo(repo: Path, placed: Placed) -> None:
    """Put the branch and the ``MADE`` ref back as they were before :func:`place`."""
    ref = f"refs/heads/{placed.branch}"
    if placed.old is None:
        gitio.delete_ref(repo, ref)
    else:
        reason = f"dynpatch pr: put {placed.branch} back (the push failed)"
        gitio.update_ref(repo, ref, placed.old, placed.new, reason)
    if placed.made:
        gitio.delete_ref(repo, placed.made)
