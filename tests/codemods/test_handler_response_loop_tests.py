"""HandlerResponseLoopTests: dynamo's mock builder, test class and comparison test grow
the carried response-loop test."""

from __future__ import annotations

from textwrap import dedent

from codemods.handler_response_loop_tests import TESTS, HandlerResponseLoopTests
from codemods.outcome import AlreadyApplied, NotApplicable
from codemods.shape import carried
from tests.codemods.support import TargetedCodemodTest

TEMPLATE = carried(HandlerResponseLoopTests.TEMPLATE)
BEFORE = """
    from types import SimpleNamespace
    from unittest import mock
    from unittest.mock import MagicMock

    import pytest

    from dynamo.common.backend.logprobs import extract_from_completion_output
    from dynamo.trtllm.request_handlers.handler_base import HandlerBase

    pytestmark = [pytest.mark.trtllm, pytest.mark.pre_merge, pytest.mark.gpu_1]


    class TestGenerateLocally:
        def _make_handler(self):
            return MagicMock()

        def _make_context(self):
            return MagicMock()


    def _logprob(lp):
        return SimpleNamespace(logprob=lp)


    def test_trtllm_handler_matches_shared():
        output = SimpleNamespace(token_ids=[11, 12], logprobs=[{11: _logprob(-0.1)}])
        assert HandlerBase._extract_logprobs(output, 0) == extract_from_completion_output(output, 0)
    """
# The carried template's three parts land before the class, in it, and in the comparison.
STANDIN, METHODS, CASE = (
    TEMPLATE.replace("\n\n\nclass TestGenerateLocally:\n", "\0")
    .replace("\n\n\ndef test_trtllm_handler_matches_shared():\n", "\0")
    .split("\0")
)
_BEFORE = dedent(BEFORE)
AFTER = (
    _BEFORE.replace(
        "class TestGenerateLocally:", f"{STANDIN}\n\n\nclass TestGenerateLocally:"
    ).replace(
        "        return MagicMock()\n\n\ndef _logprob",
        f"        return MagicMock()\n\n{METHODS}\n\n\ndef _logprob",
    )
    + f"\n{CASE}"
)
BUILDER = "_make_mock_interleaved_choices"
(TEST,) = TESTS


class TestHandlerResponseLoopTests(TargetedCodemodTest):
    TRANSFORM = HandlerResponseLoopTests

    def test_adds_the_stand_in_the_builder_the_test_and_the_comparison_case(self) -> None:
        self.assertApplies(BEFORE, AFTER)
        self.assertEqual(
            HandlerResponseLoopTests.added_names(),
            ("_CumulativeTokenIds", BUILDER, TEST, "test_trtllm_handler_matches_shared"),
        )

    def test_already_applied_is_skipped_however_formatted(self) -> None:
        self.assertSkips(AFTER, AlreadyApplied, "already has the response-loop test")
        spaced = AFTER.replace("self.ids_read += len(items)", "self.ids_read += len( items )")
        self.assertSkips(spaced, AlreadyApplied, "already has the response-loop test")

    def test_without_the_class_the_test_is_not_carried(self) -> None:
        older = BEFORE.replace("class TestGenerateLocally:", "class TestHealthCheckPriority:")
        self.assertSkips(older, NotApplicable, "has no TestGenerateLocally (dynamo added it")

    def test_drift(self) -> None:
        comparison = "matches_shared("
        cases = [
            (comparison, "wrapper(", "no module-level test_trtllm_handler_matches_shared() to"),
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
            ("from unittest import mock\n", "", "no module-level `mock`"),
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
        edited = ('pytest.fail("token_ids history copied")', 'pytest.fail("copied")')
        there = f"already there: _CumulativeTokenIds, TestGenerateLocally.{BUILDER}"
        self.assertDrifts(AFTER, there, edited)
