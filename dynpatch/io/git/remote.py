"""Remotes: the one place the toolkit reads from or writes to another machine's
repository (always with the user's explicit ``--push``)."""

from __future__ import annotations

from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.io.git.run import git_cmd
from dynpatch.io.git.values import check_remote
from dynpatch.io.proc import redact

_PUSH_CONFIG = ("push.followTags=false", "push.gpgSign=false", "push.recurseSubmodules=no")


def remote_url(repo_dir: Path, remote: str) -> str:
    """The URL of the configured remote ``remote``, or ``remote`` itself (a URL or path)."""
    check_remote(remote)
    try:
        return git_cmd(repo_dir, "remote", "get-url", "--", remote).strip()
    except ToolkitError:
        return remote


def remote_branch_tip(repo_dir: Path, remote: str, branch: str, timeout: float) -> str | None:
    """The commit ``branch`` points at on ``remote`` (network), or None if absent."""
    ref = f"refs/heads/{branch}"
    check_remote(remote)
    try:
        out = git_cmd(
            repo_dir, "ls-remote", "--heads", "--end-of-options", remote, ref, timeout=timeout
        )
    except ToolkitError as exc:
        reason = str(exc).split(": ", 1)[-1]
        raise ToolkitError(redact(f"cannot read remote {remote}: {reason}")) from None
    for line in out.splitlines():
        sha, _, name = line.partition("\t")
        if name == ref:
            return sha
    return None


def push_branch(
    repo_dir: Path, remote: str, branch: str, expect: str | None, timeout: float
) -> None:
    """Push local ``branch`` to ``remote`` only while the remote branch is at ``expect``.

    ``expect`` None means the remote branch must not exist. The lease makes the push
    fail, rather than overwrite, if the remote moved since it was inspected.
    """
    ref = f"refs/heads/{branch}"
    check_remote(remote)
    try:
        git_cmd(
            repo_dir,
            "push",
            "-q",
            "--no-verify",
            f"--force-with-lease={ref}:{expect or ''}",
            "--end-of-options",
            remote,
            f"{ref}:{ref}",
            timeout=timeout,
            extra_config=_PUSH_CONFIG,
        )
    except ToolkitError as exc:
        reason = str(exc).split(": ", 1)[-1]
        raise ToolkitError(redact(f"push of {branch} to {remote} failed: {reason}")) from None
