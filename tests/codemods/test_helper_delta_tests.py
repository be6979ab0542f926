"""HelperDeltaTests on a synthetic module in the shape of dynamo's test_logprobs.py."""

from __future__ import annotations

import ast

import libcst

from codemods.helper_delta_tests import (
    MESSAGE,
    OLD_MESSAGE,
    SENTINEL,
    TESTS,
    HelperDeltaTests,
    added_names,
)
from codemods.outcome import AlreadyApplied, NotApplicable
from tests.codemods import support
from tests.codemods.support import TEST_MODULE

REWORDED = TEST_MODULE.replace(OLD_MESSAGE, MESSAGE)


def top_level_names(source: str) -> list[str]:
    return [
        n.name
        for n in ast.parse(source).body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]


class TestHelperDeltaTests(support.TargetedCodemodTest):
    TRANSFORM = HelperDeltaTests

    # --- applies ------------------------------------------------------------------

    def test_before_after(self) -> None:
        """The template goes after the last extract_completion test; the sentinel's
        message is reworded, as its old one names another case."""
        head, tail = REWORDED.split("\n\n\n# ---- prompt logprobs ----\n")
        after = f"{head}\n\n\n{TESTS}\n\n# ---- prompt logprobs ----\n{tail}"
        self.assertApplies(TEST_MODULE, after)

    def test_applies_in_the_wheel_layout(self) -> None:
        new = self.run_on(TEST_MODULE, filename=self.in_wheel())
        self.assertEqual(new, self.run_on(TEST_MODULE))
        self.assertNotEqual(new, TEST_MODULE)

    def test_the_template_is_one_test_over_the_module_sentinel(self) -> None:
        self.assertEqual(
            added_names(),
            (
                SENTINEL,
                "_LOGPROBS",
                "_FALLBACK",
                "_BYTES",
                "test_extract_completion_with_delta_matches_slicing_token_ids",
            ),
        )
        self.assertEqual(top_level_names(TESTS), [added_names()[-1]])  # no second sentinel
        self.assertIn(f"output.token_ids = {SENTINEL}()", TESTS)

    def test_a_sentinel_already_reworded_is_kept(self) -> None:
        new = self.run_on(REWORDED)
        self.assertEqual(new, self.run_on(TEST_MODULE))

    # --- skips --------------------------------------------------------------------

    def test_other_files_are_skipped(self) -> None:
        self.assertNotTarget(TEST_MODULE)
        # dynamo's other test_logprobs.py modules are not the target.
        self.assertNotTarget(
            TEST_MODULE,
            filename=f"{support.CLONE}/components/src/dynamo/vllm/tests/test_logprobs.py",
        )

    def test_second_run_is_already_applied(self) -> None:
        once = self.run_on(TEST_MODULE)
        self.assertSkips(once, AlreadyApplied, f"{self.TARGET.path} already has the delta test")

    def test_already_applied_survives_reformatting(self) -> None:
        once = self.run_on(TEST_MODULE)
        squeezed = once.replace("\n\n\n@pytest.mark.parametrize", "\n\n@pytest.mark.parametrize")
        self.assertNotEqual(squeezed, once)
        self.assertSkips(squeezed, AlreadyApplied, "already has the delta test")

    def test_without_the_sentinel_the_test_is_not_carried(self) -> None:
        """Releases before 1.5 have neither the sentinel nor the test it serves."""
        start = TEST_MODULE.index(f"class {SENTINEL}:")
        end = TEST_MODULE.index("def test_parse_options")
        older = TEST_MODULE[:start] + TEST_MODULE[end:]
        self.assertSkips(older, NotApplicable, f"has no {SENTINEL} (dynamo added it")

    # --- drift: what the carried test relies on is gone -----------------------------

    def assertDriftsWithout(self, edit: tuple[str, str], found: str) -> None:
        drifted = TEST_MODULE.replace(*edit)
        self.assertNotEqual(drifted, TEST_MODULE)
        self.assertDrifts(drifted, found)

    def test_a_sentinel_the_module_should_have_is_drift(self) -> None:
        """The empty-logprobs test is there, so its sentinel should be: renamed, drift."""
        renamed = TEST_MODULE.replace(f"class {SENTINEL}:", "class _Exploding:") + (
            "\n\ndef test_extract_completion_skips_token_ids_when_logprobs_empty():\n"
            "    assert _Exploding\n"
        )
        self.assertDrifts(
            renamed,
            f"test_extract_completion_skips_token_ids_when_logprobs_empty without `{SENTINEL}`",
        )

    def test_a_sentinel_of_another_shape_is_drift(self) -> None:
        self.assertDriftsWithout(
            (OLD_MESSAGE, "copied"), f'{SENTINEL}.__iter__ raising AssertionError("copied")'
        )
        self.assertDriftsWithout(
            ('raise AssertionError("token', 'raise RuntimeError("token'),
            f"no `{SENTINEL}.__iter__` raising AssertionError('...')",
        )

    def test_no_helper_import_is_drift(self) -> None:
        self.assertDriftsWithout(
            ("    extract_from_completion_output,\n", ""),
            "no `from dynamo.common.backend.logprobs import extract_from_completion_output`",
        )

    def test_no_simplenamespace_or_pytest_import_is_drift(self) -> None:
        self.assertDriftsWithout(
            ("from types import SimpleNamespace\n", ""), "no `from types import SimpleNamespace`"
        )
        self.assertDriftsWithout(("import pytest\n", ""), "no `import pytest`")

    def test_no_logprob_helper_is_drift(self) -> None:
        self.assertDriftsWithout(
            ("def _logprob(", "def _make_logprob("), "no module-level `_logprob(...)` helper"
        )

    def test_missing_cpu_mark_is_drift(self) -> None:
        self.assertDriftsWithout(("    pytest.mark.gpu_0,\n", ""), "`pytestmark` without gpu_0")

    def test_no_anchor_test_is_drift(self) -> None:
        self.assertDriftsWithout(
            ("def test_extract_completion_returns", "def test_completion_returns"),
            "no `test_extract_completion_*` test to add after",
        )

    def test_a_clashing_name_with_other_content_is_drift(self) -> None:
        clash = TEST_MODULE + "\n\n_LOGPROBS = []\n"
        self.assertDrifts(clash, "_LOGPROBS already defined with other content")

    def test_only_part_of_the_change_is_drift(self) -> None:
        tree = libcst.parse_module(self.run_on(TEST_MODULE))
        last = added_names()[-1]
        body = [
            s for s in tree.body if not (isinstance(s, libcst.FunctionDef) and s.name.value == last)
        ]
        self.assertDrifts(tree.with_changes(body=body).code, "only part of the change")
        # The tests without the reworded sentinel: part of the change too.
        self.assertDrifts(
            self.run_on(TEST_MODULE).replace(f'"{MESSAGE}"', f'"{OLD_MESSAGE}"'),
            "only part of the change",
        )
