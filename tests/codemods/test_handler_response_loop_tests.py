"""HandlerResponseLoopTests: dynamo's own builder, class and comparison test, extended."""

from __future__ import annotations

import ast

from codemods.handler_response_loop_tests import (
    BUILDER,
    COMPARISON,
    STANDIN,
    HandlerResponseLoopTests,
    added_names,
)
from codemods.outcome import AlreadyApplied, NotApplicable
from tests.codemods import support
from tests.fixtures.snippets import HANDLER_TESTS

TEST = "test_interleaved_choices_stream_aligned_logprobs"

# What the builder's loop becomes (the fixture's own output attributes kept, in place).
BUILDER_AFTER = '''\
    def _make_mock_generation_result_sequence(
        self, prompt_logprobs_per_chunk, cached_tokens=mock.sentinel.unset, choices=None
    ):
        """Mock GenerationResult with cumulative output across streaming chunks."""
        results = []
        last_index = len(prompt_logprobs_per_chunk) - 1
        for index, prompt_logprobs in enumerate(prompt_logprobs_per_chunk):
            res = MagicMock()
            res.outputs = []
            # `choices[index]`: one output per choice, with its index, its cumulative ids
            # (a `_CumulativeTokenIds`: copying them fails) and a logprob for each id.
            per_choice = choices[index] if choices else [list(range(42, 43 + index))]
            for choice, token_ids in enumerate(per_choice):
                output = MagicMock()
                output.token_ids = _CumulativeTokenIds(token_ids) if choices else token_ids
                if choices:
                    output.index = choice
                    output.logprobs = [{t: _logprob(-t / 10)} for t in token_ids]
                output.finish_reason = "stop" if index == last_index else None
                output.prompt_logprobs = prompt_logprobs
                res.outputs.append(output)

            res.finished = index == last_index
            results.append(res)
        return results
'''


