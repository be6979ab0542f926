"""Trees that differ from the series on purpose, for the checks that measure against them.

Each is a scratch copy of a tree's ``dynamo`` package with one edit to the helper
``extract_from_completion_output``:

* the mutant (:func:`plant`), the bench gates' own proof: the patched helper copies the
  whole history again, ``token_ids = list(getattr(output, "token_ids", None) or [])``, on
  every call, before it looks at ``new_token_ids``; the result is unused on the delta
  path, so the chunks stay the same and only the cost comes back. ``bench --mutant``
  counts it and requires the gates to fail for it.
* the alternative (:func:`drop_copy`), the change a reviewer asks about first: the
  *baseline* helper with only its ``list(...)`` dropped, so that its later slice
  ``token_ids[cursor:]`` copies just the delta, for every caller, with no new keyword.
  verify replays it against the baseline, and the bench counts it beside the series.
"""

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
    """``source`` (the patched ``logprobs.py``) with the history copy before the branch
    on ``new_token_ids``; a ToolkitError when that branch is not there exactly once."""
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
    """``source`` (the baseline ``logprobs.py``) with the helper's history copy
    ``list(...)`` dropped; a ToolkitError unless the helper has that copy exactly once."""
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
    """A copy of ``src/dynamo`` under ``dest`` with ``edit`` made to the helper; ``dest``
    (a ``components/src`` for the replay)."""
    shutil.copytree(src / "dynamo", dest / "dynamo", symlinks=True)
    helper = dest / TARGET.wheel_path
    files.write_atomic(helper, edit(helper.read_text()))
    return dest
