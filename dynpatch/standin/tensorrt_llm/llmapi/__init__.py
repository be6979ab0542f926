"""TEST DOUBLE: ``tensorrt_llm.llmapi`` (no ``ConversationParams``: affinity stays off)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class DisaggregatedParams:
    """Fields dynamo reads or sets on TRT-LLM's disaggregation parameters."""

    request_type: str | None = None
    first_gen_tokens: list[int] | None = None
    ctx_request_id: int | None = None
    opaque_state: bytes | None = None
    draft_tokens: list[int] | None = None
    disagg_request_id: int | None = None
    multimodal_embedding_handles: list[Any] | None = None
    multimodal_hashes: list[Any] | None = None
