"""Every git call of the toolkit, by topic: :mod:`~.run` (the one way git is run, by the
CLI or GitPython), :mod:`~.values` (identities, URLs and refs from the user), :mod:`~.repo`
(repositories, commits, refs, export and the ``git am`` proof), :mod:`~.history` (what the
PR step reads and rewrites).

The names below are the package's API; callers use ``from dynpatch.io import git``.
"""

from dynpatch.io.git.history import (
    CommitInfo,
    add_trailer,
    amend_head,
    changed_paths,
    commits_between,
    range_diff,
    tags_and_date,
)
from dynpatch.io.git.repo import (
    am,
    apply_to_folder,
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
    paths_in_patch,
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
    check_url,
    parse_identity,
)
from dynpatch.io.proc import redact

__all__ = [
    "UPSTREAM_IDENTITY",
    "CommitInfo",
    "Identity",
    "add_trailer",
    "am",
    "amend_head",
    "apply_to_folder",
    "changed_paths",
    "check_ref",
    "check_url",
    "clone_at",
    "commit_id",
    "commit_message",
    "commit_objects",
    "commits_between",
    "config_get",
    "config_set",
    "delete_ref",
    "fetch_ref",
    "fetch_url",
    "format_patch",
    "git_cmd",
    "git_reason",
    "init_repo_with_commit",
    "is_ancestor",
    "is_git_repo",
    "local_changes",
    "parse_identity",
    "paths_in_patch",
    "range_diff",
    "redact",
    "ref_exists",
    "rev_parse",
    "reverse_applies",
    "tags_and_date",
    "tree_of",
    "update_ref",
    "update_refs",
    "worktrees_on",
]
