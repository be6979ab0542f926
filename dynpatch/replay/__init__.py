"""Replay harness: dynamo's TRT-LLM handler on an engine double in child processes (:mod:`~.child`,
started by :mod:`~.runner`), :data:`STANDIN_DIR` (a ``tensorrt_llm`` double) on their path."""

from __future__ import annotations

from dynpatch.standin import STANDIN_DIR

__all__ = ["STANDIN_DIR"]
