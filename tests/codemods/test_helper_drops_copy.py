"""HelperDropsCopy: the one-line design slices the history without copying it."""

from __future__ import annotations

from codemods.helper_drops_copy import CONTRACT, REWORDED, STALE, HelperDropsCopy
from codemods.outcome import AlreadyApplied, NotApplicable
from tests.codemods.support import TargetedCodemodTest

BEFORE = '''
    def extract_from_completion_output(output, num_output_tokens_so_far):
        """Logprobs of one streamed chunk.

        Returns ``(None, None)`` when there is nothing to report.
        """
        token_ids = list(getattr(output, "token_ids", None) or [])
        if not token_ids or num_output_tokens_so_far >= len(token_ids):
            return None, None
        return token_ids[num_output_tokens_so_far:], None
    '''
AFTER = BEFORE.replace(
    'list(getattr(output, "token_ids", None) or [])', 'getattr(output, "token_ids", None) or []'
).replace(
    "        Returns", "".join(f"        {line}\n" for line in CONTRACT) + "\n        Returns"
)


class TestHelperDropsCopy(TargetedCodemodTest):
    TRANSFORM = HelperDropsCopy

    def test_the_copy_is_dropped_and_the_docstring_says_why(self) -> None:
        self.assertApplies(BEFORE, AFTER)

    def test_the_comment_that_names_the_copy_is_reworded(self) -> None:
        comment = "".join(f"        {line}\n" for line in STALE)
        before = BEFORE.replace("        token_ids = list", f"{comment}        token_ids = list", 1)
        after = AFTER.replace(
            "        token_ids = getattr",
            "".join(f"        {line}\n" for line in REWORDED) + "        token_ids = getattr",
            1,
        )
        self.assertApplies(before, after)

    def test_already_applied_and_not_applicable_are_skipped(self) -> None:
        self.assertSkips(AFTER, AlreadyApplied, "already slices token_ids without copying")
        self.assertSkips("def other():\n    pass\n", NotApplicable, "(releases <= 1.2.1)")

    def test_drift(self) -> None:
        copy = '    token_ids = list(getattr(output, "token_ids", None) or [])\n'
        self.assertDrifts(
            BEFORE, "0 such statements", (copy, "    token_ids = tuple(output.token_ids)\n")
        )
        self.assertDrifts(BEFORE, "2 such statements", (copy, copy + copy))
