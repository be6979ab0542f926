"""HandlerResponseLoopTests: dynamo's mock builder, test class and comparison test grow
the carried response-loop test."""

from __future__ import annotations

from textwrap import dedent

from codemods.handler_response_loop_tests import BUILDER as BUILDER_NAME
from codemods.handler_response_loop_tests import TEMPLATE, HandlerResponseLoopTests, added_names
from codemods.outcome import AlreadyApplied, NotApplicable
from tests.codemods.support import TargetedCodemodTest

BEFORE = """
    from types import SimpleNamespace
    from unittest.mock import MagicMock

    import pytest

    from dynamo.common.backend.logprobs import extract_from_completion_output
    from dynamo.trtllm.request_handlers.handler_base import HandlerBase

    pytestmark = [pytest.mark.trtllm, pytest.mark.pre_merge, pytest.mark.gpu_1]


    class TestGenerateLocally:
        def _make_handler(self):
            return MagicMock()

        def _make_mock_generation_result_sequence(self, prompt_logprobs_per_chunk, cached_tokens=None):
            results = []
            for index, prompt_logprobs in enumerate(prompt_logprobs_per_chunk):
                output = MagicMock()
                output.token_ids = list(range(42, 43 + index))
                output.prompt_logprobs = prompt_logprobs

                res = MagicMock()
                res.outputs = [output]
                results.append(res)
            return results

        def _make_context(self):
            return MagicMock()


    def _logprob(lp):
        return SimpleNamespace(logprob=lp)


    def test_trtllm_handler_matches_shared():
        output = SimpleNamespace(token_ids=[11, 12], logprobs=[{11: _logprob(-0.1)}])
        assert HandlerBase._extract_logprobs(output, 0) == extract_from_completion_output(output, 0)
    """
# What the command writes of its own: the builder, one output per choice (in its class).
BUILDER = """\
    def _make_mock_generation_result_sequence(self, prompt_logprobs_per_chunk, cached_tokens=None, choices=None):
        results = []
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
                output.prompt_logprobs = prompt_logprobs
                res.outputs.append(output)

            results.append(res)
        return results

"""
# The carried template's three parts land before the class, in it, and in the comparison.
STANDIN, METHODS, CASE = (
    TEMPLATE.replace("\n\n\nclass TestGenerateLocally:\n", "\0")
    .replace("\n\n\ndef test_trtllm_handler_matches_shared():\n", "\0")
    .split("\0")
)
_BEFORE = dedent(BEFORE)
OLD_BUILDER = _BEFORE[_BEFORE.index("    def _make_mock") : _BEFORE.index("    def _make_context")]
AFTER = (
    _BEFORE.replace("class TestGenerateLocally:", f"{STANDIN}\n\n\nclass TestGenerateLocally:")
    .replace(OLD_BUILDER, BUILDER)
    .replace(
        "        return MagicMock()\n\n\ndef _logprob",
        f"        return MagicMock()\n\n{METHODS}\n\n\ndef _logprob",
    )
    + f"\n{CASE}"
)


class TestHandlerResponseLoopTests(TargetedCodemodTest):
    TRANSFORM = HandlerResponseLoopTests

    def test_grows_the_builder_the_class_and_the_comparison(self) -> None:
        self.assertApplies(BEFORE, AFTER)
        names = "_CumulativeTokenIds test_interleaved_choices_stream_aligned_logprobs"
        self.assertEqual(
            added_names(), (*names.split(), BUILDER_NAME, "test_trtllm_handler_matches_shared")
        )

    def test_a_1_5_builder_without_cached_tokens_grows_too(self) -> None:
        new = self.run_on(BEFORE.replace(", cached_tokens=None", ""))
        self.assertIn("(self, prompt_logprobs_per_chunk, choices=None):", new)

    def test_already_applied_is_skipped_however_formatted(self) -> None:
        self.assertSkips(AFTER, AlreadyApplied, "already has the response-loop test")
        spaced = AFTER.replace("return len(self._token_ids)", "return len( self._token_ids )")
        self.assertSkips(spaced, AlreadyApplied, "already has the response-loop test")

    def test_without_the_class_the_test_is_not_carried(self) -> None:
        older = BEFORE.replace("class TestGenerateLocally:", "class TestHealthCheckPriority:")
        self.assertSkips(older, NotApplicable, "has no TestGenerateLocally (dynamo added it")

    def test_drift(self) -> None:
        builder, comparison = "_make_mock_generation_result_sequence", "matches_shared("
        cases = [
            (f"def {builder}(", "def _results(", f"no TestGenerateLocally.{builder} to extend"),
            (comparison, "wrapper(", "no module-level test_trtllm_handler_matches_shared() to"),
            ("res.outputs = [output]", "res.outputs = (output,)", "not the one-output shape"),
            ("(prompt_logprobs_per_chunk):", "(prompt_logprobs_per_chunk, 1):", "0 loops over"),
            ("(self, prompt_logprobs_per_chunk, c", "(self, chunks, c", f"{builder}(self, chunks,"),
            (", cached_tokens=None)", ", *args)", f"{builder}(self, prompt_logprobs_per_chunk)"),
            (
                "    output = SimpleNamespace(",
                "    out = SimpleNamespace(",
                "without an `output = ",
            ),
            (
                "def _make_context(",
                "def _context(",
                "no TestGenerateLocally._make_context to reuse",
            ),
            ("from unittest.mock import MagicMock\n", "", "no module-level `MagicMock`"),
            ("import pytest\n", "from pytest import mark\n", "no module-level `pytest`"),
            ("def _logprob(", "def _lp(", "no module-level `_logprob`"),
            (", pytest.mark.gpu_1", "", "`pytestmark` without gpu_1"),
        ]
        for old, new, found in cases:
            with self.subTest(found):
                self.assertDrifts(BEFORE, found, (old, new))
        # Part of the change, or the change with other content.
        test = METHODS[METHODS.index("    @pytest.mark.asyncio") :]
        self.assertDrifts(AFTER, "in part or with other content", (test, ""))
        unused = ("_CumulativeTokenIds(token_ids) if choices else token_ids", "token_ids")
        self.assertDrifts(AFTER, "in part or with other content", unused)  # a builder without it
        edited = ('pytest.fail("token_ids history copied")', 'pytest.fail("copied")')
        there = f"already there: _CumulativeTokenIds, {builder}(choices=...)"
        self.assertDrifts(AFTER, there, edited)
