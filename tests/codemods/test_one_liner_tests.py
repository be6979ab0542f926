"""The one-line design's carried test: the helper's test on the module's sentinel, now
holding ids it lets ``len()`` and a slice read (no keyword)."""

from __future__ import annotations

from codemods.one_liner_helper_tests import OneLinerHelperTests
from codemods.outcome import AlreadyApplied
from codemods.shape import carried
from tests.codemods import test_helper_delta_tests as delta_helper
from tests.codemods.support import TargetedCodemodTest

SENTINEL = """\
    def __init__(self, token_ids=(0, 0)):
        self._token_ids = token_ids

    def __len__(self) -> int:
        return len(self._token_ids)

    def __getitem__(self, index):
        return self._token_ids[index]
"""
TESTS = carried(OneLinerHelperTests.TEMPLATE).split("\n\n\n", 1)[1]
HELPER_AFTER = (
    delta_helper.BEFORE.replace(delta_helper.OLD_MESSAGE, delta_helper.MESSAGE)
    .replace("\n\n\ndef test_prompt", f"\n\n\n{TESTS}\n\ndef test_prompt")
    .replace("    def __len__(self) -> int:\n        return 2\n", SENTINEL)
)


class TestOneLinerHelperTests(TargetedCodemodTest):
    TRANSFORM = OneLinerHelperTests

    def test_extends_the_sentinel_in_order_and_adds_the_test(self) -> None:
        self.assertApplies(delta_helper.BEFORE, HELPER_AFTER)
        self.assertSkips(HELPER_AFTER, AlreadyApplied, "already has the one-liner's test")
