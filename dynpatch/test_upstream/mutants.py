"""Mutants of the patched tree for the mutation proof: the series' new tests run
against code that lacks the fix.

* ``baseline``: the unpatched tree with the patched test files. The new tests must
  fail there for the right reason (verdict.right_reason).
* ``keyword-ignored``: as ``baseline``, but the helper accepts ``new_token_ids`` and
  ignores it, still copying the history. Failing here shows that the tests catch the
  copy itself, not only the unknown keyword.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst

from codemods import shape
from codemods.logprobs_helper import PARAM, TARGET
from dynpatch.errors import ToolkitError
from dynpatch.io import files
from dynpatch.io import git as gitio
from dynpatch.patch.trees import Trees


def build(trees: Trees, test_files: set[str], dest: Path, *, keyword_ignored: bool) -> Path:
    """A clone of the baseline at ``dest`` with the patched ``test_files``."""
    gitio.clone_at(trees.baseline, trees.base, dest)
    for path in sorted(test_files):
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        files.write_atomic(target, (trees.patched / path).read_text())
    if keyword_ignored:
        helper = dest / TARGET.path
        files.write_atomic(helper, accept_and_ignore(helper.read_text()))
    return dest


def accept_and_ignore(source: str) -> str:
    """``source`` with ``new_token_ids=None`` added to the helper's keyword-only
    parameters and its body unchanged."""
    module = cst.parse_module(source)
    fn = shape.find_function(module, TARGET.qualname)
    if fn is None:
        raise ToolkitError(f"{TARGET.path}: no {TARGET.qualname} to mutate")
    param = cst.Param(
        name=cst.Name(PARAM),
        annotation=cst.Annotation(cst.parse_expression("object")),
        equal=cst.AssignEqual(),
        default=cst.Name("None"),
    )
    new_fn = shape.add_kwonly_param(fn, param)
    return shape.replace_function(module, TARGET.qualname, new_fn).code
