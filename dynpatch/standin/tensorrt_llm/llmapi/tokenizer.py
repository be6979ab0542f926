"""TEST DOUBLE: ``tensorrt_llm.llmapi.tokenizer`` (see the package docstring)."""

from tensorrt_llm import StandInUsed


def tokenizer_factory(*args: object, **kwargs: object) -> None:
    raise StandInUsed("no tokenizer in the CPU stand-in")
