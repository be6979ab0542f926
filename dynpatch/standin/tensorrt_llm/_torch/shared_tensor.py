"""TEST DOUBLE: ``tensorrt_llm._torch.shared_tensor`` (see the package docstring)."""

from tensorrt_llm import _Unavailable


class SharedTensorContainer(_Unavailable): ...
