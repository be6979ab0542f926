"""TEST DOUBLE: ``tensorrt_llm.executor.result`` (results come from the engine double)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Logprob:
    logprob: float
    rank: int | None = None


class GenerationResult:
    """A name for dynamo's annotations only."""
