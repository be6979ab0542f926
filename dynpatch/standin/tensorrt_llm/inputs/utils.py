"""TEST DOUBLE: ``tensorrt_llm.inputs.utils`` (see the package docstring)."""

from tensorrt_llm import StandInUsed


async def async_load_video(*args: object, **kwargs: object) -> None:
    raise StandInUsed("no media loading in the CPU stand-in")
