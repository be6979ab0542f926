"""HelperDeltaTests: the carried CPU tests join dynamo's test_logprobs.py."""

from __future__ import annotations

from textwrap import dedent

from codemods.helper_delta_tests import TESTS, HelperDeltaTests
from codemods.outcome import AlreadyApplied, NotApplicable
from codemods.shape import carried
from tests.codemods.support import TargetedCodemodTest

OLD_MESSAGE = "token_ids copied though no logprobs were requested"
BEFORE = dedent(f"""\
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
            raise AssertionError("{OLD_MESSAGE}")


    def test_extract_completion_returns_none_when_logprobs_absent():
        assert extract_from_completion_output(SimpleNamespace(logprobs=None), 0) == (None, None)


    def test_prompt_logprobs():
        assert True
    """)
# The template after the last test_extract_completion_*; dynamo's sentinel untouched.
TEMPLATE = carried(HelperDeltaTests.TEMPLATE)
AFTER = BEFORE.replace("\n\n\ndef test_prompt", f"\n\n\n{TEMPLATE}\n\ndef test_prompt")


class TestHelperDeltaTests(TargetedCodemodTest):
    TRANSFORM = HelperDeltaTests

    def test_adds_the_tests_and_leaves_the_sentinel_alone(self) -> None:
        self.assertApplies(BEFORE, AFTER)
        self.assertEqual(HelperDeltaTests.added_names(), TESTS)
        self.assertEqual(len(TESTS), 3)

    def test_already_applied_is_skipped_however_formatted(self) -> None:
        self.assertSkips(AFTER, AlreadyApplied, "already has the delta tests")
        squeezed = AFTER.replace(
            "\n\n\ndef test_extract_completion_r", "\n\ndef test_extract_completion_r"
        )
        self.assertSkips(squeezed, AlreadyApplied, "already has the delta tests")

    def test_without_the_sentinel_the_test_is_not_carried(self) -> None:
        older = BEFORE.replace("class _ExplodingTokenIds:", "class _Other:")
        self.assertSkips(older, NotApplicable, "has no _ExplodingTokenIds (dynamo added it")

    def test_drift(self) -> None:
        helper, sentinel = "extract_from_completion_output", "class _ExplodingTokenIds:"
        cases = [
            (f"import {helper}", "import parse", f"no module-level `{helper}`"),
            ("from types import SimpleNamespace\n", "", "no module-level `SimpleNamespace`"),
            ("import pytest\n", "", "no module-level `pytest`"),
            ("def _logprob(", "def _lp(", "no module-level `_logprob`"),
            ("pytest.mark.gpu_0, ", "", "`pytestmark` without gpu_0"),
            ("def test_extract_completion_r", "def test_r", "no `test_extract_completion_*` test"),
            ("def test_prompt", f"{TESTS[1]} = []\n\n\ndef test_prompt", "with other"),
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
        last = TEMPLATE[TEMPLATE.index(f"def {TESTS[-1]}") :]
        self.assertDrifts(AFTER, "only part of the change", (last, ""))