def _class_methods(source: str, name: str) -> list[str]:
    (cls,) = [n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == name]
    return [n.name for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


class TestHandlerResponseLoopTests(support.TargetedCodemodTest):
    TRANSFORM = HandlerResponseLoopTests

    def patched(self) -> str:
        return self.run_on(HANDLER_TESTS)

    # --- applies ------------------------------------------------------------------

    def test_names_what_it_adds_and_rewrites(self) -> None:
        self.assertEqual(added_names(), (STANDIN, TEST, BUILDER, COMPARISON))

    def test_extends_the_builder_in_place(self) -> None:
        new = self.patched()
        self.assertIn(BUILDER_AFTER, new)
        old_loop = HANDLER_TESTS[HANDLER_TESTS.index(f"    def {BUILDER}(") :]
        self.assertNotIn(old_loop.split("    def _make_context")[0], new)

    def test_one_test_joins_the_class_and_the_stand_in_comes_before_it(self) -> None:
        new = self.patched()
        self.assertEqual(
            _class_methods(new, "TestGenerateLocally"),
            [
                "_make_handler",
                BUILDER,
                "_make_context",
                "test_regular_request_gets_default_priority",
                TEST,
            ],
        )
        names = [n.name for n in ast.parse(new).body if isinstance(n, ast.ClassDef)]
        self.assertEqual(names.index(STANDIN) + 1, names.index("TestGenerateLocally"))
        self.assertEqual(_class_methods(new, "TestDefaultMaxTokens"), ["test_floors_at_one"])

    def test_the_comparison_gets_one_case_after_its_own(self) -> None:
        new = self.patched()
        self.assertTrue(
            new.endswith(
                "    assert wrapper == extract_from_completion_output(output, 0, fallback_to_first_on_missing=True)\n"
                "\n"
                "    direct = extract_from_completion_output(\n"
                "        output, 1, fallback_to_first_on_missing=True, include_bytes=False\n"
                "    )\n"
                "    output.token_ids = _CumulativeTokenIds(output.token_ids)  # the delta, not a copy\n"
                "    assert HandlerBase._extract_logprobs(output, 1, new_token_ids=[12]) == direct\n"
            )
        )

    def test_nothing_else_moves(self) -> None:
        new = self.patched()
        head = HANDLER_TESTS.split("\n\n\nclass TestGenerateLocally:")[0]
        self.assertTrue(new.startswith(head + "\n\n\nclass " + STANDIN))
        for kept in ("class TestDefaultMaxTokens:", "def _logprob(", "def _make_context(self):"):
            tail = HANDLER_TESTS[HANDLER_TESTS.index(kept) :].split("\n\n\n")[0]
            self.assertIn(tail, new)
        compile(new, "test_trtllm_handler_base.py", "exec")

    def test_a_1_5_builder_without_cached_tokens_is_extended_too(self) -> None:
        older = HANDLER_TESTS.replace(
            "        self, prompt_logprobs_per_chunk, cached_tokens=mock.sentinel.unset\n    ):",
            "        self, prompt_logprobs_per_chunk\n    ):",
        )
        self.assertNotEqual(older, HANDLER_TESTS)
        self.assertIn(
            "        self, prompt_logprobs_per_chunk, choices=None\n    ):", self.run_on(older)
        )

    def test_applies_in_the_wheel_layout(self) -> None:
        self.assertEqual(self.run_on(HANDLER_TESTS, filename=self.in_wheel()), self.patched())

    # --- skips --------------------------------------------------------------------

    def test_other_files_are_skipped(self) -> None:
        self.assertNotTarget(HANDLER_TESTS)

    def test_patched_module_is_already_applied(self) -> None:
        self.assertSkips(self.patched(), AlreadyApplied, "already has the response-loop test")

    def test_already_applied_survives_reformatting(self) -> None:
        spaced = self.patched().replace(
            "return len(self._token_ids)", "return len( self._token_ids )"
        )
        self.assertSkips(spaced, AlreadyApplied, "already has")

    def test_without_the_class_the_test_is_not_carried(self) -> None:
        """Before 1.5 the class is TestHealthCheckPriority, with no sequence builder."""
        older = HANDLER_TESTS.replace(
            "class TestGenerateLocally:", "class TestHealthCheckPriority:"
        )
        self.assertSkips(older, NotApplicable, "has no TestGenerateLocally (dynamo added it")

    # --- drift, with the reason -----------------------------------------------------

    def test_a_missing_builder_or_comparison_is_drift(self) -> None:
        self.assertDrifts(
            HANDLER_TESTS.replace(f"def {BUILDER}(", "def _make_results("),
            f"no TestGenerateLocally.{BUILDER} to extend",
        )
        self.assertDrifts(
            HANDLER_TESTS.replace(f"def {COMPARISON}(", "def test_wrapper("),
            f"no module-level {COMPARISON}() to extend",
        )

    def test_a_builder_of_another_shape_is_drift(self) -> None:
        self.assertDrifts(
            HANDLER_TESTS.replace(
                "            res.outputs = [output]\n", "            res.outputs = (output,)\n"
            ),
            f"a loop in TestGenerateLocally.{BUILDER} that is not the one-output shape",
        )
        self.assertDrifts(
            HANDLER_TESTS.replace(
                "enumerate(prompt_logprobs_per_chunk)", "enumerate(prompt_logprobs_per_chunk, 1)"
            ),
            "0 loops over enumerate(prompt_logprobs_per_chunk)",
        )
        self.assertDrifts(
            HANDLER_TESTS.replace(
                "        self, prompt_logprobs_per_chunk, cached_tokens",
                "        self, chunks, cached_tokens",
            ),
            f"TestGenerateLocally.{BUILDER}(self, chunks, cached_tokens)",
        )

    def test_a_comparison_without_its_output_is_drift(self) -> None:
        self.assertDrifts(
            HANDLER_TESTS.replace("    output = SimpleNamespace(", "    out = SimpleNamespace("),
            f"{COMPARISON}() without an `output = ...` to reuse",
        )

    def test_missing_reused_helper_or_import_is_drift(self) -> None:
        self.assertDrifts(
            HANDLER_TESTS.replace("def _make_context(self):", "def _context(self):"),
            "no TestGenerateLocally._make_context to reuse",
        )
        self.assertDrifts(
            HANDLER_TESTS.replace("from unittest.mock import MagicMock\n", ""),
            "no `from unittest.mock import MagicMock`",
        )
        self.assertDrifts(
            HANDLER_TESTS.replace("import pytest\n", "from pytest import mark\n"),
            "no `import pytest`",
        )
        self.assertDrifts(
            HANDLER_TESTS.replace("def _logprob(", "def _lp("), "no module-level `_logprob(...)`"
        )

    def test_unmarked_module_is_drift(self) -> None:
        self.assertDrifts(
            HANDLER_TESTS.replace("    pytest.mark.gpu_1,\n", ""), "`pytestmark` without gpu_1"
        )

    def test_part_of_the_change_or_an_edited_one_is_drift(self) -> None:
        patched = self.patched()
        start = patched.index("    @pytest.mark.asyncio\n    async def test_interleaved")
        end = patched.index("\n\nclass TestDefaultMaxTokens:")
        self.assertDrifts(
            patched[:start].rstrip() + "\n" + patched[end:], "in part or with other content"
        )
        edited = patched.replace('pytest.fail("token_ids history copied")', 'pytest.fail("copied")')
        self.assertDrifts(edited, f"already there: {STANDIN}, {BUILDER}(choices=...)")
