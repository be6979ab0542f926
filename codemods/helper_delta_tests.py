"""Carry CPU regression tests of the helper's ``new_token_ids`` into dynamo's tests.

``HelperDeltaTests`` inserts the tests in ``carried/helper_delta_tests.template.py``
into ``common/backend/tests/test_logprobs.py``, right after its last
``test_extract_completion_*`` test. They use that module's imports and its
``_logprob(...)`` helper, run on the CPU (the module is marked unit, gpu_0, core,
pre_merge) and fail on the unpatched helper.
"""

from __future__ import annotations

import libcst as cst

from codemods import shape
from codemods.outcome import AlreadyApplied, Drifted, Target, TargetedCommand

PATH = "components/src/dynamo/common/backend/tests/test_logprobs.py"
HELPER_MODULE = "dynamo.common.backend.logprobs"
CPU_MARKS = ("unit", "gpu_0", "core", "pre_merge")
ANCHOR_PREFIX = "test_extract_completion_"

TARGET = Target(
    path=PATH,
    qualname="(new tests: new_token_ids)",
    expected=(
        "a test module that imports extract_from_completion_output from "
        f"{HELPER_MODULE} and SimpleNamespace from types, defines "
        f"`_logprob(...)`, is marked {', '.join(CPU_MARKS)} by `pytestmark`, and has "
        f"`{ANCHOR_PREFIX}*` tests to add to"
    ),
)

# Inserted after the last `test_extract_completion_*` test of test_logprobs.py.
TESTS = shape.carried("helper_delta_tests.template.py")


def _names(body: list[cst.BaseStatement] | tuple[cst.BaseStatement, ...]) -> dict[str, int]:
    """Top-level def/class names -> index in ``body``."""
    return {
        stmt.name.value: i
        for i, stmt in enumerate(body)
        if isinstance(stmt, cst.FunctionDef | cst.ClassDef)
    }


def added_names(template: str = TESTS) -> tuple[str, ...]:
    """The top-level names ``HelperDeltaTests`` adds, in order."""
    return tuple(_names(cst.parse_module(template).body))


class HelperDeltaTests(TargetedCommand):
    DESCRIPTION: str = (
        "test_logprobs.py: add CPU tests of extract_from_completion_output(..., "
        "new_token_ids=...): no history read, window aligned, bail-outs unchanged."
    )
    TARGET = TARGET

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        new_stmts = list(cst.parse_module(TESTS).body)
        wanted = _names(new_stmts)
        present = _names(tree.body)
        clashes = [n for n in wanted if n in present]
        if clashes:
            same = all(
                shape.same_code(tree.body[present[n]], shape.code(new_stmts[wanted[n]]))
                for n in clashes
            )
            if same and len(clashes) == len(wanted):
                raise AlreadyApplied(f"{PATH} already has the delta tests")
            raise Drifted(
                TARGET,
                f"{', '.join(clashes)} already defined "
                + ("(only some of the new tests)" if same else "with other content"),
            )

        if not shape.imports(tree, HELPER_MODULE, "extract_from_completion_output"):
            raise Drifted(
                TARGET, f"no `from {HELPER_MODULE} import extract_from_completion_output`"
            )
        if not shape.imports(tree, "types", "SimpleNamespace"):
            raise Drifted(TARGET, "no `from types import SimpleNamespace`")
        if "_logprob" not in present:
            raise Drifted(TARGET, "no module-level `_logprob(...)` helper")
        why = shape.unmarked(tree, CPU_MARKS)  # they run as CPU tests through these marks
        if why:
            raise Drifted(TARGET, why)
        anchors = [i for n, i in present.items() if n.startswith(ANCHOR_PREFIX)]
        if not anchors:
            raise Drifted(TARGET, f"no `{ANCHOR_PREFIX}*` test to add after")

        at = max(anchors) + 1
        two_blank = (cst.EmptyLine(), cst.EmptyLine())
        new_stmts[0] = new_stmts[0].with_changes(leading_lines=two_blank)
        body = [*tree.body[:at], *new_stmts, *tree.body[at:]]
        return tree.with_changes(body=body)
