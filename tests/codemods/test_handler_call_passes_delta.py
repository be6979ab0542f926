"""HandlerCallPassesDelta: the response loop hands its already-built delta over."""

from __future__ import annotations

from codemods.handler_call_passes_delta import HandlerCallPassesDelta
from codemods.outcome import AlreadyApplied, NotApplicable
from tests.codemods.support import TargetedCodemodTest

BEFORE = """
    class HandlerBase:
        async def _generate_locally_impl(self, request, context):
            out = {"token_ids": output.token_ids[tokens_so_far:], "index": 0}
            log_probs, top_logprobs = self._extract_logprobs(
                output, tokens_so_far
            )
            yield out
    """
CALL = "output, tokens_so_far\n"
# The loop now passes the delta it built.
AFTER = BEFORE.replace(CALL, 'output, tokens_so_far, new_token_ids=out["token_ids"]\n')


class TestHandlerCallPassesDelta(TargetedCodemodTest):
    TRANSFORM = HandlerCallPassesDelta

    def test_passes_the_built_delta(self) -> None:
        self.assertApplies(BEFORE, AFTER)

    def test_already_applied_is_skipped(self) -> None:
        self.assertSkips(AFTER, AlreadyApplied, 'already passes new_token_ids=out["token_ids"]')

    def test_an_inline_handler_is_not_applicable(self) -> None:
        inline = "    def _extract_logprobs(output, i):\n            return output.logprobs[i:]\n"
        source = BEFORE.replace("    async def", f"{inline}\n        async def")
        self.assertSkips(source, NotApplicable, "indexes token by token, so there is no history")

    def test_drift(self) -> None:
        rebound = '"index": 0}\n        out["token_ids"] = list(output.token_ids)\n'
        cases = [
            ("def _generate_locally_impl", "def _gen", "no method HandlerBase._generate_locally"),
            ("self._extract_logprobs(", "self._extract(", "0 calls to self._extract_logprobs"),
            (CALL, "output, so_far\n", "(cursor `so_far`)"),
            (CALL, "output, cursors[0]\n", "a cursor that is not a plain name"),
            (CALL, "output, tokens_so_far, new_token_ids=x\n", "new_token_ids=x already passed"),
            (CALL, "tokens_so_far\n", "found `self._extract_logprobs( tokens_so_far )`"),
            ('"index": 0}\n', rebound, "before the call in its block"),  # the delta rewritten
        ]
        for old, new, found in cases:
            with self.subTest(found):
                self.assertDrifts(BEFORE, found, (old, new))
        out = '        out = {"token_ids": output.token_ids[tokens_so_far:], "index": 0}\n'
        self.assertDrifts(
            BEFORE, "before the call", (out, ""), ("        yield", out + "        yield")
        )
