"""The mutation proof's mutants: the baseline with the patched tests (which must fail for the
right reason), and the patched tree whose helper accepts the keyword and ignores it."""

from __future__ import annotations

from pathlib import Path

import libcst as cst

from codemods import shape
from codemods.logprobs_helper import PARAM, TARGET
from dynpatch.errors import ToolkitError
from dynpatch.io import files
from dynpatch.io import git as gitio
from dynpatch.services.trees import Trees


def build_baseline(trees: Trees, test_files: set[str], dest: Path) -> Path:
    patched = {path: (trees.patched / path).read_text() for path in test_files}
    return _clone(trees.baseline, trees.base, dest, patched)


def build_ignored(trees: Trees, dest: Path, keyword: str = PARAM) -> Path:
    """A clone of the patched tree at ``dest`` with the baseline's helper, ignoring ``keyword``."""
    helper = accept_and_ignore((trees.baseline / TARGET.path).read_text(), keyword)
    return _clone(trees.patched, "HEAD", dest, {TARGET.path: helper})


def _clone(tree: Path, ref: str, dest: Path, changed: dict[str, str]) -> Path:
    gitio.clone_at(tree, ref, dest)
    for path, text in changed.items():
        (dest / path).parent.mkdir(parents=True, exist_ok=True)
        files.write_atomic(dest / path, text)
    return dest


def accept_and_ignore(source: str, keyword: str = PARAM) -> str:
    """``source`` with ``keyword=None`` added to the helper's keyword-only parameters."""
    module = cst.parse_module(source)
    fn = shape.find_function(module, TARGET.qualname)
    if fn is None:
        raise ToolkitError(f"{TARGET.path}: no {TARGET.qualname} to mutate")
    param = cst.Param(
        name=cst.Name(keyword),
        annotation=cst.Annotation(cst.parse_expression("object")),
        equal=cst.AssignEqual(),
        default=cst.Name("None"),
    )
    new_fn = shape.add_kwonly_param(fn, param)
    return shape.replace_function(module, TARGET.qualname, new_fn).code
