"""LogprobsHelperDelta: the helper takes the caller's delta and skips the history copy."""

from __future__ import annotations

from codemods.logprobs_helper import LogprobsHelperDelta
from codemods.outcome import AlreadyApplied, NotApplicable
from tests.codemods.support import TargetedCodemodTest

BEFORE = '''
    from typing import Any, Optional


    def extract_from_completion_output(output: Any, num_output_tokens_so_far: int, *, include_bytes=False):
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
    '''

AFTER = '''
    from typing import Any, Optional
    from collections.abc import Sequence


    def extract_from_completion_output(output: Any, num_output_tokens_so_far: int, *, include_bytes=False, new_token_ids: Optional[Sequence[int]] = None):
        """Logprobs of one streamed chunk.

        ``new_token_ids``, if given, must be the caller's
        ``output.token_ids[num_output_tokens_so_far:]``: the chunk's ids are read from it
        instead of a copy of the cumulative ``token_ids``. A non-empty one of
        another length raises ``ValueError``; an empty one means nothing new.
        ``num_output_tokens_so_far`` still indexes ``output.logprobs``; given
        ``new_token_ids``, ``output.token_ids`` must support ``len()`` (TRT-LLM's
        and vLLM's are lists) and is not copied.

        Returns ``(None, None)`` when there is nothing to report.
        """
        if new_token_ids is None:
            token_ids = list(getattr(output, "token_ids", None) or [])
            if not token_ids or num_output_tokens_so_far >= len(token_ids):
                return None, None
            chunk_token_ids = token_ids[num_output_tokens_so_far:]
        elif not new_token_ids:
            return None, None
        elif len(new_token_ids) + num_output_tokens_so_far != len(getattr(output, "token_ids", None) or ()):
            raise ValueError("new_token_ids must be output.token_ids[num_output_tokens_so_far:]")
        else:
            chunk_token_ids = new_token_ids

        new_logprobs = output.logprobs[num_output_tokens_so_far : num_output_tokens_so_far + len(chunk_token_ids)]
        return [d[t].logprob for d, t in zip(new_logprobs, chunk_token_ids)], None
    '''


class TestLogprobsHelperDelta(TargetedCodemodTest):
    TRANSFORM = LogprobsHelperDelta

    def test_the_copy_is_skipped_when_the_delta_is_given(self) -> None:
        self.assertApplies(BEFORE, AFTER)

    def test_without_typing_optional_the_annotation_is_pep_604(self) -> None:
        imports = ("from typing import Any, Optional", "from typing import Any")
        annotation = ("Optional[Sequence[int]]", "Sequence[int] | None")
        self.assertApplies(BEFORE.replace(*imports), AFTER.replace(*imports).replace(*annotation))

    def test_sequence_joins_an_import_from_collections_abc(self) -> None:
        imports = (
            "from typing import Any, Optional",
            "from typing import Any, Optional\n    from collections.abc import Iterable",
        )
        joined = (
            "from typing import Any, Optional\n    from collections.abc import Sequence",
            "from typing import Any, Optional\n    from collections.abc import Iterable, Sequence",
        )
        self.assertApplies(BEFORE.replace(*imports), AFTER.replace(*joined))

    def test_already_applied_is_skipped(self) -> None:
        self.assertSkips(AFTER, AlreadyApplied, "already takes new_token_ids")

    def test_a_module_without_the_helper_is_not_applicable(self) -> None:
        source = "def unrelated():\n    return 1\n"
        self.assertSkips(
            source, NotApplicable, "no shared logprob helper module (releases <= 1.2.1)"
        )

    def test_drift(self) -> None:
        copy, local = 'list(getattr(output, "token_ids", None) or [])', "    chunk_token_ids = 0\n"
        cursor = "num_output_tokens_so_far"
        cases = [
            (f"{cursor}: int", "start: int", "parameters (output, start)"),
            (f"token_ids[{cursor}:]", "token_ids[i:]", "found `new_token_ids = token_ids[i:]`"),
            (copy, "output.token_ids", "no statement `token_ids = list(getattr(output"),
            ("=False)", "=False, new_token_ids=None)", "`new_token_ids` in the signature but not"),
            (
                "    return [d",
                f"{local}    return [d",
                "a body that already uses `chunk_token_ids`",
            ),
        ]
        for old, new, found in cases:
            with self.subTest(found):
                self.assertDrifts(BEFORE, found, (old, new))
