"""TEST DOUBLE of NVIDIA's ``tensorrt_llm`` (a GPU build), written for this toolkit: the names
dynamo's handler asks for; what needs a real engine raises :class:`StandInUsed`. Never install."""

STANDIN = True  # the replay child checks this to be sure it imported the double


class StandInUsed(RuntimeError):
    """A part of TensorRT-LLM the replay does not provide was reached."""


class _Unavailable:
    """Engine classes dynamo imports but the replay never builds."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise StandInUsed(f"{type(self).__name__} is not available in the CPU stand-in")


class LLM(_Unavailable): ...


class MultimodalEncoder(_Unavailable): ...
