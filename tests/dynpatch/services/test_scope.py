"""dynpatch.services.scope: changed lines counted per target, and churn outside them refused
(on what the codemods' test steps declare, and on plain functions)."""

from __future__ import annotations

import libcst
import pytest

from codemods import handler_response_loop_tests, helper_delta_tests
from codemods.series import run_codemod, run_series
from dynpatch.errors import ToolkitError
from dynpatch.services.scope import lines_changed_in
from tests.codemods.test_helper_delta_tests import BEFORE as TEST_MODULE  # dynamo's shape
from tests.fixtures import snippets

NEW_NAMES = helper_delta_tests.HelperDeltaTests.added_names()


def added_tests() -> str:
    """test_logprobs.py after the series: the helper's tests added to it."""
    files = {
        "components/src/dynamo/common/backend/logprobs.py": snippets.HELPER,
        "components/src/dynamo/trtllm/request_handlers/handler_base.py": snippets.HANDLER,
        helper_delta_tests.PATH: TEST_MODULE,
    }
    return run_series(files.get).changed[helper_delta_tests.PATH]


# --- the changed-lines scope check on what the test steps declare ---------------------


def test_added_and_rewritten_definitions_are_in_scope_and_counted() -> None:
    new = added_tests()
    label = helper_delta_tests.TARGET.qualname
    counts = lines_changed_in(TEST_MODULE, new, [], added={label: NEW_NAMES})
    added = len(new.splitlines()) - len(TEST_MODULE.splitlines())
    assert counts == {label: (added, 0)}  # dynamo's sentinel untouched


def test_the_import_of_a_declared_name_is_in_scope() -> None:
    old = "import os\nfrom typing import Any\n\n\ndef f(x: Any):\n    return x\n"
    new = old.replace("import Any\n", "import Any, Sequence\n").replace(
        "x: Any", "x: Sequence[Any]"
    )
    assert lines_changed_in(old, new, ["f"], imports={"f": ("Sequence",)}) == {"f": (2, 2)}
    # Without the declaration, or with another import changed, it is churn.
    with pytest.raises(
        ToolkitError, match=r"2 changed line\(s\) outside f \(first at new line 2\)"
    ):
        lines_changed_in(old, new, ["f"])
    churned = new.replace("import os", "import sys")
    with pytest.raises(ToolkitError, match="outside f"):
        lines_changed_in(old, churned, ["f"], imports={"f": ("Sequence",)})


def test_methods_added_to_a_class_or_rewritten_count_as_their_target() -> None:
    old = snippets.HANDLER_TESTS  # dynamo's shape
    step = handler_response_loop_tests
    _, _, tree = run_codemod(step.HandlerResponseLoopTests, step.PATH, libcst.parse_module(old))
    new = tree.code
    label, names = step.TARGET.qualname, step.HandlerResponseLoopTests.added_names()
    counts = lines_changed_in(old, new, [], added={label: names})
    grown = len(new.splitlines()) - len(old.splitlines())
    assert counts == {label: (grown, 0)}  # only additions: nothing of dynamo rewritten
    # A line changed in a method the step did not add is churn (one line out, one in).
    churned = new.replace("return _ConcreteHandler(MagicMock())", "return _ConcreteHandler(None)")
    with pytest.raises(ToolkitError, match=r"2 changed line\(s\) outside"):
        lines_changed_in(old, churned, [], added={label: names})


def test_definitions_are_defs_classes_and_assignments_present_and_unambiguous() -> None:
    assert lines_changed_in("x = 1\n", "x = 1\n\n\nY = [1, 2]\n", [], added={"t": ("Y",)}) == {
        "t": (3, 0)
    }
    with pytest.raises(ToolkitError, match="should add test_missing"):
        lines_changed_in(TEST_MODULE, TEST_MODULE + "\n", [], added={"x": ("test_missing",)})
    two = "class A:\n    def m(self):\n        pass\n\n\nclass B:\n    def m(self):\n        pass\n"
    with pytest.raises(ToolkitError, match="m is defined in 2 classes"):
        lines_changed_in("", two, [], added={"x": ("m",)})


def test_function_targets_count_their_own_changed_lines() -> None:
    old = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
    new = old.replace("return 1", "return 3")
    assert lines_changed_in(old, new, ["f"]) == {"f": (1, 1)}
    with pytest.raises(
        ToolkitError, match=r"2 changed line\(s\) outside f \(first at new line 6\)"
    ):
        lines_changed_in(old, new.replace("return 2", "return 4"), ["f"])
