"""Carry ``carried/helper_delta_tests.template.py`` into dynamo's ``test_logprobs.py`` (1.5.0
on, beside its ``_ExplodingTokenIds``, which is left as dynamo wrote it)."""

from __future__ import annotations

import libcst as cst

from codemods import shape
from codemods.outcome import AlreadyApplied, Drifted, NotApplicable, Target, TargetedCommand

PATH = "components/src/dynamo/common/backend/tests/test_logprobs.py"
CPU_MARKS = ("unit", "gpu_0", "core", "pre_merge")
NEEDS = ("pytest", "extract_from_completion_output", "SimpleNamespace", "_logprob")
ANCHOR_PREFIX = "test_extract_completion_"
SENTINEL = "_ExplodingTokenIds"
SENTINEL_TEST = "test_extract_completion_skips_token_ids_when_logprobs_empty"
TEMPLATE = "helper_delta_tests.template.py"

TARGET = Target(
    path=PATH,
    qualname="(new tests: new_token_ids)",
    expected=(
        f"a test module with module-level {', '.join(NEEDS)} and `{SENTINEL}`, marked "
        f"{', '.join(CPU_MARKS)} by `pytestmark`, with `{ANCHOR_PREFIX}*` tests to add to"
    ),
)


def template(name: str) -> list[cst.BaseStatement]:
    return list(cst.parse_module(shape.carried(name)).body)


def tests_in(name: str) -> tuple[str, ...]:
    """The test functions template ``name`` adds, in its order."""
    return tuple(n for n in shape.top_level_names(template(name)) if n.startswith("test_"))


TESTS = tests_in(TEMPLATE)


class HelperDeltaTests(TargetedCommand):
    DESCRIPTION = (
        "test_logprobs.py: add CPU tests that extract_from_completion_output(..., "
        "new_token_ids=...) reads no id of the history, rejects a delta of another length "
        "and returns (None, None) for an empty one."
    )
    TARGET = TARGET
    TEMPLATE = TEMPLATE
    DONE = "the delta tests"

    @classmethod
    def added_names(cls) -> tuple[str, ...]:
        """The top-level definitions this command adds."""
        return tuple(shape.top_level_names(template(cls.TEMPLATE)))

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        if not isinstance(shape.named(tree.body, cst.ClassDef, SENTINEL), cst.ClassDef):
            if SENTINEL_TEST in shape.top_level_names(tree.body):
                raise Drifted(TARGET, f"{SENTINEL_TEST} without `{SENTINEL}`")
            raise NotApplicable(
                f"{PATH} has no {SENTINEL} (dynamo added it with the empty-logprobs fix, "
                "1.5.0): the helper's tests are not carried"
            )
        return carry(tree, template(self.TEMPLATE), TARGET, self.DONE)


def carry(tree: cst.Module, new: list[cst.BaseStatement], target: Target, done: str) -> cst.Module:
    """``tree`` with ``new`` after its last ``test_extract_completion_*`` test, once the module
    has what they use (run as CPU tests by its marks); AlreadyApplied if all there already."""
    present, wanted = shape.top_level_names(tree.body), shape.top_level_names(new)
    if clashes := [n for n in wanted if n in present]:
        same = all(
            shape.same_code(tree.body[present[n]], shape.code(new[wanted[n]])) for n in clashes
        )
        if same and len(clashes) == len(wanted):
            raise AlreadyApplied(f"{PATH} already has {done}")
        part = "(only part of the change)" if same else "with other content"
        raise Drifted(target, f"{', '.join(clashes)} already defined {part}")
    if lacks := shape.test_module_lacks(tree, NEEDS, CPU_MARKS):
        raise Drifted(target, lacks)
    anchors = [i for n, i in present.items() if n.startswith(ANCHOR_PREFIX)]
    if not anchors:
        raise Drifted(target, f"no `{ANCHOR_PREFIX}*` test to add after")
    new = [new[0].with_changes(leading_lines=(cst.EmptyLine(), cst.EmptyLine())), *new[1:]]
    at = max(anchors) + 1
    return tree.with_changes(body=[*tree.body[:at], *new, *tree.body[at:]])
