"""The one-line design's CPU test (``carried/one_liner_helper_tests.template.py``) in
dynamo's ``test_logprobs.py``: its own sliceable stand-in for ``token_ids``, so the module's
``_ExplodingTokenIds`` stays as strict as dynamo wrote it."""

from __future__ import annotations

import libcst as cst

from codemods import shape
from codemods.helper_delta_tests import ANCHOR_PREFIX, CPU_MARKS, NEEDS, PATH
from codemods.outcome import AlreadyApplied, Drifted, Target, TargetedCommand

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
        present = shape.top_level_names(tree.body)
        new_stmts = template()
        wanted = shape.top_level_names(new_stmts)
        clashes = [n for n in wanted if n in present]
        if clashes:
            same = all(
                shape.same_code(tree.body[present[n]], shape.code(new_stmts[wanted[n]]))
                for n in clashes
            )
            if same and len(clashes) == len(wanted):
                raise AlreadyApplied(f"{PATH} already has the one-liner's test")
            part = "(only part of the change)" if same else "with other content"
            raise Drifted(TARGET, f"{', '.join(clashes)} already defined {part}")
        lacks = shape.test_module_lacks(tree, NEEDS, CPU_MARKS)  # run as CPU tests by marks
        if lacks:
            raise Drifted(TARGET, lacks)
        anchors = [i for n, i in present.items() if n.startswith(ANCHOR_PREFIX)]
        if not anchors:
            raise Drifted(TARGET, f"no `{ANCHOR_PREFIX}*` test to add after")
        new_stmts[0] = new_stmts[0].with_changes(leading_lines=(cst.EmptyLine(), cst.EmptyLine()))
        at = max(anchors) + 1
        return tree.with_changes(body=[*tree.body[:at], *new_stmts, *tree.body[at:]])
