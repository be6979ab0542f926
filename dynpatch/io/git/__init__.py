"""Every git call of the toolkit; callers use ``from dynpatch.io import git``. By topic:
:mod:`~.run`, :mod:`~.values` (user values), :mod:`~.repo`, :mod:`~.history` (the PR's)."""

# ruff: noqa: F401 (the names below are the package's API)
from dynpatch.io.git.history import (
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
from dynpatch.io.git.repo import (
    am,
    apply_check,
    apply_to_folder,
    checkout_detached,
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
    show_file,
    tag,
    tree_of,
    update_refs,
    worktrees_on,
)
from dynpatch.io.git.run import git_reason
from dynpatch.io.git.values import (
    UPSTREAM_IDENTITY,
    Identity,
    check_ref,
    check_remote,
    check_url,
    parse_identity,
)
from dynpatch.io.proc import redact
