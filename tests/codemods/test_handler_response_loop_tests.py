"""HandlerResponseLoopTests: the carried response-loop tests join dynamo's own class."""

from __future__ import annotations

import ast

from codemods import shape
from codemods.handler_response_loop_tests import (
    HandlerResponseLoopTests,
    added_names,
    carried_methods,
)
from codemods.outcome import AlreadyApplied
from tests.codemods import support
from tests.fixtures.snippets import HANDLER_TESTS

NEW = (
    "_make_mock_choice_stream",
    "_run_response_loop",
    "test_response_loop_passes_its_delta_to_the_logprob_helper",
    "test_interleaved_choices_stream_the_same_chunks_without_history_copies",
)


def _class_methods(source: str, name: str) -> list[str]:
    (cls,) = [n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == name]
    return [n.name for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


class TestHandlerResponseLoopTests(support.TargetedCodemodTest):
    TRANSFORM = HandlerResponseLoopTests

    def patched(self) -> str:
        return self.run_on(HANDLER_TESTS)

    # --- applies ------------------------------------------------------------------

    def test_the_template_carries_the_four_methods(self) -> None:
        self.assertEqual(added_names(), NEW)

    def test_appends_the_methods_to_the_response_loop_class(self) -> None:
        new = self.patched()
        self.assertEqual(
            _class_methods(new, "TestGenerateLocally"),
            ["_make_handler", "_make_context", "test_regular_request_gets_default_priority", *NEW],
        )
        # Nothing else moves: the old text is a prefix, the other class is untouched.
        head, _, tail = HANDLER_TESTS.partition("\n\nclass TestDefaultMaxTokens:")
        self.assertTrue(new.startswith(head + "\n"))
        self.assertTrue(new.endswith("\n\nclass TestDefaultMaxTokens:" + tail))
        self.assertEqual(_class_methods(new, "TestDefaultMaxTokens"), ["test_floors_at_one"])

    def test_the_methods_are_the_templates_own_code(self) -> None:
        new = ast.parse(self.patched())
        (cls,) = [
            n for n in new.body if isinstance(n, ast.ClassDef) and n.name == "TestGenerateLocally"
        ]
        got = {
            n.name: ast.dump(n)
            for n in cls.body
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        for fn in carried_methods():
            self.assertEqual(got[fn.name.value], ast.dump(ast.parse(shape.code(fn)).body[0]))

    def test_the_older_class_name_is_the_target_before_1_5(self) -> None:
        older = HANDLER_TESTS.replace(
            "class TestGenerateLocally:", "class TestHealthCheckPriority:"
        )
        self.assertEqual(
            _class_methods(self.run_on(older), "TestHealthCheckPriority")[-4:], list(NEW)
        )

    def test_applies_in_the_wheel_layout(self) -> None:
        self.assertEqual(self.run_on(HANDLER_TESTS, filename=self.in_wheel()), self.patched())

    # --- skips --------------------------------------------------------------------

    def test_other_files_are_skipped(self) -> None:
        self.assertNotTarget(HANDLER_TESTS)

    def test_patched_module_is_already_applied(self) -> None:
        self.assertSkips(self.patched(), AlreadyApplied, "already has the response-loop tests")

    def test_already_applied_survives_reformatting(self) -> None:
        spaced = self.patched().replace(
            "history_reads.append(len(self))", "history_reads.append( len(self) )"
        )
        self.assertSkips(spaced, AlreadyApplied, "already has")

    # --- drift, with the reason -----------------------------------------------------

    def test_no_response_loop_class_is_drift(self) -> None:
        self.assertDrifts(
            HANDLER_TESTS.replace("class TestGenerateLocally:", "class TestSomethingElse:"),
            "no module-level class TestGenerateLocally or TestHealthCheckPriority",
        )

    def test_missing_reused_helper_is_drift(self) -> None:
        self.assertDrifts(
            HANDLER_TESTS.replace("def _make_context(self):", "def _context(self):"),
            "no TestGenerateLocally._make_context to reuse",
        )

    def test_missing_import_is_drift(self) -> None:
        self.assertDrifts(
            HANDLER_TESTS.replace("from unittest import mock\n", ""),
            "no `from unittest import mock`",
        )
        self.assertDrifts(
            HANDLER_TESTS.replace("import pytest\n", "from pytest import mark\n"),
            "no `import pytest`",
        )

    def test_unmarked_module_is_drift(self) -> None:
        self.assertDrifts(
            HANDLER_TESTS.replace("    pytest.mark.gpu_1,\n", ""),
            "`pytestmark` without gpu_1",
        )

    def test_an_edited_carried_method_is_drift(self) -> None:
        edited = self.patched().replace("        results = []\n", "        results = list()\n")
        self.assertDrifts(edited, "_make_mock_choice_stream already defined with other content")

    def test_some_of_the_tests_present_is_drift(self) -> None:
        patched = self.patched()
        start = patched.index("    @pytest.mark.asyncio\n    async def test_interleaved")
        self.assertDrifts(patched[:start].rstrip() + "\n", "(only some of the new tests)")
