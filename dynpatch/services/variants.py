"""Copies of a tree's ``dynamo`` package with one edit, per design: the mutant (the patched
tree with the history copy planted back, unused, so only the cost returns: the bench's gates
must miss) and the alternative (the baseline with the other design; verify and bench run it)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import libcst as cst

from codemods import helper_drops_copy, shape
from codemods.logprobs_helper import PARAM, TARGET
from codemods.series import run_series
from dynpatch.designs import DESIGNS, Design
from dynpatch.errors import ToolkitError
from dynpatch.io import files

COPY = helper_drops_copy.COPY  # the helper's copy of the history, before either design
ALTERNATIVE = helper_drops_copy.NO_COPY  # the one line of the one-line design
MARK = "  # planted by dynpatch: the history copy (a mutant for the bench gate)"
# Where each design's patched helper takes the mutant's copy: before the line.
ANCHORS = {
    "delta": f"    if {PARAM} is None:\n",
    "one-liner": "    if not token_ids or num_output_tokens_so_far >= len(token_ids):\n",
}
# read(wheel path) -> {wheel path: new text}
Edit = Callable[[Callable[[str], str]], dict[str, str]]


@dataclass(frozen=True)
class Variant:
    name: str  # "mutant" or "alternative"
    what: str  # one line for the reports
    edit: Edit


def mutant(design: Design) -> Variant:
    what = f"the patched tree with `{COPY}` planted back (its gates must miss)"
    return Variant("mutant", what, _helper(lambda source: plant(source, design)))


def alternative(design: Design) -> Variant:
    """The baseline with the other design: the one line for the delta, the delta for it."""
    if design.keyword:
        what = f"the baseline with `{ALTERNATIVE}`, no keyword (informative)"
        return Variant("alternative", what, _helper(drop_copy))
    delta = DESIGNS["delta"]
    what = f"the baseline with the delta design, `{delta.keyword}` passed by the loop (informative)"
    return Variant("alternative", what, lambda read: made(delta, read))


def _helper(edit: Callable[[str], str]) -> Edit:
    return lambda read: {TARGET.wheel_path: edit(read(TARGET.wheel_path))}


def plant(source: str, design: Design) -> str:
    """``design``'s patched ``logprobs.py`` with the history copy before its anchor line."""
    anchor = ANCHORS[design.name]
    found = source.count(anchor)
    if found != 1:
        raise ToolkitError(
            f"{TARGET.path}: expected one line {anchor.strip()!r} in the patched helper "
            f"to plant the history copy before, found {found}"
        )
    mutated = source.replace(anchor, f"    {COPY}{MARK}\n{anchor}")
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


def made(design: Design, read: Callable[[str], str]) -> dict[str, str]:
    """The files ``design``'s fix (its steps that carry no tests) changes, as it makes
    them (unformatted: run, not reviewed), in the wheel's layout."""
    steps = tuple(s for s in design.steps if not s.carries_tests)
    result = run_series(lambda path: read(path.removeprefix("components/src/")), steps)
    if not result.ok:
        raise ToolkitError(f"the {design.name} design does not apply: {result.problems()[0]}")
    return {path.removeprefix("components/src/"): text for path, text in result.changed.items()}


def build(src: Path, dest: Path, edit: Edit) -> Path:
    """``dest`` (a ``components/src``) holding ``src/dynamo`` with ``edit`` made."""
    shutil.copytree(src / "dynamo", dest / "dynamo", symlinks=True)
    for path, text in edit(lambda p: (dest / p).read_text()).items():
        files.write_atomic(dest / path, text)
    return dest
