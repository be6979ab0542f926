"""TEST DOUBLE: ``tensorrt_llm.sampling_params`` (dataclasses: dynamo copies them by replace)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class GuidedDecodingParams:
    json: Any | None = None
    regex: str | None = None
    grammar: str | None = None
    json_object: bool = False
    structural_tag: str | None = None


class LogitsProcessor:
    """Base class dynamo's logits adapter derives from."""

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError


@dataclass
class SamplingParams:
    n: int = 1
    best_of: int | None = None
    max_tokens: int = 32
    min_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    seed: int | None = None
    logprobs: int | None = None
    prompt_logprobs: int | None = None
    stop_token_ids: list[int] | None = None
    ignore_eos: bool = False
    guided_decoding: GuidedDecodingParams | None = None
    logits_processor: Any | None = None
