"""Copies of a tree's ``dynamo`` package with one edit to the logprob helper: the mutant
(:func:`plant`: the history copy back in the patched helper, unused, so only the cost returns;
the bench gates must fail for it) and the alternative (:func:`drop_copy`: the baseline without
its ``list(...)``, the change a reviewer asks about first; verify and bench run it)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import libcst as cst
import libcst.matchers as m

from codemods import shape
from codemods.logprobs_helper import PARAM, TARGET
from dynpatch.errors import ToolkitError
from dynpatch.io import files

COPY = 'token_ids = list(getattr(output, "token_ids", None) or [])'
ALTERNATIVE = 'token_ids = getattr(output, "token_ids", None) or []'
ANCHOR = f"    if {PARAM} is None:\n"  # the patched helper's branch on the delta
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
    module = cst.parse_module(source)
    fn = shape.find_function(module, TARGET.qualname)
    copy = m.Call(func=m.Name("list")) & m.MatchIfTrue(
        lambda node: shape.code(node) == COPY.split(" = ", 1)[1]
    )
    found = [] if fn is None else m.findall(fn, copy)
    if fn is None or len(found) != 1:
        raise ToolkitError(
            f"{TARGET.path}: expected one {COPY!r} in {TARGET.qualname} to drop the copy "
            f"from, found {len(found)}"
        )
    call = found[0]
    assert isinstance(call, cst.Call)
    new_fn = m.replace(fn, copy, lambda node, _: call.args[0].value)
    assert isinstance(new_fn, cst.FunctionDef)
    return shape.replace_function(module, TARGET.qualname, new_fn).code


def build(src: Path, dest: Path, edit: Callable[[str], str]) -> Path:
    """``dest`` (a ``components/src``) holding ``src/dynamo`` with ``edit`` made to the helper."""
    shutil.copytree(src / "dynamo", dest / "dynamo", symlinks=True)
    helper = dest / TARGET.wheel_path
    files.write_atomic(helper, edit(helper.read_text()))
    return dest
