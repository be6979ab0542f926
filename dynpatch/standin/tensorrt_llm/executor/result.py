"""TEST DOUBLE: ``tensorrt_llm.executor.result`` (see the package docstring).

``Logprob`` has TRT-LLM's shape (a slotted record of ``logprob`` and ``rank``, no decoded
text). ``GenerationResult`` is only a name here: dynamo uses it in annotations, and the
replay's engine double (``dynpatch/replay/engine.py``) produces the results.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Logprob:
    logprob: float
    rank: int | None = None


class GenerationResult:
    """Annotation-only name; see the engine double for the streamed results."""
