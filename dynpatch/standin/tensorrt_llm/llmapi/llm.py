"""TEST DOUBLE: ``tensorrt_llm.llmapi.llm`` (no ``PreprocessedInputs``: prompts stay lists)."""

from tensorrt_llm import _Unavailable
from tensorrt_llm.sampling_params import SamplingParams

__all__ = ["BaseLLM", "SamplingParams"]


class BaseLLM(_Unavailable): ...
