"""HelperDeltaTests: the carried CPU test joins dynamo's test_logprobs.py."""

from __future__ import annotations

from textwrap import dedent

from codemods.helper_delta_tests import MESSAGE, OLD_MESSAGE, HelperDeltaTests
from codemods.outcome import AlreadyApplied, NotApplicable
from codemods.shape import carried
from tests.codemods.support import TargetedCodemodTest

BEFORE = dedent("""\
    from types import SimpleNamespace

    import pytest

    from dynamo.common.backend.logprobs import extract_from_completion_output

    pytestmark = [pytest.mark.unit, pytest.mark.gpu_0, pytest.mark.core, pytest.mark.pre_merge]


    def _logprob(lp):
        return SimpleNamespace(logprob=lp)


    class _ExplodingTokenIds:
        def __len__(self) -> int:
            return 2

        def __iter__(self):
            raise AssertionError("token_ids copied though no logprobs were requested")


    def test_extract_completion_returns_none_when_logprobs_absent():
        assert extract_from_completion_output(SimpleNamespace(logprobs=None), 0) == (None, None)


    def test_prompt_logprobs():
        assert True
    """)
# The sentinel extended (its __init__, its __len__) and reworded; the tests after the last
# test_extract_completion_*.
TEMPLATE = carried(HelperDeltaTests.TEMPLATE)
EXTENSION, TESTS = TEMPLATE.split("\n\n\n", 1)
SENTINEL = """\
    def __init__(self, length: int = 2) -> None:
        self._length = length

    def __len__(self) -> int:
        return self._length
"""
AFTER = (
    BEFORE.replace(OLD_MESSAGE, MESSAGE)
    .replace("\n\n\ndef test_prompt", f"\n\n\n{TESTS}\n\ndef test_prompt")
    .replace("    def __len__(self) -> int:\n        return 2\n", SENTINEL)
)


class TestHelperDeltaTests(TargetedCodemodTest):
    TRANSFORM = HelperDeltaTests

    def test_adds_the_test_and_rewords_the_sentinel(self) -> None:
        self.assertApplies(BEFORE, AFTER)
        # A sentinel already reworded is kept as it is.
        self.assertApplies(BEFORE.replace(OLD_MESSAGE, MESSAGE), AFTER)
        tests = (
            "test_extract_completion_delta_matches_slicing",
            "test_extract_completion_rejects_a_delta_that_is_not_the_chunks",
        )
        self.assertEqual(
            HelperDeltaTests.added_names(),
            ("_ExplodingTokenIds", "_LOGPROBS", "_FALLBACK", "_BYTES", *tests),
        )

    def test_already_applied_is_skipped_however_formatted(self) -> None:
        self.assertSkips(AFTER, AlreadyApplied, "already has the delta tests")
        squeezed = AFTER.replace("\n\n\n@pytest.mark.parametrize", "\n\n@pytest.mark.parametrize")
        self.assertSkips(squeezed, AlreadyApplied, "already has the delta tests")

    def test_without_the_sentinel_the_test_is_not_carried(self) -> None:
        older = BEFORE.replace("class _ExplodingTokenIds:", "class _Other:")
        self.assertSkips(older, NotApplicable, "has no _ExplodingTokenIds (dynamo added it")

    def test_drift(self) -> None:
        helper, sentinel = "extract_from_completion_output", "class _ExplodingTokenIds:"
        cases = [
            (OLD_MESSAGE, "copied", '_ExplodingTokenIds.__iter__ raising AssertionError("copied")'),
            ("raise AssertionError(", "raise OSError(", "no `_ExplodingTokenIds.__iter__` raising"),
            (
                "        return 2\n",
                "        return len(self.ids)\n",
                "`_ExplodingTokenIds.__len__` already",
            ),
            (
                "    def __len__(self) -> int:\n        return 2\n\n",
                "",
                "`_ExplodingTokenIds` without `__len__`",
            ),
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
        self.assertDrifts(
            AFTER,
            "only part of the change",
            (SENTINEL, "    def __len__(self) -> int:\n        return 2\n"),
        )
