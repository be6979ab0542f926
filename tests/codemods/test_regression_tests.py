"""The codemods that carry regression tests in the patch, their place in the series,
and the changed-lines scope check for added definitions and new files."""

from __future__ import annotations

import ast

import libcst
import pytest
from libcst.codemod import Codemod, CodemodTest

from codemods import handler_delta, logprobs_helper, regression_tests
from codemods.outcome import Status
from codemods.regression_tests import (
    HANDLER_TEST_MODULE,
    HELPER_TESTS,
    HandlerDeltaTestModule,
    HelperDeltaTests,
)
from codemods.series import SERIES, run_codemod, run_series
from dynpatch.errors import ToolkitError
from dynpatch.format.upstream import lines_changed_in
from tests.fixtures import snippets

# A test module in the shape of dynamo's test_logprobs.py (written for these tests).
TEST_MODULE = """\
# SPDX-License-Identifier: Apache-2.0
from types import SimpleNamespace

import pytest

from dynamo.common.backend.logprobs import (
    extract_from_completion_output,
    parse_logprob_options,
)

pytestmark = [
    pytest.mark.unit,
    pytest.mark.gpu_0,
    pytest.mark.core,
    pytest.mark.pre_merge,
]


def _logprob(lp, rank=1, decoded=None):
    return SimpleNamespace(logprob=lp, rank=rank, decoded_token=decoded)


def test_parse_options():
    assert parse_logprob_options({}) == (None, None)


def test_extract_completion_returns_none_when_logprobs_absent():
    output = SimpleNamespace(token_ids=[1], logprobs=None)
    assert extract_from_completion_output(output, 0) == (None, None)


# ---- prompt logprobs ----


def test_prompt_logprobs():
    assert True
"""

NEW_NAMES = regression_tests.added_names()
PATHS = {
    logprobs_helper.TARGET.path: snippets.HELPER,
    handler_delta.PATH: snippets.HANDLER,
    regression_tests.HELPER_TESTS_PATH: TEST_MODULE,
}


def transform(codemod: type[Codemod], source: str) -> tuple[Status, str, str]:
    status, detail, tree = run_codemod(codemod, "x.py", libcst.parse_module(source))
    return status, detail, tree.code


def top_level_names(source: str) -> list[str]:
    return [
        n.name
        for n in ast.parse(source).body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]


# --- HelperDeltaTests ---------------------------------------------------------------


def test_inserts_the_tests_after_the_last_extract_completion_test() -> None:
    status, _, new = transform(HelperDeltaTests, TEST_MODULE)
    assert status is Status.APPLIED
    names = top_level_names(new)
    anchor = names.index("test_extract_completion_returns_none_when_logprobs_absent")
    assert names[anchor + 1 : anchor + 1 + len(NEW_NAMES)] == list(NEW_NAMES)
    assert names[-1] == "test_prompt_logprobs"  # the next section stays after them
    assert new.startswith(TEST_MODULE.split("# ---- prompt")[0].rstrip("\n"))
    assert "\n\n\n# ---- prompt logprobs ----\n" in new
    compile(new, "test_logprobs.py", "exec")


def test_second_run_is_already_applied() -> None:
    _, _, once = transform(HelperDeltaTests, TEST_MODULE)
    status, detail, twice = transform(HelperDeltaTests, once)
    assert status is Status.ALREADY_APPLIED and twice == once
    assert "already has the delta tests" in detail


def test_already_applied_survives_reformatting() -> None:
    _, _, once = transform(HelperDeltaTests, TEST_MODULE)
    squeezed = once.replace("\n\n\n@pytest.mark.parametrize", "\n\n@pytest.mark.parametrize")
    assert squeezed != once
    assert transform(HelperDeltaTests, squeezed)[0] is Status.ALREADY_APPLIED


