"""Every git call of the toolkit, by topic: :mod:`~.run` (the one way git is run),
:mod:`~.values` (identities, URLs and refs from the user), :mod:`~.repo` (repositories,
commits, refs, export and the ``git am`` proof), :mod:`~.history` (what the PR step reads
and rewrites, signing), :mod:`~.remote` (reading and pushing to a remote).

The names below are the package's API; callers use ``from dynpatch.io import git``.
"""

from dynpatch.io.git.history import (
    CommitInfo,
    Signing,
    add_trailer,
    amend_head,
    changed_paths,
    commits_between,
    diff_stat,
    range_diff,
    ssh_public_key,
    valid_branch_name,
    verify_commit,
)
from dynpatch.io.git.remote import push_branch, remote_branch_tip, remote_url
from dynpatch.io.git.repo import (
    am,
    clone_at,
    commit_id,
    commit_message,
    commit_objects,
    config_get,
    config_set,
    delete_ref,
    fetch_ref,
    fetch_url,
    format_patch,
    init_repo_with_commit,
    is_ancestor,
    is_git_repo,
    local_changes,
    ref_exists,
    rev_parse,
    reverse_applies,
    tree_of,
    update_ref,
    update_refs,
    worktrees_on,
)
from dynpatch.io.git.run import git_cmd, git_reason
from dynpatch.io.git.values import (
    UPSTREAM_IDENTITY,
    Identity,
    check_ref,
    check_remote,
    check_url,
    parse_identity,
)
from dynpatch.io.proc import redact

__all__ = [
    "UPSTREAM_IDENTITY", "CommitInfo", "Identity", "Signing", "add_trailer", "am",
    "amend_head", "changed_paths", "check_ref", "check_remote", "check_url", "clone_at",
    "commit_id", "commit_message", "commit_objects", "commits_between", "config_get",
    "config_set", "delete_ref", "diff_stat", "fetch_ref", "fetch_url", "format_patch",
    "git_cmd", "git_reason", "init_repo_with_commit", "is_ancestor", "is_git_repo",
    "local_changes", "parse_identity", "push_branch", "range_diff", "redact", "ref_exists",
    "remote_branch_tip", "remote_url", "rev_parse", "reverse_applies", "ssh_public_key",
    "tree_of", "update_ref", "update_refs", "valid_branch_name", "verify_commit",
    "worktrees_on",
]  # fmt: skip
