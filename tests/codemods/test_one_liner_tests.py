"""The one-line design's carried tests: a stand-in of their own beside dynamo's strict
``_ExplodingTokenIds`` (left as dynamo wrote it)."""

from __future__ import annotations

from codemods.one_liner_helper_tests import TEMPLATE, TESTS, OneLinerHelperTests
from codemods.outcome import AlreadyApplied
from codemods.shape import carried
from tests.codemods import test_helper_delta_tests as delta_helper
from tests.codemods.support import TargetedCodemodTest

AFTER = delta_helper.BEFORE.replace(
    "\n\n\ndef test_prompt", f"\n\n\n{carried(TEMPLATE)}\n\ndef test_prompt"
)


class TestOneLinerHelperTests(TargetedCodemodTest):
    TRANSFORM = OneLinerHelperTests

    def test_adds_its_stand_in_and_tests_and_leaves_the_sentinel_alone(self) -> None:
        self.assertApplies(delta_helper.BEFORE, AFTER)
        self.assertSkips(AFTER, AlreadyApplied, "already has the one-liner's tests")
        self.assertEqual(OneLinerHelperTests.added_names(), ("_SlicedTokenIds", *TESTS))
        self.assertEqual(len(TESTS), 2)

    def test_a_name_taken_with_other_content_is_drift(self) -> None:
        taken = delta_helper.BEFORE.replace(
            "def _logprob(lp):", "_SlicedTokenIds = []\n\n\ndef _logprob(lp):"
        )
        self.assertDrifts(taken, "_SlicedTokenIds already defined with other content")
