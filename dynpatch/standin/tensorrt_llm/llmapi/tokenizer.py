"""TEST DOUBLE: ``tensorrt_llm.llmapi.tokenizer`` (see the package docstring)."""

from __future__ import annotations

from typing import Any

from tensorrt_llm import StandInUsed


def tokenizer_factory(*args: Any, **kwargs: Any) -> Any:
    raise StandInUsed("no tokenizer in the CPU stand-in")
