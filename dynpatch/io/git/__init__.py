"""Every git call of the toolkit; callers use ``from dynpatch.io import git``. Here:
repositories and commits, read and the series commit built (GitPython); materialising,
fetching, refs, ``format-patch``, ``am`` and ``apply`` (the CLI). By topic: :mod:`~.run`,
:mod:`~.values` (user values), :mod:`~.history` (the PR's)."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path

import git as gitpython
from git.index.typ import BaseIndexEntry, IndexEntry
from gitdb.base import IStream

from dynpatch.errors import ToolkitError
from dynpatch.io.git.history import (  # noqa: F401 (the package's API)
    CommitInfo,
    Signing,
    add_trailer,
    amend_head,
    changed_paths,
    commits_between,
    numstat,
    push_branch,
    range_diff,
    remote_branch_tip,
    ssh_public_key,
    tags_and_date,
    verify_commit,
)
from dynpatch.io.git.run import git_cmd, git_reason, objects_env, opened  # noqa: F401
from dynpatch.io.git.values import (  # noqa: F401
    UPSTREAM_IDENTITY,
    Identity,
    check_ref,
    check_remote,
    check_url,
    parse_identity,
)
from dynpatch.io.proc import redact  # noqa: F401


def init_repo_with_commit(
    work_dir: Path, message: str, author: Identity, date: str, tag: str
) -> str:
    git_cmd(work_dir, "init", "-q")
    git_cmd(work_dir, "add", "-A")
    dated = {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    git_cmd(work_dir, "commit", "-q", "--no-verify", "-m", message, author=author, env=dated)
    git_cmd(work_dir, "tag", tag)
    return rev_parse(work_dir, "HEAD") or ""


def commit_id(tree: str, parents: Sequence[str], author: Identity, date: str, message: str) -> str:
    """The id git gives a commit of ``tree`` with these parents, author and committer, ISO
    8601 ``date`` and ``message`` (as ``git commit -m`` stores it), writing nothing."""
    when = datetime.fromisoformat(date)
    stamp = f"{author} {int(when.timestamp())} {when.strftime('%z') or '+0000'}"
    lines = [f"tree {tree}", *(f"parent {p}" for p in parents)]
    data = ("\n".join([*lines, f"author {stamp}", f"committer {stamp}", "", ""]) + message).encode()
    return hashlib.sha1(b"commit %d\0" % len(data) + data).hexdigest()


def fetch_url(url: str, ref: str, dest: Path, timeout: float) -> str:
    """A new repository ``dest`` with ``url``'s ``ref`` checked out detached; its commit id.
    The URL is checked first and never stored (no credential on disk)."""
    check_url(url)
    check_ref(ref)
    dest.mkdir(parents=True, exist_ok=True)
    git_cmd(dest, "init", "-q")
    target = f"+{ref}:refs/dynpatch/fetched"
    args = ("fetch", "-q", "--depth=1", "--no-tags", "--no-write-fetch-head", "--end-of-options")
    slow = ("http.lowSpeedLimit=1000", "http.lowSpeedTime=30")
    failed = f"cannot fetch {ref} from {url}"
    git_cmd(dest, *args, url, target, timeout=timeout, extra_config=slow, failed=failed)
    git_cmd(dest, "checkout", "-q", "--detach", "refs/dynpatch/fetched")
    git_cmd(dest, "update-ref", "-d", "refs/dynpatch/fetched")
    return rev_parse(dest, "HEAD") or ""


def rev_parse(repo_dir: Path, rev: str) -> str | None:
    """The commit ``rev`` names, or None (read in Python: ``rev`` is never an argument)."""
    try:
        with opened(repo_dir) as repo:
            return repo.commit(rev).hexsha
    except ToolkitError:
        return None


def tree_of(repo_dir: Path, rev: str) -> str:
    with opened(repo_dir) as repo:
        return repo.rev_parse(f"{rev}^{{tree}}").hexsha


def commit_message(repo_dir: Path, rev: str) -> str:
    with opened(repo_dir) as repo:
        return str(repo.commit(rev).message)


def local_changes(repo_dir: Path) -> list[str]:
    out = git_cmd(repo_dir, "status", "--porcelain", "--untracked-files=normal")
    return [ln for ln in out.splitlines() if ln.strip()]


def is_git_repo(path: Path) -> bool:
    """``path`` is the top of a git work tree (not merely inside one)."""
    try:
        with opened(path) as repo:
            top = repo.working_tree_dir
    except ToolkitError:
        return False
    return top is not None and Path(top).resolve() == path.resolve()


# The CLI, not GitPython's reader: git resolves includes and `GIT_CONFIG_GLOBAL` too.
def config_set(repo_dir: Path, key: str, value: str) -> None:
    git_cmd(repo_dir, "config", "--local", key, value)


def config_get(repo_dir: Path, key: str) -> str | None:
    return (_or_none(repo_dir, "config", "--get", key) or "").strip() or None  # exit 1: not set


def commit_objects(
    repo_dir: Path,
    base: str,
    files_: Mapping[str, str],
    message: str,
    author: Identity,
    date: str,
    objects: Path | None = None,
) -> str:
    """The id of a commit of ``base`` with ``files_`` (path -> text) over it, signed off by
    ``author``. Only objects are written (into ``objects`` if given): no ref, index or work
    tree changes, so a kill here leaves the repository as it was."""
    with opened(repo_dir, objects) as repo:
        parent = repo.commit(base)
        index = gitpython.IndexFile.new(repo, parent.tree)
        for rel, text in files_.items():
            data = text.encode()
            blob = repo.odb.store(IStream("blob", len(data), io.BytesIO(data))).binsha
            old = index.entries.get((rel, 0))
            entry = BaseIndexEntry((old.mode if old else 0o100644, blob, 0, rel))
            index.entries[(rel, 0)] = IndexEntry.from_base(entry)
        who, when = gitpython.Actor(author.name, author.email), datetime.fromisoformat(date)
        signed = f"{message.rstrip()}\n\nSigned-off-by: {author}\n"
        return gitpython.Commit.create_from_tree(
            repo, index.write_tree(), signed, [parent], False, who, who, when, when
        ).hexsha


def update_refs(
    repo_dir: Path, updates: Sequence[tuple[str, str, str | None]], reason: str
) -> None:
    """Move every ``(ref, new, old)``, all or none, each only while at ``old`` (None: absent)."""
    moves = [f"update {ref} {new} {old or '0' * 40}" for ref, new, old in updates]
    lines = ["start", *moves, "prepare", "commit"]
    git_cmd(repo_dir, "update-ref", "-m", reason, "--stdin", stdin="\n".join(lines) + "\n")


def ref_exists(repo_dir: Path, ref: str) -> bool:
    with opened(repo_dir) as repo:
        return gitpython.Reference(repo, ref, check_path=False).is_valid()


def delete_ref(repo_dir: Path, ref: str) -> None:
    git_cmd(repo_dir, "update-ref", "-d", ref)


def worktrees_on(repo_dir: Path, branch: str) -> list[Path]:
    out = git_cmd(repo_dir, "worktree", "list", "--porcelain")
    blocks = [block.splitlines() for block in out.split("\n\n")]  # a work tree each, path first
    want = f"branch refs/heads/{branch}"
    return [Path(b[0].removeprefix("worktree ")) for b in blocks if want in b]


def is_ancestor(repo_dir: Path, ancestor: str, descendant: str) -> bool:
    return _or_none(repo_dir, "merge-base", "--is-ancestor", ancestor, descendant) is not None


def fetch_ref(repo_dir: Path, source_repo: Path, src_ref: str, dst_ref: str) -> None:
    """Copy ``src_ref`` of a local ``source_repo`` into ``repo_dir`` as ``dst_ref``, only."""
    args = ("fetch", "-q", "--no-tags", "--no-write-fetch-head", "--end-of-options")
    git_cmd(repo_dir, *args, str(source_repo), f"+{src_ref}:{dst_ref}")


def format_patch(
    repo_dir: Path, base: str, head: str, out_dir: Path, objects: Path | None = None
) -> list[Path]:
    """``git format-patch base..head`` into ``out_dir`` in a reproducible form."""
    with opened(repo_dir) as repo:
        env = objects_env(repo, objects) if objects is not None else {}
    options = ("--full-index", "--no-signature", "--no-renames", f"--base={base}", "-o")
    out = git_cmd(repo_dir, "format-patch", *options, str(out_dir), f"{base}..{head}", env=env)
    return [Path(line) for line in out.splitlines() if line.strip()]


def clone_at(src_repo: Path, rev: str, dest: Path) -> None:
    git_cmd(src_repo.parent, "clone", "-q", "--no-checkout", "--", str(src_repo), str(dest))
    git_cmd(dest, "checkout", "-q", "--detach", rev)


def am(repo_dir: Path, patches: Iterable[Path]) -> None:
    """``git am`` the patches, strictly (no three-way fallback); aborted on failure."""
    committer = parse_identity(UPSTREAM_IDENTITY)  # of the applied commits
    try:
        git_cmd(repo_dir, "am", "-q", *map(str, patches), author=committer)
    except ToolkitError as exc:
        git_cmd(repo_dir, "am", "--abort")
        raise ToolkitError(f"patch series does not apply with git am: {exc}") from None


def show_file(repo_dir: Path, rev: str, path: str) -> str | None:
    return _or_none(repo_dir, "show", f"{rev}:{path}")


def _or_none(repo_dir: Path, *args: str) -> str | None:
    """``git args...``'s stdout, or None when git fails (a key not set, a path not there)."""
    try:
        return git_cmd(repo_dir, *args)
    except ToolkitError:
        return None


