"""TEST DOUBLE: ``tensorrt_llm.llmapi.llm`` (see the package docstring).

``PreprocessedInputs`` is left out: dynamo treats it as an older TRT-LLM without it and
keeps list prompts, which is what the replay sends.
"""

from __future__ import annotations

from tensorrt_llm import _Unavailable
from tensorrt_llm.sampling_params import SamplingParams

__all__ = ["BaseLLM", "SamplingParams"]


class BaseLLM(_Unavailable):
    pass
