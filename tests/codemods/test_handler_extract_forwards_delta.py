"""HandlerExtractForwardsDelta: ``HandlerBase._extract_logprobs`` takes the delta and
forwards it to the shared helper."""

from __future__ import annotations

from codemods.handler_extract_forwards_delta import HandlerExtractForwardsDelta
from codemods.outcome import AlreadyApplied, NotApplicable
from tests.codemods.support import TargetedCodemodTest

BEFORE = """
    from collections.abc import AsyncGenerator


    class HandlerBase:
        @staticmethod
        def _extract_logprobs(output, num_output_tokens_so_far: int) -> tuple:
            return _shared_logprobs.extract_from_completion_output(
                output,
                num_output_tokens_so_far,
                fallback_to_first_on_missing=True,
            )
    """

# Imports Sequence, takes new_token_ids (keyword-only) and forwards it.
AFTER = (
    BEFORE.replace("AsyncGenerator\n", "AsyncGenerator, Sequence\n")
    .replace("so_far: int)", "so_far: int, *, new_token_ids: Sequence[int] | None = None)")
    .replace("=True,\n", "=True,\n                new_token_ids=new_token_ids,\n")
)


class TestHandlerExtractForwardsDelta(TargetedCodemodTest):
    TRANSFORM = HandlerExtractForwardsDelta

    def test_takes_and_forwards_the_delta(self) -> None:
        self.assertApplies(BEFORE, AFTER)

    def test_already_applied_is_skipped(self) -> None:
        self.assertSkips(AFTER, AlreadyApplied, "_extract_logprobs already forwards new_token_ids")

    def test_an_inline_handler_is_not_applicable(self) -> None:
        inline = BEFORE.replace("extract_from_completion_output", "inline_logprobs")
        self.assertSkips(inline, NotApplicable, "indexes token by token, so there is no history")

    def test_drift(self) -> None:
        cases = [
            ("class HandlerBase:", "class Handler:", "no method HandlerBase._extract_logprobs"),
            ("so_far: int)", "so_far: int, i)", "parameters (output, num_output_tokens_so_far, i)"),
            (
                "return _shared",
                "x = _shared",
                "not one `return ...extract_from_completion_output(...)`",
            ),
            ("output,\n", "", "`_shared_logprobs.extract_from_completion_output( num_output"),
        ]
        for old, new, found in cases:
            with self.subTest(found):
                self.assertDrifts(BEFORE, found, (old, new))
        # the parameter without the forwarding
        self.assertDrifts(AFTER, "a half-made change", ("    new_token_ids=new_token_ids,\n", ""))
