"""History as the PR step reads and writes it (commits, trailers, signing, range-diffs, tags),
and the one place the toolkit touches another machine's repository, only on ``--push``."""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.io import proc
from dynpatch.io.git.run import git_cmd, opened
from dynpatch.io.git.values import Identity, check_remote

_NO_SIGNATURES = ("log.showSignature=false", "color.ui=false")  # a caller's would mix in
_EMAIL = re.compile(r"[^\s<>\"'/=,]+@[^\s<>\"'/,]+")
_PUSH_CONFIG = ("push.followTags=false", "push.gpgSign=false", "push.recurseSubmodules=no")


@dataclass(frozen=True)
class Signing:
    """How commits are signed, in git's own settings (ssh: the signers verify-commit trusts)."""

    format: str  # openpgp | ssh | x509
    key: str | None  # None: git's default key for the format (openpgp: the committer's)
    allowed_signers: Path | None = None

    def config(self) -> tuple[str, ...]:
        settings = {"gpg.format": self.format, "user.signingkey": self.key or None}
        settings["gpg.ssh.allowedSignersFile"] = self.allowed_signers
        return tuple(f"{k}={v}" for k, v in settings.items() if v is not None)


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    tree: str
    author: Identity
    committer: Identity
    message: str
    signed: bool  # carries a gpgsig header (verified separately)

    @property
    def subject(self) -> str:
        return self.message.split("\n", 1)[0]


def add_trailer(message: str, trailer: str) -> str:
    options = ("--where=end", "--if-exists=addIfDifferent", "--if-missing=add")
    outside = Path(tempfile.gettempdir())  # no repository's trailer.* settings apply
    return git_cmd(outside, "interpret-trailers", *options, f"--trailer={trailer}", stdin=message)


def amend_head(
    repo_dir: Path, message: str, author: Identity, signing: Signing | None = None
) -> None:
    """Rewrite HEAD as ``author``'s (author and committer, dated now) with ``message``."""
    options = ("--amend", "-q", "--no-verify", "--reset-author", "--cleanup=whitespace", "-F-")
    sign, config, failed = "--no-gpg-sign", (), None
    if signing is not None:
        sign, config, key = "-S", signing.config(), signing.key or "(default)"
        failed = f"git could not sign the commit with {signing.format} key {key}"
    args = ("commit", *options, sign)
    git_cmd(repo_dir, *args, author=author, extra_config=config, stdin=message, failed=failed)


def verify_commit(repo_dir: Path, sha: str, signing: Signing, email: str) -> str:
    """``git verify-commit`` (raises when bad or missing, or when the signer git names is not
    ``email``, the commit's identity), then git's account of it, one line."""
    config, failed = (*signing.config(), *_NO_SIGNATURES), f"git verify-commit {sha[:12]}"
    git_cmd(repo_dir, "verify-commit", sha, extra_config=config, failed=failed)
    said = git_cmd(repo_dir, "log", "-1", "--format=%G?%n%GS", sha, extra_config=config)
    status, _, signer = said.partition("\n")
    # ssh: the principal the allowed signers give the key; openpgp, x509: the key's user id.
    if email.lower() not in (e.lower() for e in _EMAIL.findall(signer)):
        who = f"signed by {signer.strip() or 'no one'}, not by {email}, the commit's identity"
        raise ToolkitError(f"{failed}: {who} (nothing was written)")
    args = ("log", "-1", "--show-signature", "--format=", sha)
    shown = git_cmd(repo_dir, *args, extra_config=config)
    lines = [ln.removeprefix("gpg:").strip() for ln in shown.splitlines() if ln.strip()]
    good = [ln for ln in lines if ln.startswith("Good ")]
    return f"[{status}] " + (good[0] if good else (lines[0] if lines else "signature verified"))


