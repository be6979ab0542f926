"""TEST DOUBLE of NVIDIA's ``tensorrt_llm`` package, for replaying dynamo's TRT-LLM handler
on a CPU machine (the real package needs a GPU build).

Written for this toolkit, not copied from TensorRT-LLM. It provides only the names that
``dynamo.trtllm.request_handlers.aggregated_handler`` and the dynamo modules it imports
ask for, with the shapes the handler touches. Anything that would need a real engine
raises :class:`StandInUsed`, so an unexpected code path fails loudly instead of faking.
The replay harness (``dynpatch/replay``) and test-upstream's stand-in tier put its parent
folder on the ``PYTHONPATH`` of their child processes only; never install it.
"""

from __future__ import annotations

STANDIN = True  # the replay child checks this to be sure it imported the double


class StandInUsed(RuntimeError):
    """A part of TensorRT-LLM the replay does not provide was reached."""


class _Unavailable:
    """Placeholder for engine classes dynamo imports but the replay never builds."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise StandInUsed(f"{type(self).__name__} is not available in the CPU stand-in")


class LLM(_Unavailable):
    pass


class MultimodalEncoder(_Unavailable):
    pass
