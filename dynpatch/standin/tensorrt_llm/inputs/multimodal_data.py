"""TEST DOUBLE: ``tensorrt_llm.inputs.multimodal_data`` (see the package docstring)."""

from tensorrt_llm import _Unavailable


class VideoData(_Unavailable): ...