@pytest.mark.parametrize(
    ("edit", "found"),
    [
        (
            ("    extract_from_completion_output,\n", ""),
            "no `from dynamo.common.backend.logprobs import extract_from_completion_output`",
        ),
        (("from types import SimpleNamespace\n", ""), "no `from types import SimpleNamespace`"),
        (("def _logprob(", "def _make_logprob("), "no module-level `_logprob(...)` helper"),
        (("    pytest.mark.gpu_0,\n", ""), "`pytestmark` without gpu_0"),
        (
            ("def test_extract_completion_returns", "def test_completion_returns"),
            "no `test_extract_completion_*` test to add after",
        ),
    ],
    ids=["helper-import", "simplenamespace", "logprob-helper", "gpu_0-mark", "anchor"],
)
def test_drift_names_what_is_missing(edit: tuple[str, str], found: str) -> None:
    drifted = TEST_MODULE.replace(*edit)
    assert drifted != TEST_MODULE
    status, detail, new = transform(HelperDeltaTests, drifted)
    assert status is Status.DRIFTED and new == drifted
    assert detail.startswith(f"{regression_tests.HELPER_TESTS_PATH}: (new tests: new_token_ids):")
    assert found in detail


def test_a_clashing_name_with_other_content_is_drift() -> None:
    clash = TEST_MODULE + "\n\nclass _UntouchableTokenIds:\n    pass\n"
    status, detail, _ = transform(HelperDeltaTests, clash)
    assert status is Status.DRIFTED
    assert "_UntouchableTokenIds already defined with other content" in detail


def test_only_some_of_the_tests_present_is_drift() -> None:
    _, _, once = transform(HelperDeltaTests, TEST_MODULE)
    tree = libcst.parse_module(once)
    last = NEW_NAMES[-1]
    body = [
        s for s in tree.body if not (isinstance(s, libcst.FunctionDef) and s.name.value == last)
    ]
    status, detail, _ = transform(HelperDeltaTests, tree.with_changes(body=body).code)
    assert status is Status.DRIFTED and "only some of the new tests" in detail


class TestHelperDeltaTestsCodemod(CodemodTest):
    TRANSFORM = HelperDeltaTests

    def test_before_after(self) -> None:
        head, tail = TEST_MODULE.split("\n\n\n# ---- prompt logprobs ----\n")
        after = f"{head}\n\n\n{HELPER_TESTS}\n\n# ---- prompt logprobs ----\n{tail}"
        self.assertCodemod(TEST_MODULE, after)


# --- HandlerDeltaTestModule ---------------------------------------------------------


def test_creates_the_gpu_test_module_from_nothing() -> None:
    status, _, new = transform(HandlerDeltaTestModule, "")
    assert status is Status.APPLIED and new == HANDLER_TEST_MODULE
    assert new.startswith(
        "# SPDX-FileCopyrightText: Copyright (c) 2026 NVIDIA CORPORATION & AFFILIATES. "
        "All rights reserved.\n# SPDX-License-Identifier: Apache-2.0\n"
    )
    assert "pytest.mark.gpu_1" in new and "pytest.mark.trtllm" in new
    assert "pytest.mark.pre_merge" in new and "pytest.mark.gpu_0" not in new
    assert "test_response_loop_passes_its_delta_to_the_logprob_helper" in top_level_names(new)


def test_existing_module_is_already_applied_or_drift() -> None:
    assert transform(HandlerDeltaTestModule, HANDLER_TEST_MODULE)[0] is Status.ALREADY_APPLIED
    status, detail, _ = transform(HandlerDeltaTestModule, "def test_other():\n    pass\n")
    assert status is Status.DRIFTED and "a file of that name with other content" in detail


# --- the series ----------------------------------------------------------------------