def ssh_public_key(key: str) -> str:
    """The public half of an SSH ``user.signingkey`` (literal, .pub file or private key)."""
    if key.startswith(("key::", "ssh-", "ecdsa-", "sk-")):
        return key.removeprefix("key::").strip()
    path = Path(key).expanduser()
    pub = path if path.suffix == ".pub" else path.with_name(path.name + ".pub")
    if pub.is_file():
        return pub.read_text().strip()
    if not path.is_file():
        raise ToolkitError(f"SSH signing key {key} not found")
    keygen = ["ssh-keygen", "-y", "-P", "", "-f", str(path)]
    result = proc.run(keygen, doing="ssh-keygen", timeout=30)
    if result.returncode != 0:
        raise ToolkitError(f"cannot read the public key of {key}: {result.last_line()}")
    return result.stdout.strip()


def commits_between(repo_dir: Path, base: str, tip: str) -> list[CommitInfo]:
    with opened(repo_dir) as repo:
        span = f"{repo.commit(base).hexsha}..{repo.commit(tip).hexsha}"  # ids: never options
        return [
            CommitInfo(
                c.hexsha,
                c.tree.hexsha,
                Identity(str(c.author.name), str(c.author.email)),
                Identity(str(c.committer.name), str(c.committer.email)),
                str(c.message),
                bool(c.gpgsig),
            )
            for c in repo.iter_commits(span, reverse=True)
        ]


def range_diff(repo_dir: Path, *ranges: str, summary: bool = False) -> str:
    """``git range-diff``: ``base old new`` (two series on one base), or ``old_range
    new_range`` (series on two bases); ``summary``: one line per commit pair (``-s``)."""
    options = ("--no-color", *(("-s",) if summary else ()))
    return git_cmd(repo_dir, "range-diff", *options, *ranges, extra_config=_NO_SIGNATURES)


def tags_and_date(repo_dir: Path, rev: str) -> tuple[list[str], str]:
    with opened(repo_dir) as repo:
        commit = repo.commit(rev)
        tags = [t.name for t in repo.tags if t.commit == commit]
        return tags, commit.committed_datetime.date().isoformat()


def numstat(repo_dir: Path, base: str, tip: str) -> list[tuple[int, int, str]]:
    """(added, removed, path) of each file ``base..tip`` changes (a binary file: 0 and 0)."""
    out = git_cmd(repo_dir, "diff", "--numstat", "--no-renames", base, tip)
    rows = [line.split("\t", 2) for line in out.splitlines()]
    return [(int(a) if a.isdigit() else 0, int(r) if r.isdigit() else 0, p) for a, r, p in rows]


def changed_paths(repo_dir: Path, base: str, tip: str) -> list[str]:
    return [ln for ln in git_cmd(repo_dir, "diff", "--name-only", base, tip).splitlines() if ln]


def remote_branch_tip(repo_dir: Path, remote: str, branch: str, timeout: float) -> str | None:
    """The commit ``branch`` points at on ``remote`` (network), or None if absent."""
    ref = f"refs/heads/{branch}"
    check_remote(remote)
    args = ("ls-remote", "--heads", "--end-of-options", remote, ref)
    out = git_cmd(repo_dir, *args, timeout=timeout, failed=f"cannot read remote {remote}")
    rows = (line.partition("\t") for line in out.splitlines())
    return next((sha for sha, _, name in rows if name == ref), None)


def push_branch(
    repo_dir: Path, remote: str, branch: str, expect: str | None, timeout: float
) -> None:
    """Push ``branch`` to ``remote`` only while the remote branch is at ``expect`` (None:
    absent): the lease fails the push, rather than overwrite, if the remote moved meanwhile."""
    ref = f"refs/heads/{branch}"
    check_remote(remote)
    lease = f"--force-with-lease={ref}:{expect or ''}"
    args = ("push", "-q", "--no-verify", lease, "--end-of-options", remote, f"{ref}:{ref}")
    failed = f"push of {branch} to {remote} failed"
    git_cmd(repo_dir, *args, timeout=timeout, extra_config=_PUSH_CONFIG, failed=failed)
