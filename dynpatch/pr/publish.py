"""Publishing is an explicit act: nothing leaves the machine without ``--push REMOTE``.
A remote branch is replaced only when its tip is one this tool placed (under
``refs/dynpatch/made/``) or an ancestor of the new tip, and the push carries a lease on
the tip inspected. The PR itself is never opened: the person runs the printed line.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.fetch import Checkout
from dynpatch.io import git as gitio
from dynpatch.pr import branch as branches

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

    def describe(self, branch: str) -> str:
        remote = gitio.redact(self.remote)
        if self.before == self.tip:
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


def remote_arg(value: str) -> str:
    """``--push`` as git is to get it: never an option or a remote helper, and a relative
    folder made absolute (git runs in the checkout, not in the current folder)."""
    remote = gitio.check_remote(value)
    path = Path(remote)
    if "/" in remote and "://" not in remote and not path.is_absolute() and path.is_dir():
        return str(path.resolve())
    return remote


def inspect(
    repo: Path, scratch: Path, remote: str, branch: str, tip: str, timeout: float
) -> Pushed:
    """What pushing ``tip`` (a commit of ``scratch``) to ``remote``'s ``branch`` would do,
    found by reading the remote only; refuses when it would overwrite foreign work."""
    before = gitio.remote_branch_tip(repo, remote, branch, timeout)
    ours = before in (None, tip) or gitio.ref_exists(repo, f"{branches.MADE}/{before}")
    if not ours and not gitio.is_ancestor(scratch, before, tip):
        raise ToolkitError(
            f"{gitio.redact(remote)} already has a branch {branch} at {before[:12]}, holding "
            "commits this tool did not make: refusing to overwrite it (nothing pushed, "
            "nothing written); look at it, then push by hand or pick another --branch"
        )
    return Pushed(remote, before, tip)


def push(
    repo: Path, plan: Pushed, name: str, placed: branches.Placed | None, timeout: float
) -> None:
    """Push as ``plan`` says, with a lease on the tip it inspected, and confirm the remote
    has it. A push that fails puts the branch ``placed`` for it back."""
    try:
        if plan.before != plan.tip:
            gitio.push_branch(repo, plan.remote, name, plan.before, timeout)
    except ToolkitError as exc:
        if placed is not None:
            try:
                branches.undo(repo, placed)
            except ToolkitError as undo:
                raise ToolkitError(
                    gitio.redact(f"{exc}; putting {name} back failed too: {undo}")
                ) from None
        raise ToolkitError(
            gitio.redact(f"{exc} (nothing was changed locally: {name} is as it was)")
        ) from None
    after = gitio.remote_branch_tip(repo, plan.remote, name, timeout)
    if after != plan.tip:
        raise ToolkitError(
            f"after the push {gitio.redact(plan.remote)} has {name} at {after}, not {plan.tip[:12]}"
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
    flags = {"repo": repo, "base": "main", "head": f"{owner or 'YOUR_FORK_OWNER'}:{branch}"}
    flags |= {"title": title, "body-file": body}
    return shlex.join(["gh", "pr", "create", *[x for k, v in flags.items() for x in (f"--{k}", v)]])
