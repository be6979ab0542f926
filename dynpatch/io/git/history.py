"""History as the PR step reads and writes it: commits between two points, trailers,
re-authoring, range-diffs, a base's tags and date."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from dynpatch.io.git.run import git_cmd, opened
from dynpatch.io.git.values import Identity

_NO_SIGNATURES = ("log.showSignature=false",)  # a caller's setting would mix them in


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
    """``message`` with ``trailer`` added at the end (unless already there) by ``git
    interpret-trailers``."""
    options = ("--where=end", "--if-exists=addIfDifferent", "--if-missing=add")
    outside = Path(tempfile.gettempdir())  # no repository's trailer.* settings apply
    return git_cmd(outside, "interpret-trailers", *options, f"--trailer={trailer}", stdin=message)


def amend_head(repo_dir: Path, message: str, author: Identity) -> None:
    """Rewrite HEAD as ``author``'s (author and committer, dated now) with ``message``."""
    options = ("--amend", "-q", "--no-verify", "--reset-author", "--cleanup=whitespace", "-F-")
    git_cmd(repo_dir, "commit", *options, author=author, stdin=message)


def commits_between(repo_dir: Path, base: str, tip: str) -> list[CommitInfo]:
    """The commits in ``base..tip``, oldest first."""
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


def range_diff(repo_dir: Path, *ranges: str) -> str:
    """``git range-diff``: ``base old new`` (two series on one base), or ``old_range
    new_range`` (series on two bases)."""
    return git_cmd(repo_dir, "range-diff", "--no-color", *ranges, extra_config=_NO_SIGNATURES)


def tags_and_date(repo_dir: Path, rev: str) -> tuple[list[str], str]:
    """The tags that point at ``rev``, and its commit date (YYYY-MM-DD)."""
    with opened(repo_dir) as repo:
        commit = repo.commit(rev)
        tags = [t.name for t in repo.tags if t.commit == commit]
        return tags, commit.committed_datetime.date().isoformat()


def changed_paths(repo_dir: Path, base: str, tip: str) -> list[str]:
    out = git_cmd(repo_dir, "diff", "--name-only", base, tip)
    return [ln for ln in out.splitlines() if ln]
