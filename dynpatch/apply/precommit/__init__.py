"""dynamo's pre-commit, hook by hook at its pins, on the files the series touches (isort and
black pass by construction: ``apply`` formats with them; flake8 only on the lines the
series adds, as dynamo's own lines are not the series' to fix) and on its commits (DCO).
Each hook gives a :class:`HookResult`; any finding fails ``apply``."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from dynpatch.apply.precommit import dco, linters, spdx
from dynpatch.apply.precommit.findings import HookResult
from dynpatch.apply.tools import TOOLS
from dynpatch.errors import ToolkitError
from dynpatch.io.git import CommitInfo


def pin(tool: str) -> str:
    """The version of ``tool`` the formatter env holds (upstream's pin)."""
    return next(t.split("==")[1] for t in TOOLS if t.startswith(f"{tool}=="))


def check_files(
    old: Mapping[str, str], new: Mapping[str, str], python: Path, year: int
) -> list[HookResult]:
    """Every file hook on the touched files ``new`` (repository path -> formatted text;
    ``old``: the same paths at the base, '' where new), committed in ``year``."""
    paths = tuple(sorted(new))
    formatted = "whole files, formatted by apply"
    with tempfile.TemporaryDirectory(prefix="dynpatch-hooks-") as tmp:
        root = Path(tmp)
        linters.write_tree(root, new)
        results = [
            HookResult("isort", pin("isort"), paths, scope=formatted),
            HookResult("black", pin("black"), paths, scope=formatted),
            HookResult(
                "flake8",
                pin("flake8"),
                paths,
                tuple(linters.flake8(root, old, new, python)),
                "changed lines",
            ),
            HookResult(
                "ruff",
                f"{pin('ruff')} (`--fix --exit-non-zero-on-fix`)",
                paths,
                tuple(linters.ruff(root, paths, python)),
            ),
            HookResult(
                "codespell", pin("codespell"), paths, tuple(linters.codespell(root, paths, python))
            ),
        ]
    covered = tuple(p for p in paths if spdx.comment_of(p) is not None)
    headers = tuple(f for p in covered for f in spdx.check(p, new[p], year))
    return [*results, HookResult(spdx.HOOK, spdx.PIN, covered, headers)]


def check_commits(commits: Sequence[CommitInfo], patches: Sequence[str]) -> HookResult:
    """The DCO hook on each commit's message as ``git am`` recorded it from the patch of
    the same place in ``patches`` (file names; a finding names the message after it)."""
    if len(commits) != len(patches):
        raise ToolkitError(f"git am made {len(commits)} commits of {len(patches)} patches")
    checked = tuple(f"{name} (commit message)" for name in patches)
    found = tuple(f for c, label in zip(commits, checked, strict=True) for f in dco.check(c, label))
    return HookResult(dco.HOOK, dco.PIN, checked, found, scope="commit messages")
