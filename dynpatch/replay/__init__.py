"""Replay harness: dynamo's TRT-LLM handler on an engine double in child processes (:mod:`~.child`,
started by :mod:`~.runner`), :data:`dynpatch.standin.STANDIN_DIR` (a ``tensorrt_llm`` double) on
their path."""
