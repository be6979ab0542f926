"""TEST DOUBLE: ``tensorrt_llm.executor.result``. ``Logprob`` has TRT-LLM's shape; the
results themselves come from the replay's engine double."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Logprob:
    logprob: float
    rank: int | None = None


class GenerationResult:
    """A name for dynamo's annotations only."""
