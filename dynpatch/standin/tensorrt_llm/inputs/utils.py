"""TEST DOUBLE: ``tensorrt_llm.inputs.utils`` (see the package docstring)."""

from __future__ import annotations

from typing import Any

from tensorrt_llm import StandInUsed


async def async_load_video(*args: Any, **kwargs: Any) -> Any:
    raise StandInUsed("no media loading in the CPU stand-in")
