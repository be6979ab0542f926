"""Publishing is an explicit act: nothing leaves the machine without ``--push REMOTE``,
and then only after the checks. The PR itself is never opened: the person runs the
printed ``gh pr create`` line.

A remote branch is replaced only when its tip is a commit this tool placed (recorded
under ``refs/dynpatch/made/``) or an ancestor of the new tip; the push carries a lease
on the tip it inspected, so a remote that moved in between is never overwritten.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from codemods import gitio
from codemods.errors import ToolkitError
from codemods.fetch import Checkout
from codemods.pr.branch import MADE

UPSTREAM_BASE_BRANCH = "main"
_GITHUB = re.compile(
    r"^(?:https://github\.com/|git@github\.com:|ssh://git@github\.com/)"
    r"(?P<owner>[^/]+)/(?P<repo>[^/]+?)(?:\.git)?/?$"
)


@dataclass(frozen=True)
class Pushed:
    remote: str
    before: str | None  # the remote branch's tip before the push
    tip: str

    def describe(self, branch: str) -> str:
        if self.before == self.tip:
            return f"{self.remote} already has {branch} at {self.tip[:12]}: nothing to push"
        was = f"replacing {self.before[:12]}" if self.before else "new branch"
        return f"pushed {branch} ({self.tip[:12]}) to {self.remote} ({was})"


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


def push(repo: Path, remote: str, branch: str, tip: str, timeout: float) -> Pushed:
    """Push ``branch`` (at ``tip``) to ``remote`` unless that would overwrite foreign work."""
    before = gitio.remote_branch_tip(repo, remote, branch, timeout)
    if before == tip:
        return Pushed(remote, before, tip)
    if before is not None and not may_replace(repo, before, tip):
        raise ToolkitError(
            f"{remote} already has a branch {branch} at {before[:12]}, holding commits this "
            "tool did not make: refusing to overwrite it (nothing pushed); look at it, then "
            "push by hand or pick another --branch"
        )
    gitio.push_branch(repo, remote, branch, before, timeout)
    after = gitio.remote_branch_tip(repo, remote, branch, timeout)
    if after != tip:
        raise ToolkitError(f"after the push {remote} has {branch} at {after}, not {tip[:12]}")
    return Pushed(remote, before, tip)


def may_replace(repo: Path, remote_tip: str, tip: str) -> bool:
    """True when ``remote_tip`` is a tip this tool placed, or already part of ``tip``."""
    return gitio.ref_exists(repo, f"{MADE}/{remote_tip}") or gitio.is_ancestor(
        repo, remote_tip, tip
    )


def fork_owner(url: str) -> str | None:
    m = _GITHUB.match(url)
    return m["owner"] if m else None


def gh_command(upstream_url: str, owner: str | None, branch: str, title: str, body: str) -> str:
    """The ``gh pr create`` line the person runs (never run here)."""
    m = _GITHUB.match(upstream_url)
    repo = f"{m['owner']}/{m['repo']}" if m else upstream_url
    head = f"{owner or 'YOUR_FORK_OWNER'}:{branch}"
    return shlex.join(
        ["gh", "pr", "create", "--repo", repo, "--base", UPSTREAM_BASE_BRANCH, "--head", head,
         "--title", title, "--body-file", body]
    )  # fmt: skip
