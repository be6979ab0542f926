"""The one-line design's CPU tests (``carried/one_liner_helper_tests.template.py``) in
dynamo's ``test_logprobs.py``: their own stand-in for ``token_ids``, so the module's
``_ExplodingTokenIds`` stays as dynamo wrote it."""

from __future__ import annotations

import libcst as cst

from codemods import helper_delta_tests as delta
from codemods.outcome import Target

TEMPLATE = "one_liner_helper_tests.template.py"
TESTS = delta.tests_in(TEMPLATE)
TARGET = Target(
    path=delta.PATH,
    qualname="(new tests: one-liner)",
    expected=(
        f"a test module with module-level {', '.join(delta.NEEDS)}, marked "
        f"{', '.join(delta.CPU_MARKS)} by `pytestmark`, with `{delta.ANCHOR_PREFIX}*` tests to "
        "add to"
    ),
)


class OneLinerHelperTests(delta.HelperDeltaTests):
    DESCRIPTION = (
        "test_logprobs.py: add CPU tests that extract_from_completion_output reads only the "
        "chunk's ids of the cumulative token_ids, and none when nothing is new."
    )
    TARGET = TARGET
    TEMPLATE = TEMPLATE
    DONE = "the one-liner's tests"

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        return delta.carry(tree, delta.template(TEMPLATE), TARGET, self.DONE)