def apply_check(repo_dir: Path, patch: Path) -> None:
    git_cmd(repo_dir, "apply", "--check", str(patch))


def checkout_detached(repo_dir: Path, rev: str) -> None:
    """Check out ``rev`` (a commit id or a ref this tool made) with a detached HEAD."""
    git_cmd(repo_dir, "checkout", "-q", "--detach", rev)


def tag(repo_dir: Path, name: str, commit: str) -> None:
    git_cmd(repo_dir, "tag", name, commit)


def reverse_applies(repo_dir: Path, patches: Iterable[Path]) -> None:
    for patch in reversed(list(patches)):  # raises at the first that does not reverse
        git_cmd(repo_dir, "apply", "--check", "-R", str(patch))


def paths_in_patch(patch: Path) -> list[str]:
    """The paths ``patch`` touches, as ``git apply --numstat`` reads them."""
    args = ("apply", "--numstat", "-z", "-p1", str(patch))
    out = git_cmd(patch.parent, *args, env=_plain_files(patch.parent))
    return [rec.split("\t", 2)[2] for rec in out.split("\0") if rec.count("\t") >= 2]


def apply_to_folder(folder: Path, patch: Path, strip: int, directory: str = "") -> None:
    """Apply ``patch`` exactly (no fuzz) to the plain files under ``folder``."""
    args = ["apply", f"-p{strip}", "--whitespace=nowarn"]
    if directory:
        args.append(f"--directory={directory}")
    git_cmd(folder, *args, str(patch.resolve()), env=_plain_files(folder))


def _plain_files(cwd: Path) -> dict[str, str]:
    # No repository around the folder may be used: inside a work tree, git apply would
    # silently skip the paths outside the current folder.
    return {"GIT_CEILING_DIRECTORIES": str(cwd.resolve().parent)}
