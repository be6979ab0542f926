"""Publishing is an explicit act: nothing leaves the machine without ``--push REMOTE``,
and then only after the checks. The PR itself is never opened: the person runs the
printed ``gh pr create`` line.

A remote branch is replaced only when its tip is a commit this tool placed (recorded
under ``refs/dynpatch/made/``) or an ancestor of the new tip; the push carries a lease
on the tip it inspected, so a remote that moved in between is never overwritten. The
remote is inspected (:func:`inspect`) before anything is written; the push itself
(:func:`push`) comes only after the branch is placed.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.fetch import Checkout
from dynpatch.io import git as gitio
from dynpatch.pr.branch import MADE

UPSTREAM_BASE_BRANCH = "main"
_GITHUB = re.compile(
    r"^(?:https://github\.com/|git@github\.com:|ssh://git@github\.com/)"
    r"(?P<owner>[^/]+)/(?P<repo>[^/]+?)(?:\.git)?/?$"
)


@dataclass(frozen=True)
class Pushed:
    """A push decided by :func:`inspect` (nothing sent yet), carried out by :func:`push`."""

    remote: str
    before: str | None  # the remote branch's tip when inspected (None: absent)
    tip: str

    @property
    def needed(self) -> bool:
        return self.before != self.tip

    def describe(self, branch: str) -> str:
        remote = gitio.redact(self.remote)
        if not self.needed:
            return f"{remote} already has {branch} at {self.tip[:12]}: nothing to push"
        was = f"replacing {self.before[:12]}" if self.before else "new branch"
        return f"pushed {branch} ({self.tip[:12]}) to {remote} ({was})"


def source_problem(checkout: Checkout) -> str | None:
    """Why a branch from this checkout must not be pushed to a dynamo fork (None: fine)."""
    if checkout.source != "pypi":
        return None
    return (
        f"the branch is based on the tree materialised from the PyPI wheel "
        f"({checkout.base[:12]}), not on an upstream commit, so it shares no history with "
        "ai-dynamo/dynamo; rerun with --source git, or --source path --path DIR "
        f"(a dynamo clone at {checkout.release.tag})"
    )


def inspect(
    repo: Path, scratch: Path, remote: str, branch: str, tip: str, timeout: float
) -> Pushed:
    """What pushing ``tip`` to ``remote``'s ``branch`` would do, found by reading the remote
    only; refuses when it would overwrite foreign work. ``scratch`` holds ``tip``'s
    commits, so the check needs nothing written to ``repo`` (whose remotes are used)."""
    before = gitio.remote_branch_tip(repo, remote, branch, timeout)
    if before not in (None, tip) and not may_replace(repo, scratch, before, tip):
        raise ToolkitError(
            f"{gitio.redact(remote)} already has a branch {branch} at {before[:12]}, holding "
            "commits this tool did not make: refusing to overwrite it (nothing pushed, "
            "nothing written); look at it, then push by hand or pick another --branch"
        )
    return Pushed(remote, before, tip)


def push(repo: Path, plan: Pushed, branch: str, timeout: float) -> None:
    """Send ``branch`` as ``plan`` says, with a lease on the tip it inspected: a remote
    that moved since is not overwritten, the push fails instead."""
    if plan.needed:
        gitio.push_branch(repo, plan.remote, branch, plan.before, timeout)


def confirm(repo: Path, plan: Pushed, branch: str, timeout: float) -> None:
    """The remote's ``branch`` is at ``plan.tip`` after the push (raises otherwise)."""
    after = gitio.remote_branch_tip(repo, plan.remote, branch, timeout)
    if after != plan.tip:
        raise ToolkitError(
            f"after the push {gitio.redact(plan.remote)} has {branch} at {after}, "
            f"not {plan.tip[:12]}"
        )


def may_replace(repo: Path, scratch: Path, remote_tip: str, tip: str) -> bool:
    """True when ``remote_tip`` is a tip this tool placed in ``repo``, or already part of
    ``tip`` (a commit of ``scratch``)."""
    return gitio.ref_exists(repo, f"{MADE}/{remote_tip}") or gitio.is_ancestor(
        scratch, remote_tip, tip
    )


def fork_owner(url: str) -> str | None:
    """The GitHub owner a fork URL names (None: not a GitHub URL), also when the URL
    carries a token (``https://user:TOKEN@github.com/...``)."""
    m = _GITHUB.match(url) or _GITHUB.match(gitio.redact(url))
    return m["owner"] if m else None


def gh_command(upstream_url: str, owner: str | None, branch: str, title: str, body: str) -> str:
    """The ``gh pr create`` line the person runs (never run here)."""
    m = _GITHUB.match(upstream_url)
    repo = f"{m['owner']}/{m['repo']}" if m else upstream_url
    head = f"{owner or 'YOUR_FORK_OWNER'}:{branch}"
    return shlex.join(
        [
            "gh",
            "pr",
            "create",
            "--repo",
            repo,
            "--base",
            UPSTREAM_BASE_BRANCH,
            "--head",
            head,
            "--title",
            title,
            "--body-file",
            body,
        ]
    )
