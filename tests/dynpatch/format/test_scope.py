"""dynpatch.format.scope: changed lines counted per target, and churn outside them refused
(on what the codemods' test steps declare, and on plain functions)."""

from __future__ import annotations

import pytest

from codemods import handler_delta_test_module, helper_delta_tests
from codemods.series import run_series
from dynpatch.errors import ToolkitError
from dynpatch.format.scope import lines_changed_in
from tests.codemods.support import TEST_MODULE
from tests.fixtures import snippets

NEW_NAMES = helper_delta_tests.added_names()


def added_tests() -> str:
    """test_logprobs.py after the series: the helper's tests added to it."""
    files = {
        "components/src/dynamo/common/backend/logprobs.py": snippets.HELPER,
        "components/src/dynamo/trtllm/request_handlers/handler_base.py": snippets.HANDLER,
        helper_delta_tests.PATH: TEST_MODULE,
    }
    return run_series(files.get).changed[helper_delta_tests.PATH]


# --- the changed-lines scope check on what the test steps declare ---------------------


def test_added_definitions_are_in_scope_and_counted() -> None:
    new = added_tests()
    label = helper_delta_tests.TARGET.qualname
    counts = lines_changed_in(TEST_MODULE, new, [], added={label: NEW_NAMES})
    added = len(new.splitlines()) - len(TEST_MODULE.splitlines())
    assert counts == {label: (added, 0)}


def test_churn_outside_the_added_definitions_is_refused() -> None:
    churned = added_tests().replace(
        "def test_prompt_logprobs():", "def test_prompt_logprobs():  # x"
    )
    label = helper_delta_tests.TARGET.qualname
    with pytest.raises(ToolkitError, match=r"changed line\(s\) outside .*refusing unrelated churn"):
        lines_changed_in(TEST_MODULE, churned, [], added={label: NEW_NAMES})


def test_a_declared_addition_that_is_missing_is_refused() -> None:
    with pytest.raises(ToolkitError, match="should add test_missing"):
        lines_changed_in(TEST_MODULE, TEST_MODULE + "\n", [], added={"x": ("test_missing",)})


def test_new_file_counts_every_line_and_must_be_new() -> None:
    label = handler_delta_test_module.TARGET.qualname
    module = handler_delta_test_module.MODULE
    counts = lines_changed_in("", module, [], new_file=label)
    assert counts == {label: (len(module.splitlines()), 0)}
    with pytest.raises(ToolkitError, match="expected a new file"):
        lines_changed_in("x = 1\n", module, [], new_file=label)


def test_function_targets_still_work_positionally() -> None:
    old = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
    new = old.replace("return 1", "return 3")
    assert lines_changed_in(old, new, ["f"]) == {"f": (1, 1)}
    with pytest.raises(ToolkitError):
        lines_changed_in(old, new.replace("return 2", "return 4"), ["f"])
