"""The one-line design's CPU test (``carried/one_liner_helper_tests.template.py``) in
dynamo's ``test_logprobs.py``: its own sliceable stand-in for ``token_ids``, so the module's
``_ExplodingTokenIds`` stays as strict as dynamo wrote it."""

from __future__ import annotations

import libcst as cst

from codemods import helper_delta_tests, shape
from codemods.helper_delta_tests import ANCHOR_PREFIX, CPU_MARKS, NEEDS, PATH
from codemods.outcome import AlreadyApplied, Target, TargetedCommand

TEMPLATE = "one_liner_helper_tests.template.py"
TARGET = Target(
    path=PATH,
    qualname="(new tests: one-liner)",
    expected=(
        f"a test module with module-level {', '.join(NEEDS)}, marked {', '.join(CPU_MARKS)} "
        f"by `pytestmark`, with `{ANCHOR_PREFIX}*` tests to add to"
    ),
)


def template() -> list[cst.BaseStatement]:
    return list(cst.parse_module(shape.carried(TEMPLATE)).body)


class OneLinerHelperTests(TargetedCommand):
    DESCRIPTION = (
        "test_logprobs.py: add a CPU test that extract_from_completion_output gives the "
        "same chunk from cumulative token_ids that fail when copied."
    )
    TARGET = TARGET

    @classmethod
    def added_names(cls) -> tuple[str, ...]:
        """The top-level definitions this command adds."""
        return tuple(shape.top_level_names(template()))

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        new_stmts = template()
        clashes, same, whole = helper_delta_tests.clashing(tree, new_stmts)
        if whole:
            raise AlreadyApplied(f"{PATH} already has the one-liner's test")
        if clashes:
            raise helper_delta_tests.drift(clashes, same, TARGET)
        return helper_delta_tests.added_after_tests(tree, new_stmts, TARGET)
