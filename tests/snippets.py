"""Synthetic modules in the *shape* of dynamo's code (written for these tests; not
dynamo's text). Each constant is a small module the codemods are run against."""

HELPER = '''\
from typing import Any, Optional


def extract_from_completion_output(
    output: Any,
    num_output_tokens_so_far: int,
    tokenizer: Any = None,
    *,
    fallback_to_first_on_missing: bool = False,
    include_bytes: bool = False,
) -> tuple[Optional[list[float]], Optional[list[list[dict[str, Any]]]]]:
    """Logprobs of one streamed chunk.

    Returns ``(None, None)`` when there is nothing to report.
    """
    if not getattr(output, "logprobs", None):
        return None, None

    token_ids = list(getattr(output, "token_ids", None) or [])
    if not token_ids or num_output_tokens_so_far >= len(token_ids):
        return None, None

    new_logprobs = output.logprobs[num_output_tokens_so_far:]
    new_token_ids = token_ids[num_output_tokens_so_far:]
    new_logprobs = new_logprobs[: len(new_token_ids)]
    if not new_logprobs:
        return None, None
    return [d[t].logprob for d, t in zip(new_logprobs, new_token_ids)], None


def neighbour(output, num_output_tokens_so_far):
    token_ids = list(getattr(output, "token_ids", None) or [])
    return token_ids[num_output_tokens_so_far:]
'''

HELPER_PATCHED = '''\
from typing import Any, Optional


def extract_from_completion_output(
    output: Any,
    num_output_tokens_so_far: int,
    tokenizer: Any = None,
    *,
    fallback_to_first_on_missing: bool = False,
    include_bytes: bool = False,
    new_token_ids: Optional[list[int]] = None,
) -> tuple[Optional[list[float]], Optional[list[list[dict[str, Any]]]]]:
    """Logprobs of one streamed chunk.

    ``new_token_ids``, when given, is the chunk's delta the caller already built,
    ``output.token_ids[num_output_tokens_so_far:]`` (TRT-LLM streams cumulative
    token ids). The helper then reads the new token ids from it instead of
    copying the whole history; ``None`` slices ``output.token_ids`` here.

    Returns ``(None, None)`` when there is nothing to report.
    """
    if not getattr(output, "logprobs", None):
        return None, None

    if new_token_ids is None:
        token_ids = list(getattr(output, "token_ids", None) or [])
        if not token_ids or num_output_tokens_so_far >= len(token_ids):
            return None, None
        new_token_ids = token_ids[num_output_tokens_so_far:]
    elif not new_token_ids:
        return None, None

    new_logprobs = output.logprobs[num_output_tokens_so_far:]
    new_logprobs = new_logprobs[: len(new_token_ids)]
    if not new_logprobs:
        return None, None
    return [d[t].logprob for d, t in zip(new_logprobs, new_token_ids)], None


def neighbour(output, num_output_tokens_so_far):
    token_ids = list(getattr(output, "token_ids", None) or [])
    return token_ids[num_output_tokens_so_far:]
'''

# The 1.3/1.4 shape: an `is None` fast path instead of `not getattr(...)`.
HELPER_IS_NONE_GUARD = HELPER.replace(
    'if not getattr(output, "logprobs", None):', "if output.logprobs is None:"
)

HANDLER = """\
from dynamo.common.backend import logprobs as _shared_logprobs


class HandlerBase:
    @staticmethod
    def _extract_logprobs(
        output, num_output_tokens_so_far: int
    ) -> tuple[list[float] | None, list[list[dict]] | None]:
        return _shared_logprobs.extract_from_completion_output(
            output,
            num_output_tokens_so_far,
            fallback_to_first_on_missing=True,
            include_bytes=False,
        )

    async def _generate_locally_impl(self, request, context):
        cursors: dict[int, int] = {}
        async for res in self.engine.generate(request):
            for output in res.outputs:
                output_idx = getattr(output, "index", 0) or 0
                tokens_so_far = cursors.get(output_idx, 0)
                out = {
                    "token_ids": output.token_ids[tokens_so_far:],
                    "index": output_idx,
                }
                if out["token_ids"] and not self.seen:
                    self.seen = True
                log_probs, top_logprobs = self._extract_logprobs(
                    output, tokens_so_far
                )
                if log_probs:
                    out["log_probs"] = log_probs
                yield out
                cursors[output_idx] = len(output.token_ids)


class BaseWorkerHandler:
    @staticmethod
    def _extract_logprobs(output, num_output_tokens_so_far):
        return _shared_logprobs.extract_from_completion_output(output, 0)
"""

HANDLER_PATCHED = (
    HANDLER.replace(
        """        output, num_output_tokens_so_far: int
    ) -> tuple""",
        """        output, num_output_tokens_so_far: int, *, new_token_ids: list[int] | None = None
    ) -> tuple""",
    )
    .replace(
        """            include_bytes=False,
        )""",
        """            include_bytes=False,
            new_token_ids=new_token_ids,
        )""",
    )
    .replace(
        """                    output, tokens_so_far
                )""",
        """                    output, tokens_so_far, new_token_ids=out["token_ids"]
                )""",
    )
)

# Releases <= 1.2.1: the handler computes logprobs inline, token by token.
HANDLER_INLINE = """\
class HandlerBase:
    @staticmethod
    def _extract_logprobs(output, num_output_tokens_so_far: int):
        if output.logprobs is None:
            return None, None
        new_logprobs = output.logprobs[num_output_tokens_so_far:]
        log_probs = []
        for i, d in enumerate(new_logprobs):
            token = output.token_ids[num_output_tokens_so_far + i]
            log_probs.append(d[token].logprob)
        return log_probs, None

    async def _generate_locally_impl(self, request, context):
        async for res in self.engine.generate(request):
            for output in res.outputs:
                tokens_so_far = 0
                out = {"token_ids": output.token_ids[tokens_so_far:]}
                log_probs, top_logprobs = self._extract_logprobs(output, tokens_so_far)
                yield out
"""
