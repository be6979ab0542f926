"""HandlerCallPassesDelta: the response loop hands its already-built delta over."""

from __future__ import annotations

from codemods.handler_call_passes_delta import HandlerCallPassesDelta
from codemods.outcome import AlreadyApplied, NotApplicable
from tests.codemods.support import TargetedCodemodTest

BEFORE = """
    class HandlerBase:
        @staticmethod
        def _extract_logprobs(output, num_output_tokens_so_far):
            return extract_from_completion_output(output, num_output_tokens_so_far)

        async def _generate_locally_impl(self, request, context):
            async for res in self.engine.generate(request):
                for output in res.outputs:
                    tokens_so_far = cursors.get(output.index, 0)
                    out = {
                        "token_ids": output.token_ids[tokens_so_far:],
                        "index": output.index,
                    }
                    if out["token_ids"] and not self.seen:
                        self.seen = True
                    log_probs, top_logprobs = self._extract_logprobs(
                        output, tokens_so_far
                    )
                    yield out
    """

AFTER = """
    class HandlerBase:
        @staticmethod
        def _extract_logprobs(output, num_output_tokens_so_far):
            return extract_from_completion_output(output, num_output_tokens_so_far)

        async def _generate_locally_impl(self, request, context):
            async for res in self.engine.generate(request):
                for output in res.outputs:
                    tokens_so_far = cursors.get(output.index, 0)
                    out = {
                        "token_ids": output.token_ids[tokens_so_far:],
                        "index": output.index,
                    }
                    if out["token_ids"] and not self.seen:
                        self.seen = True
                    log_probs, top_logprobs = self._extract_logprobs(
                        output, tokens_so_far, new_token_ids=out["token_ids"]
                    )
                    yield out
    """


class TestHandlerCallPassesDelta(TargetedCodemodTest):
    TRANSFORM = HandlerCallPassesDelta

    def test_passes_the_built_delta(self) -> None:
        self.assertApplies(BEFORE, AFTER)

    def test_already_applied_is_skipped(self) -> None:
        self.assertSkips(AFTER, AlreadyApplied, 'already passes new_token_ids=out["token_ids"]')

    def test_an_inline_handler_is_not_applicable(self) -> None:
        inline = BEFORE.replace("return extract_from_completion_output(", "return (")
        self.assertSkips(inline, NotApplicable, "(releases <= 1.2.1)")

    def test_drift(self) -> None:
        call = "log_probs, top_logprobs = self._extract_logprobs(\n"
        cases = [
            (
                "def _generate_locally_impl",
                "def _generate",
                "no method HandlerBase._generate_locally",
            ),
            (call, "log_probs = (\n", "0 calls to self._extract_logprobs"),
            ("output, tokens_so_far\n", "output, so_far\n", "cursor `so_far`"),
            (
                "output, tokens_so_far\n",
                "output, cursors[0]\n",
                "a cursor that is not a plain name",
            ),
            (
                "output, tokens_so_far\n",
                "output, tokens_so_far, new_token_ids=output.token_ids\n",
                "new_token_ids=output.token_ids already passed",
            ),
            (  # something rewrites the delta after the slice: passing it would be wrong
                "self.seen = True\n",
                f'self.seen = True\n{" " * 16}out["token_ids"] = list(output.token_ids)\n',
                "before the call in its block",
            ),
        ]
        for old, new, found in cases:
            with self.subTest(found):
                self.assertDrifts(BEFORE, found, (old, new))
        # the call moved ahead of the delta
        ahead = 'no `out = {"token_ids": output.token_ids[tokens_so_far:], ...}` before'
        moved = f"{' ' * 16}{call}{' ' * 20}output, tokens_so_far\n{' ' * 16})\n"
        out = f"{' ' * 16}out = {{\n"
        self.assertDrifts(BEFORE, ahead, (moved, ""), (out, moved + out))
