"""HelperDeltaTests on a synthetic module in the shape of dynamo's test_logprobs.py."""

from __future__ import annotations

import ast

import libcst

from codemods.helper_delta_tests import TESTS, HelperDeltaTests, added_names
from codemods.outcome import AlreadyApplied
from tests.codemods import support
from tests.codemods.support import TEST_MODULE

NEW_NAMES = added_names()


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
        head, tail = TEST_MODULE.split("\n\n\n# ---- prompt logprobs ----\n")
        after = f"{head}\n\n\n{TESTS}\n\n# ---- prompt logprobs ----\n{tail}"
        self.assertApplies(TEST_MODULE, after)

    def test_applies_in_the_wheel_layout(self) -> None:
        new = self.run_on(TEST_MODULE, filename=self.in_wheel())
        self.assertEqual(new, self.run_on(TEST_MODULE))
        self.assertNotEqual(new, TEST_MODULE)

    def test_inserts_the_tests_after_the_last_extract_completion_test(self) -> None:
        new = self.run_on(TEST_MODULE)
        names = top_level_names(new)
        anchor = names.index("test_extract_completion_returns_none_when_logprobs_absent")
        self.assertEqual(names[anchor + 1 : anchor + 1 + len(NEW_NAMES)], list(NEW_NAMES))
        self.assertEqual(names[-1], "test_prompt_logprobs")  # the next section stays after
        self.assertTrue(new.startswith(TEST_MODULE.split("# ---- prompt")[0].rstrip("\n")))
        self.assertIn("\n\n\n# ---- prompt logprobs ----\n", new)
        compile(new, "test_logprobs.py", "exec")

    def test_adds_the_carried_tests_in_order(self) -> None:
        self.assertEqual(NEW_NAMES, tuple(top_level_names(TESTS)))
        self.assertEqual(NEW_NAMES[0], "_UntouchableTokenIds")
        self.assertTrue(all(n.startswith("test_extract_completion_") for n in NEW_NAMES[1:]))

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
        self.assertSkips(once, AlreadyApplied, f"{self.TARGET.path} already has the delta tests")

    def test_already_applied_survives_reformatting(self) -> None:
        once = self.run_on(TEST_MODULE)
        squeezed = once.replace("\n\n\n@pytest.mark.parametrize", "\n\n@pytest.mark.parametrize")
        self.assertNotEqual(squeezed, once)
        self.assertSkips(squeezed, AlreadyApplied, "already has the delta tests")

    # --- drift: what the carried tests rely on is gone ------------------------------

    def assertDriftsWithout(self, edit: tuple[str, str], found: str) -> None:
        drifted = TEST_MODULE.replace(*edit)
        self.assertNotEqual(drifted, TEST_MODULE)
        self.assertDrifts(drifted, found)

    def test_no_helper_import_is_drift(self) -> None:
        self.assertDriftsWithout(
            ("    extract_from_completion_output,\n", ""),
            "no `from dynamo.common.backend.logprobs import extract_from_completion_output`",
        )

    def test_no_simplenamespace_import_is_drift(self) -> None:
        self.assertDriftsWithout(
            ("from types import SimpleNamespace\n", ""), "no `from types import SimpleNamespace`"
        )

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
        clash = TEST_MODULE + "\n\nclass _UntouchableTokenIds:\n    pass\n"
        self.assertDrifts(clash, "_UntouchableTokenIds already defined with other content")

    def test_only_some_of_the_tests_present_is_drift(self) -> None:
        tree = libcst.parse_module(self.run_on(TEST_MODULE))
        last = NEW_NAMES[-1]
        body = [
            s for s in tree.body if not (isinstance(s, libcst.FunctionDef) and s.name.value == last)
        ]
        self.assertDrifts(tree.with_changes(body=body).code, "only some of the new tests")