def test_series_adds_both_test_targets_after_the_fix() -> None:
    result = run_series(PATHS.get)
    assert [o.status for o in result.outcomes] == [Status.APPLIED] * 5
    assert result.ok
    assert set(result.changed) == {*PATHS, regression_tests.HANDLER_TEST_PATH}
    assert result.changed[regression_tests.HANDLER_TEST_PATH] == HANDLER_TEST_MODULE
    again = run_series({**PATHS, **result.changed}.get)
    assert [o.status for o in again.outcomes] == [Status.ALREADY_APPLIED] * 5
    assert again.changed == {}


def test_missing_test_module_skips_its_tests_but_not_the_fix() -> None:
    files = {k: v for k, v in PATHS.items() if k != regression_tests.HELPER_TESTS_PATH}
    result = run_series(files.get)
    statuses = [o.status for o in result.outcomes]
    assert statuses == [Status.APPLIED] * 3 + [Status.NOT_APPLICABLE, Status.APPLIED]
    assert result.ok and result.problems() == []
    assert "regression tests are not carried" in result.outcomes[3].detail


def test_drifted_test_module_blocks_the_series() -> None:
    files = dict(PATHS)
    files[regression_tests.HELPER_TESTS_PATH] = TEST_MODULE.replace("    pytest.mark.core,\n", "")
    result = run_series(files.get)
    assert not result.ok and result.outcomes[3].status is Status.DRIFTED
    assert "`pytestmark` without core" in result.problems()[0]


def test_not_applicable_fix_carries_no_tests() -> None:
    files = {
        handler_delta.PATH: snippets.HANDLER_INLINE,
        **{k: v for k, v in PATHS.items() if "tests" in k},
    }
    result = run_series(files.get)
    assert result.not_applicable and result.changed == {}
    assert "no change to test" in result.outcomes[-1].detail


def test_test_steps_come_after_the_fix_steps() -> None:
    carries = [s.carries_tests for s in SERIES]
    assert carries == sorted(carries) and carries[-2:] == [True, True]
    assert [s.creates for s in SERIES].count(True) == 1


# --- scope check ---------------------------------------------------------------------


def test_added_definitions_are_in_scope_and_counted() -> None:
    _, _, new = transform(HelperDeltaTests, TEST_MODULE)
    label = regression_tests.HELPER_TESTS_TARGET.qualname
    counts = lines_changed_in(TEST_MODULE, new, [], added={label: NEW_NAMES})
    added = len(new.splitlines()) - len(TEST_MODULE.splitlines())
    assert counts == {label: (added, 0)}


def test_churn_outside_the_added_definitions_is_refused() -> None:
    _, _, new = transform(HelperDeltaTests, TEST_MODULE)
    churned = new.replace("def test_prompt_logprobs():", "def test_prompt_logprobs():  # x")
    label = regression_tests.HELPER_TESTS_TARGET.qualname
    with pytest.raises(ToolkitError, match=r"changed line\(s\) outside .*refusing unrelated churn"):
        lines_changed_in(TEST_MODULE, churned, [], added={label: NEW_NAMES})


def test_a_declared_addition_that_is_missing_is_refused() -> None:
    with pytest.raises(ToolkitError, match="should add test_missing"):
        lines_changed_in(TEST_MODULE, TEST_MODULE + "\n", [], added={"x": ("test_missing",)})


def test_new_file_counts_every_line_and_must_be_new() -> None:
    label = regression_tests.HANDLER_TEST_TARGET.qualname
    counts = lines_changed_in("", HANDLER_TEST_MODULE, [], new_file=label)
    assert counts == {label: (len(HANDLER_TEST_MODULE.splitlines()), 0)}
    with pytest.raises(ToolkitError, match="expected a new file"):
        lines_changed_in("x = 1\n", HANDLER_TEST_MODULE, [], new_file=label)


def test_function_targets_still_work_positionally() -> None:
    old = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
    new = old.replace("return 1", "return 3")
    assert lines_changed_in(old, new, ["f"]) == {"f": (1, 1)}
    with pytest.raises(ToolkitError):
        lines_changed_in(old, new.replace("return 2", "return 4"), ["f"])
