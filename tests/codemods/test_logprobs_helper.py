"""LogprobsHelperDelta on synthetic helper modules: before -> after, skips and drift."""

from __future__ import annotations

import libcst

from codemods.logprobs_helper import LogprobsHelperDelta
from codemods.outcome import AlreadyApplied, NotApplicable
from tests.codemods import support
from tests.fixtures import snippets


class TestLogprobsHelperDelta(support.TargetedCodemodTest):
    TRANSFORM = LogprobsHelperDelta

    # --- applies ------------------------------------------------------------------

    def test_rewrites_the_history_copy(self) -> None:
        self.assertApplies(snippets.HELPER, snippets.HELPER_PATCHED)

    def test_applies_in_the_wheel_layout(self) -> None:
        self.assertApplies(snippets.HELPER, snippets.HELPER_PATCHED, filename=self.in_wheel())

    def test_applies_on_the_repo_relative_path(self) -> None:
        self.assertApplies(snippets.HELPER, snippets.HELPER_PATCHED, filename=self.TARGET.path)

    def test_older_is_none_guard_still_applies(self) -> None:
        after = snippets.HELPER_PATCHED.replace(
            'if not getattr(output, "logprobs", None):', "if output.logprobs is None:"
        )
        self.assertApplies(snippets.HELPER_IS_NONE_GUARD, after)

    def test_without_optional_import_uses_pep604_annotation(self) -> None:
        def no_optional(source: str) -> str:
            return source.replace("from typing import Any, Optional", "from typing import Any")

        after = no_optional(snippets.HELPER_PATCHED).replace(
            "new_token_ids: Optional[Sequence[int]] = None,",
            "new_token_ids: Sequence[int] | None = None,",
        )
        self.assertIn("from typing import Any, Sequence\n", after)
        self.assertIn("new_token_ids: Sequence[int] | None = None,", after)
        self.assertApplies(no_optional(snippets.HELPER), after)

    def test_the_parameter_is_never_rebound(self) -> None:
        """The old local of that name is renamed below the run; both paths bind it."""
        new = self.run_on(snippets.HELPER)
        body = new.split("def extract_from_completion_output", 1)[1].split("def neighbour")[0]
        self.assertNotIn("new_token_ids = ", body)
        self.assertEqual(body.count("chunk_token_ids = "), 2)

    def test_a_body_already_using_the_local_name_is_drift(self) -> None:
        clash = snippets.HELPER.replace(
            "    if not new_logprobs:\n",
            "    chunk_token_ids = None\n    if not new_logprobs:\n",
            1,
        )
        self.assertDrifts(clash, "a body that already uses `chunk_token_ids`")

    def test_neighbour_with_the_same_statements_is_untouched(self) -> None:
        new = self.run_on(snippets.HELPER)
        neighbour = new.split("def neighbour", 1)[1]
        self.assertEqual(neighbour, snippets.HELPER.split("def neighbour", 1)[1])

    def test_codemod_is_pure(self) -> None:
        """Same input, same output, and the input module object is not mutated."""
        tree = libcst.parse_module(snippets.HELPER)
        first = LogprobsHelperDelta(self.context()).transform_module_impl(tree).code
        second = LogprobsHelperDelta(self.context()).transform_module_impl(tree).code
        self.assertEqual(first, second)
        self.assertEqual(tree.code, snippets.HELPER)

    # --- skips --------------------------------------------------------------------

    def test_other_files_are_skipped(self) -> None:
        self.assertNotTarget(snippets.HELPER)
        self.assertNotTarget(snippets.HELPER, filename=f"{support.CLONE}/logprobs.py")
        # A file of the same name elsewhere in the tree is not the target either.
        self.assertNotTarget(
            snippets.HELPER, filename=f"{support.CLONE}/components/src/dynamo/vllm/logprobs.py"
        )

    def test_already_applied_is_skipped(self) -> None:
        self.assertSkips(
            snippets.HELPER_PATCHED,
            AlreadyApplied,
            "extract_from_completion_output already takes new_token_ids",
        )

    def test_missing_helper_is_not_applicable(self) -> None:
        self.assertSkips(
            "def unrelated():\n    return 1\n",
            NotApplicable,
            "has no extract_from_completion_output: no shared logprob helper",
        )
        with self.assertRaisesRegex(NotApplicable, r"releases <= 1\.2\.1"):
            self.run_on("def unrelated():\n    return 1\n")

    # --- drift --------------------------------------------------------------------

    def test_renamed_cursor_parameter_is_drift(self) -> None:
        drifted = snippets.HELPER.replace("num_output_tokens_so_far", "start")
        self.assertDrifts(drifted, "found parameters (output, start, tokenizer)")

    def test_cursor_renamed_in_body_only_names_the_broken_statement(self) -> None:
        drifted = snippets.HELPER.replace(
            "new_token_ids = token_ids[num_output_tokens_so_far:]",
            "new_token_ids = token_ids[offset:]",
        )
        message = self.assertDrifts(drifted, "found `new_token_ids = token_ids[offset:]`")
        self.assertIn("expected a function (output, num_output_tokens_so_far", message)

    def test_history_copy_gone_is_drift(self) -> None:
        drifted = snippets.HELPER.replace(
            'token_ids = list(getattr(output, "token_ids", None) or [])',
            "token_ids = output.token_ids",
        )
        self.assertDrifts(drifted, "no statement `token_ids = list(getattr(output")

    def test_new_keyword_without_the_body_change_is_drift(self) -> None:
        half = snippets.HELPER.replace(
            "include_bytes: bool = False,\n)",
            "include_bytes: bool = False,\n    new_token_ids=None,\n)",
        )
        self.assertDrifts(half, "`new_token_ids` in the signature but not the expected body")
