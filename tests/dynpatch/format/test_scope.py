"""dynpatch.format.scope: changed lines counted per target, and churn outside them refused
(on what the codemods' test steps declare, and on plain functions)."""

from __future__ import annotations

import pytest

from codemods import handler_response_loop_tests, helper_delta_tests
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


def test_methods_added_to_a_class_count_as_their_target() -> None:
    import libcst

    from codemods.series import run_codemod
    from tests.fixtures.snippets import HANDLER_TESTS

    step = handler_response_loop_tests
    _, _, tree = run_codemod(
        step.HandlerResponseLoopTests, step.PATH, libcst.parse_module(HANDLER_TESTS)
    )
    new = tree.code
    label, names = step.TARGET.qualname, step.added_names()
    counts = lines_changed_in(HANDLER_TESTS, new, [], added={label: names})
    assert counts == {label: (len(new.splitlines()) - len(HANDLER_TESTS.splitlines()), 0)}
    # A line changed in a method the step did not add is churn (one line out, one in).
    churned = new.replace("return _ConcreteHandler(MagicMock())", "return _ConcreteHandler(None)")
    with pytest.raises(ToolkitError, match=r"2 changed line\(s\) outside"):
        lines_changed_in(HANDLER_TESTS, churned, [], added={label: names})


def test_a_method_name_in_two_classes_is_refused() -> None:
    source = (
        "class A:\n    def m(self):\n        pass\n\n\nclass B:\n    def m(self):\n        pass\n"
    )
    with pytest.raises(ToolkitError, match="m is defined in 2 classes"):
        lines_changed_in("", source, [], added={"x": ("m",)})


def test_function_targets_still_work_positionally() -> None:
    old = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
    new = old.replace("return 1", "return 3")
    assert lines_changed_in(old, new, ["f"]) == {"f": (1, 1)}
    with pytest.raises(ToolkitError):
        lines_changed_in(old, new.replace("return 2", "return 4"), ["f"])
