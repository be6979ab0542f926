"""HandlerCallPassesDelta on synthetic HandlerBase modules."""

from __future__ import annotations

from codemods.handler_call_passes_delta import HandlerCallPassesDelta
from codemods.outcome import AlreadyApplied, NotApplicable
from tests.codemods import support
from tests.fixtures import snippets

# The handler as HandlerExtractForwardsDelta leaves it: the series runs this one next.
BEFORE = snippets.HANDLER_PATCHED.replace(
    'output, tokens_so_far, new_token_ids=out["token_ids"]', "output, tokens_so_far"
)
CALL = """\
                log_probs, top_logprobs = self._extract_logprobs(
                    output, tokens_so_far
                )
"""
DELTA = """\
                out = {
                    "token_ids": output.token_ids[tokens_so_far:],
                    "index": output_idx,
                }
"""


class TestHandlerCallPassesDelta(support.TargetedCodemodTest):
    TRANSFORM = HandlerCallPassesDelta

    # --- applies ------------------------------------------------------------------

    def test_passes_the_built_delta(self) -> None:
        self.assertApplies(BEFORE, snippets.HANDLER_PATCHED)

    def test_applies_in_the_wheel_layout(self) -> None:
        self.assertApplies(BEFORE, snippets.HANDLER_PATCHED, filename=self.in_wheel())

    def test_the_call_changes_whether_or_not_the_method_forwards_yet(self) -> None:
        # Only the call is this command's: run alone on the original handler, it
        # passes the delta and leaves `_extract_logprobs` as it is.
        after = snippets.HANDLER.replace(
            "output, tokens_so_far\n", 'output, tokens_so_far, new_token_ids=out["token_ids"]\n'
        )
        self.assertApplies(snippets.HANDLER, after)

    def test_vllm_style_wrapper_in_the_same_module_is_untouched(self) -> None:
        wrapper = "class BaseWorkerHandler:"
        new = self.run_on(BEFORE)
        self.assertEqual(new.split(wrapper)[1], BEFORE.split(wrapper)[1])

    # --- skips --------------------------------------------------------------------

    def test_other_files_are_skipped(self) -> None:
        self.assertNotTarget(BEFORE)

    def test_already_applied_is_skipped(self) -> None:
        self.assertSkips(
            snippets.HANDLER_PATCHED,
            AlreadyApplied,
            'HandlerBase._generate_locally_impl already passes new_token_ids=out["token_ids"]',
        )

    def test_inline_pre_1_3_handler_is_not_applicable(self) -> None:
        self.assertSkips(snippets.HANDLER_INLINE, NotApplicable, "indexes token by token")
        self.assertSkips(snippets.HANDLER_INLINE, NotApplicable, "(releases <= 1.2.1)")

    # --- drift --------------------------------------------------------------------

    def test_missing_loop_is_drift(self) -> None:
        source = BEFORE.replace("async def _generate_locally_impl", "async def _generate")
        self.assertDrifts(source, "found no method HandlerBase._generate_locally_impl")

    def test_removed_call_is_drift(self) -> None:
        source = BEFORE.replace(CALL, "                log_probs = None\n")
        self.assertDrifts(source, "found 0 calls to self._extract_logprobs")

    def test_call_moved_before_the_delta_is_drift(self) -> None:
        source = BEFORE.replace(CALL, "").replace(DELTA, CALL + DELTA)
        self.assertDrifts(
            source, 'no `out = {"token_ids": output.token_ids[tokens_so_far:], ...}` before'
        )

    def test_cursor_renamed_only_in_the_call_is_drift(self) -> None:
        source = BEFORE.replace("output, tokens_so_far\n", "output, so_far\n")
        self.assertDrifts(source, "cursor `so_far`")

    def test_cursor_that_is_not_a_name_is_drift(self) -> None:
        source = BEFORE.replace("output, tokens_so_far\n", "output, cursors[0]\n")
        self.assertDrifts(source, "a cursor that is not a plain name")

    def test_out_rebound_between_delta_and_call_is_drift(self) -> None:
        """If something rewrites out["token_ids"] after the slice, passing it would be wrong."""
        source = BEFORE.replace(
            "                    self.seen = True\n",
            "                    self.seen = True\n"
            '                out["token_ids"] = list(output.token_ids)\n',
        )
        self.assertDrifts(source, "before the call in its block")

    def test_another_delta_already_passed_is_drift(self) -> None:
        source = BEFORE.replace(
            "output, tokens_so_far\n", "output, tokens_so_far, new_token_ids=output.token_ids\n"
        )
        self.assertDrifts(source, "new_token_ids=output.token_ids already passed")
