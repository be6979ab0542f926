"""LogprobsHelperDelta: the helper takes the caller's delta and skips the history copy."""

from __future__ import annotations

from codemods.logprobs_helper import LogprobsHelperDelta
from codemods.outcome import AlreadyApplied, NotApplicable
from tests.codemods.support import TargetedCodemodTest

BEFORE = '''
    from typing import Any, Optional


    def extract_from_completion_output(
        output: Any,
        num_output_tokens_so_far: int,
        tokenizer: Any = None,
        *,
        include_bytes: bool = False,
    ):
        """Logprobs of one streamed chunk.

        Returns ``(None, None)`` when there is nothing to report.
        """
        token_ids = list(getattr(output, "token_ids", None) or [])
        if not token_ids or num_output_tokens_so_far >= len(token_ids):
            return None, None

        new_logprobs = output.logprobs[num_output_tokens_so_far:]
        new_token_ids = token_ids[num_output_tokens_so_far:]
        new_logprobs = new_logprobs[: len(new_token_ids)]
        return [d[t].logprob for d, t in zip(new_logprobs, new_token_ids)], None


    def neighbour(output, num_output_tokens_so_far):
        token_ids = list(getattr(output, "token_ids", None) or [])
        return token_ids[num_output_tokens_so_far:]
    '''

AFTER = '''
    from typing import Any, Optional, Sequence


    def extract_from_completion_output(
        output: Any,
        num_output_tokens_so_far: int,
        tokenizer: Any = None,
        *,
        include_bytes: bool = False,
        new_token_ids: Optional[Sequence[int]] = None,
    ):
        """Logprobs of one streamed chunk.

        ``new_token_ids``, if given, must equal
        ``output.token_ids[num_output_tokens_so_far:]``; it is not validated.
        It spares copying the cumulative ``token_ids``, while
        ``num_output_tokens_so_far`` still indexes ``output.logprobs``.

        Returns ``(None, None)`` when there is nothing to report.
        """
        if new_token_ids is None:
            token_ids = list(getattr(output, "token_ids", None) or [])
            if not token_ids or num_output_tokens_so_far >= len(token_ids):
                return None, None
            chunk_token_ids = token_ids[num_output_tokens_so_far:]
        elif not new_token_ids:
            return None, None
        else:
            chunk_token_ids = new_token_ids

        new_logprobs = output.logprobs[num_output_tokens_so_far:]
        new_logprobs = new_logprobs[: len(chunk_token_ids)]
        return [d[t].logprob for d, t in zip(new_logprobs, chunk_token_ids)], None


    def neighbour(output, num_output_tokens_so_far):
        token_ids = list(getattr(output, "token_ids", None) or [])
        return token_ids[num_output_tokens_so_far:]
    '''


class TestLogprobsHelperDelta(TargetedCodemodTest):
    TRANSFORM = LogprobsHelperDelta

    def test_the_copy_is_skipped_when_the_delta_is_given_and_the_neighbour_untouched(self) -> None:
        self.assertApplies(BEFORE, AFTER)

    def test_without_typing_optional_the_annotation_is_pep_604(self) -> None:
        imports = ("from typing import Any, Optional", "from typing import Any")
        annotation = ("Optional[Sequence[int]]", "Sequence[int] | None")
        after = AFTER.replace(*imports).replace(*annotation)
        self.assertApplies(BEFORE.replace(*imports), after)

    def test_already_applied_is_skipped(self) -> None:
        self.assertSkips(AFTER, AlreadyApplied, "already takes new_token_ids")

    def test_a_module_without_the_helper_is_not_applicable(self) -> None:
        source = "def unrelated():\n    return 1\n"
        self.assertSkips(source, NotApplicable, "no shared logprob helper, so no history copy")

    def test_drift(self) -> None:
        cases = [
            ("num_output_tokens_so_far", "start", "parameters (output, start, tokenizer)"),
            (  # the cursor renamed in the body only: the broken statement is named
                "token_ids[num_output_tokens_so_far:]\n",
                "token_ids[offset:]\n",
                "found `new_token_ids = token_ids[offset:]`",
            ),
            (
                'list(getattr(output, "token_ids", None) or [])\n    if',
                "output.token_ids\n    if",
                "no statement `token_ids = list(getattr(output",
            ),
            (  # the keyword without the body change
                "include_bytes: bool = False,\n",
                "include_bytes: bool = False,\n    new_token_ids=None,\n",
                "`new_token_ids` in the signature but not the expected body",
            ),
            (
                "    return [d[t]",
                "    chunk_token_ids = None\n    return [d[t]",
                "a body that already uses `chunk_token_ids`",
            ),
        ]
        for old, new, found in cases:
            with self.subTest(found):
                self.assertDrifts(BEFORE, found, (old, new))
