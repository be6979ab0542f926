"""TEST DOUBLE: ``tensorrt_llm.llmapi.llm``. No ``PreprocessedInputs``: dynamo then keeps
list prompts, which is what the replay sends."""

from tensorrt_llm import _Unavailable
from tensorrt_llm.sampling_params import SamplingParams

__all__ = ["BaseLLM", "SamplingParams"]


class BaseLLM(_Unavailable):
    pass
