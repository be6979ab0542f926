"""HelperDeltaTests: the carried CPU test joins dynamo's test_logprobs.py."""

from __future__ import annotations

from textwrap import dedent

from codemods.helper_delta_tests import MESSAGE, OLD_MESSAGE, TESTS, HelperDeltaTests, added_names
from codemods.outcome import AlreadyApplied, NotApplicable
from tests.codemods.support import TargetedCodemodTest

BEFORE = dedent("""\
    from types import SimpleNamespace

    import pytest

    from dynamo.common.backend.logprobs import extract_from_completion_output

    pytestmark = [pytest.mark.unit, pytest.mark.gpu_0, pytest.mark.core, pytest.mark.pre_merge]


    def _logprob(lp):
        return SimpleNamespace(logprob=lp)


    class _ExplodingTokenIds:
        def __iter__(self):
            raise AssertionError("token_ids copied though no logprobs were requested")


    def test_extract_completion_returns_none_when_logprobs_absent():
        assert extract_from_completion_output(SimpleNamespace(logprobs=None), 0) == (None, None)


    def test_prompt_logprobs():
        assert True
    """)
# The test after the last test_extract_completion_*; the sentinel's message, which
# named the empty-logprobs case, reworded to fit both.
AFTER = BEFORE.replace(OLD_MESSAGE, MESSAGE).replace(
    "\n\n\ndef test_prompt", f"\n\n\n{TESTS}\n\ndef test_prompt"
)


class TestHelperDeltaTests(TargetedCodemodTest):
    TRANSFORM = HelperDeltaTests

    def test_adds_the_test_and_rewords_the_sentinel(self) -> None:
        self.assertApplies(BEFORE, AFTER)
        # A sentinel already reworded is kept as it is.
        self.assertApplies(BEFORE.replace(OLD_MESSAGE, MESSAGE), AFTER)
        test = "test_extract_completion_with_delta_matches_slicing_token_ids"
        self.assertEqual(
            added_names(), ("_ExplodingTokenIds", "_LOGPROBS", "_FALLBACK", "_BYTES", test)
        )

    def test_already_applied_is_skipped_however_formatted(self) -> None:
        self.assertSkips(AFTER, AlreadyApplied, "already has the delta test")
        squeezed = AFTER.replace("\n\n\n@pytest.mark.parametrize", "\n\n@pytest.mark.parametrize")
        self.assertSkips(squeezed, AlreadyApplied, "already has the delta test")

    def test_without_the_sentinel_the_test_is_not_carried(self) -> None:
        older = BEFORE.replace("class _ExplodingTokenIds:", "class _Other:")
        self.assertSkips(older, NotApplicable, "has no _ExplodingTokenIds (dynamo added it")

    def test_drift(self) -> None:
        helper, sentinel = "extract_from_completion_output", "class _ExplodingTokenIds:"
        cases = [
            (OLD_MESSAGE, "copied", '_ExplodingTokenIds.__iter__ raising AssertionError("copied")'),
            ("raise AssertionError(", "raise OSError(", "no `_ExplodingTokenIds.__iter__` raising"),
            (f"import {helper}", "import parse", f"no module-level `{helper}`"),
            ("from types import SimpleNamespace\n", "", "no module-level `SimpleNamespace`"),
            ("import pytest\n", "", "no module-level `pytest`"),
            ("def _logprob(", "def _lp(", "no module-level `_logprob`"),
            ("pytest.mark.gpu_0, ", "", "`pytestmark` without gpu_0"),
            ("def test_extract_completion_r", "def test_r", "no `test_extract_completion_*` test"),
            (
                "def test_prompt",
                "_LOGPROBS = []\n\n\ndef test_prompt",
                "_LOGPROBS already defined with",
            ),
        ]
        for old, new, found in cases:
            with self.subTest(found):
                self.assertDrifts(BEFORE, found, (old, new))
        # The sentinel renamed, while the test it serves is there.
        served = "test_extract_completion_skips_token_ids_when_logprobs_empty"
        renamed, served_test = (
            (sentinel, "class _Other:"),
            ("def test_prompt_logprobs", f"def {served}"),
        )
        self.assertDrifts(BEFORE, f"{served} without `_ExplodingTokenIds`", renamed, served_test)

    def test_part_of_the_change_is_drift(self) -> None:
        test = TESTS[TESTS.index("@pytest.mark.parametrize") :]
        self.assertDrifts(AFTER, "only part of the change", (test, ""))
        self.assertDrifts(AFTER, "only part of the change", (MESSAGE + '"', OLD_MESSAGE + '"'))
