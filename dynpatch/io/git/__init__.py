"""Every git call of the toolkit, by topic: :mod:`~.run` (the one way git is run, by the
CLI or GitPython), :mod:`~.values` (identities, URLs and refs from the user), :mod:`~.repo`
(repositories, commits, refs, export and the ``git am`` proof), :mod:`~.history` (what the
PR step reads and rewrites, signing, remotes).

The names below are the package's API; callers use ``from dynpatch.io import git``.
"""

from dynpatch.io.git.history import (
    CommitInfo as CommitInfo,
)
from dynpatch.io.git.history import (
    Signing as Signing,
)
from dynpatch.io.git.history import (
    add_trailer as add_trailer,
)
from dynpatch.io.git.history import (
    amend_head as amend_head,
)
from dynpatch.io.git.history import (
    changed_paths as changed_paths,
)
from dynpatch.io.git.history import (
    commits_between as commits_between,
)
from dynpatch.io.git.history import (
    push_branch as push_branch,
)
from dynpatch.io.git.history import (
    range_diff as range_diff,
)
from dynpatch.io.git.history import (
    remote_branch_tip as remote_branch_tip,
)
from dynpatch.io.git.history import (
    remote_url as remote_url,
)
from dynpatch.io.git.history import (
    ssh_public_key as ssh_public_key,
)
from dynpatch.io.git.history import (
    tags_and_date as tags_and_date,
)
from dynpatch.io.git.history import (
    valid_branch_name as valid_branch_name,
)
from dynpatch.io.git.history import (
    verify_commit as verify_commit,
)
from dynpatch.io.git.repo import (
    am as am,
)
from dynpatch.io.git.repo import (
    apply_to_folder as apply_to_folder,
)
from dynpatch.io.git.repo import (
    clone_at as clone_at,
)
from dynpatch.io.git.repo import (
    commit_id as commit_id,
)
from dynpatch.io.git.repo import (
    commit_message as commit_message,
)
from dynpatch.io.git.repo import (
    commit_objects as commit_objects,
)
from dynpatch.io.git.repo import (
    config_get as config_get,
)
from dynpatch.io.git.repo import (
    config_set as config_set,
)
from dynpatch.io.git.repo import (
    delete_ref as delete_ref,
)
from dynpatch.io.git.repo import (
    fetch_ref as fetch_ref,
)
from dynpatch.io.git.repo import (
    fetch_url as fetch_url,
)
from dynpatch.io.git.repo import (
    format_patch as format_patch,
)
from dynpatch.io.git.repo import (
    init_repo_with_commit as init_repo_with_commit,
)
from dynpatch.io.git.repo import (
    is_ancestor as is_ancestor,
)
from dynpatch.io.git.repo import (
    is_git_repo as is_git_repo,
)
from dynpatch.io.git.repo import (
    local_changes as local_changes,
)
from dynpatch.io.git.repo import (
    paths_in_patch as paths_in_patch,
)
from dynpatch.io.git.repo import (
    ref_exists as ref_exists,
)
from dynpatch.io.git.repo import (
    rev_parse as rev_parse,
)
from dynpatch.io.git.repo import (
    reverse_applies as reverse_applies,
)
from dynpatch.io.git.repo import (
    tree_of as tree_of,
)
from dynpatch.io.git.repo import (
    update_ref as update_ref,
)
from dynpatch.io.git.repo import (
    update_refs as update_refs,
)
from dynpatch.io.git.repo import (
    worktrees_on as worktrees_on,
)
from dynpatch.io.git.run import (
    git_cmd as git_cmd,
)
from dynpatch.io.git.run import (
    git_reason as git_reason,
)
from dynpatch.io.git.values import (
    UPSTREAM_IDENTITY as UPSTREAM_IDENTITY,
)
from dynpatch.io.git.values import (
    Identity as Identity,
)
from dynpatch.io.git.values import (
    check_ref as check_ref,
)
from dynpatch.io.git.values import (
    check_remote as check_remote,
)
from dynpatch.io.git.values import (
    check_url as check_url,
)
from dynpatch.io.git.values import (
    parse_identity as parse_identity,
)
from dynpatch.io.proc import (
    redact as redact,
)
