"""Replay harness: dynamo's real TRT-LLM handler driven by an engine double, on CPU, in a
child process for one tree, or one child forking a copy per tree (:mod:`~.runner` starts
:mod:`~.child`). What a child imports is standard library only; :data:`STANDIN_DIR` (a
``tensorrt_llm`` test double) goes on its ``PYTHONPATH``.
"""

from __future__ import annotations

from dynpatch.standin import STANDIN_DIR

__all__ = ["STANDIN_DIR"]
