"""Replay harness: dynamo's real TRT-LLM handler driven by an engine double, on CPU.

The parent side (:mod:`~.runner`, the ``verify`` and ``bench`` stages) starts one child per
tree (:mod:`~.child`, :mod:`~.serve`, :mod:`~.counted`). Every module a child imports is
standard-library only: scripts (:mod:`~.script`, :mod:`~.streams`, :mod:`~.scenarios`),
the engine double (:mod:`~.engine`), dynamo's handler (:mod:`~.handler`, :mod:`~.fatal`)
and the wire format (:mod:`~.wire`). :data:`STANDIN_DIR` (a test double of
``tensorrt_llm``) goes on the children's ``PYTHONPATH``.
"""

from __future__ import annotations

from dynpatch.standin import STANDIN_DIR

__all__ = ["STANDIN_DIR"]
