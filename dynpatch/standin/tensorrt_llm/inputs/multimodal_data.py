"""TEST DOUBLE: ``tensorrt_llm.inputs.multimodal_data`` (see the package docstring)."""

from __future__ import annotations

from tensorrt_llm import _Unavailable


class VideoData(_Unavailable):
    pass
