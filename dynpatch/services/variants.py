"""Copies of a tree's ``dynamo`` package with one edit to the logprob helper: the mutant
(:func:`plant`: the history copy back in the patched helper, unused, so only the cost returns;
the bench gates must fail for it) and the alternative (:func:`drop_copy`: the baseline without
its ``list(...)``, the change a reviewer asks about first; verify and bench run it)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import libcst as cst

from codemods import shape
from codemods.logprobs_helper import PARAM, TARGET
from dynpatch.errors import ToolkitError
from dynpatch.io import files

COPY = 'token_ids = list(getattr(output, "token_ids", None) or [])'
ALTERNATIVE = 'token_ids = getattr(output, "token_ids", None) or []'
ANCHOR = f"    if {PARAM} is None or len({PARAM}) != chunk_length:\n"  # the branch on the delta
MARK = "  # planted by dynpatch: the history copy (a mutant for the bench gate)"


def plant(source: str) -> str:
    """The patched ``logprobs.py`` with the history copy before its delta branch."""
    found = source.count(ANCHOR)
    if found != 1:
        raise ToolkitError(
            f"{TARGET.path}: expected one line {ANCHOR.strip()!r} in the patched helper "
            f"to plant the history copy before, found {found}"
        )
    mutated = source.replace(ANCHOR, f"    {COPY}{MARK}\n{ANCHOR}")
    compile(mutated, TARGET.path, "exec")  # a mutant that does not even parse proves nothing
    return mutated


def drop_copy(source: str) -> str:
    """The baseline ``logprobs.py`` with the helper's one ``list(...)`` copy dropped."""
    fn = shape.find_function(cst.parse_module(source), TARGET.qualname)
    text = cst.Module([]).code_for_node(fn) if fn is not None else ""
    if text.count(COPY) != 1:
        raise ToolkitError(
            f"{TARGET.path}: expected one {COPY!r} in {TARGET.qualname} to drop the copy "
            f"from, found {text.count(COPY)}"
        )
    return source.replace(text, text.replace(COPY, ALTERNATIVE), 1)


def build(src: Path, dest: Path, edit: Callable[[str], str]) -> Path:
    """``dest`` (a ``components/src``) holding ``src/dynamo`` with ``edit`` made to the helper."""
    shutil.copytree(src / "dynamo", dest / "dynamo", symlinks=True)
    helper = dest / TARGET.wheel_path
    files.write_atomic(helper, edit(helper.read_text()))
    return dest
