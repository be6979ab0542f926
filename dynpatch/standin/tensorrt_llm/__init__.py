"""TEST DOUBLE of NVIDIA's ``tensorrt_llm`` package, for replaying dynamo's TRT-LLM handler
on a CPU machine (the real package needs a GPU build).

Written for this toolkit, not copied from TensorRT-LLM: only the names dynamo's TRT-LLM
handler and the modules it imports ask for, in the shapes the handler touches. Anything
that would need a real engine raises :class:`StandInUsed`. Only child processes get its
folder on their ``PYTHONPATH``; never install it.
"""

STANDIN = True  # the replay child checks this to be sure it imported the double


class StandInUsed(RuntimeError):
    """A part of TensorRT-LLM the replay does not provide was reached."""


class _Unavailable:
    """Engine classes dynamo imports but the replay never builds."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise StandInUsed(f"{type(self).__name__} is not available in the CPU stand-in")


class LLM(_Unavailable):
    pass


class MultimodalEncoder(_Unavailable):
    pass
