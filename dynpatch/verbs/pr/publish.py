"""Publishing is an explicit act: nothing leaves the machine without ``--push REMOTE``, and
only once every check the description cites passed for this base and series. A remote
branch is replaced only when its tip is one this tool placed (``refs/dynpatch/made/``) or
an ancestor of the new tip, and the push carries a lease on the tip read. The PR itself is
never opened here: the person opens it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.fetch import MATERIALISED, Checkout
from dynpatch.io import git as gitio
from dynpatch.verbs.pr.branch import MADE

PUSHED = "refs/dynpatch/pushed"  # tips this tool pushed: a revision a reviewer may have seen


@dataclass(frozen=True)
class Push:
    """A push decided by :func:`inspect` (nothing sent yet), done by :func:`push`."""

    remote: str
    before: str | None  # the remote branch's tip when read (None: absent)
    tip: str

    def describe(self, branch: str) -> str:
        remote = gitio.redact(self.remote)
        if self.before == self.tip:
            return f"{remote} already has {branch} at {self.tip[:12]}: nothing to push"
        was = f"replacing {self.before[:12]}" if self.before else "new branch"
        return f"pushed {branch} ({self.tip[:12]}) to {remote} ({was})"


def wheel_tree(checkout: Checkout) -> bool:
    """The base is the tree laid out from a PyPI wheel, or a clone of one."""
    if checkout.source == "pypi":
        return True
    return (
        gitio.commit_message(checkout.path, checkout.base)
        .split("\n", 1)[0]
        .endswith(f") {MATERIALISED}")
    )


def source_problem(checkout: Checkout) -> str | None:
    """Why a branch from this checkout must not go to a dynamo fork (None: it may)."""
    if not wheel_tree(checkout):
        return None
    return (
        f"the branch is based on the tree materialised from the PyPI wheel "
        f"({checkout.base[:12]}), which shares no history with ai-dynamo/dynamo; rerun on a "
        "clone of it (--source path --path CLONE, or --source git)"
    )


def remote_arg(value: str) -> str:
    """``--push`` as git is to get it: never an option or a remote helper; a relative folder
    made absolute (git runs in the checkout, not in the current folder)."""
    remote = gitio.check_remote(value)
    path = Path(remote)
    if "/" in remote and "://" not in remote and not path.is_absolute() and path.is_dir():
        return str(path.resolve())
    return remote


def inspect(repo: Path, scratch: Path, remote: str, branch: str, tip: str, timeout: float) -> Push:
    """What pushing ``tip`` (a commit of ``scratch``) to ``remote``'s ``branch`` would do,
    found by reading the remote only; refuses when it would overwrite others' work."""
    before = gitio.remote_branch_tip(repo, remote, branch, timeout)
    ours = before in (None, tip) or gitio.ref_exists(repo, f"{MADE}/{before}")
    if not ours and not gitio.is_ancestor(scratch, before or "", tip):
        raise ToolkitError(
            f"{gitio.redact(remote)} already has a branch {branch} at {before[:12]}, holding "
            "commits this tool did not place: refusing to overwrite it (nothing pushed, "
            "nothing written); look at it, then push by hand or pick another --branch"
        )
    return Push(remote, before, tip)


def push(repo: Path, plan: Push, branch: str, timeout: float) -> None:
    """Push as ``plan`` says, with a lease on the tip it read, confirm the remote has it, and
    record the tip as pushed (seen by others)."""
    if plan.before != plan.tip:
        gitio.push_branch(repo, plan.remote, branch, plan.before, timeout)
    after = gitio.remote_branch_tip(repo, plan.remote, branch, timeout)
    if after != plan.tip:
        raise ToolkitError(
            f"after the push {gitio.redact(plan.remote)} has {branch} at {after}, not "
            f"{plan.tip[:12]}"
        )
    if not gitio.ref_exists(repo, f"{PUSHED}/{plan.tip}"):
        gitio.update_refs(repo, [(f"{PUSHED}/{plan.tip}", plan.tip, None)], "pushed")
