"""Replay harness: dynamo's real TRT-LLM handler driven by an engine double, on CPU.

Parent side (the ``verify`` and ``bench`` stages) and child side (one process per tree,
``python -m dynpatch.replay.child``) share the data model and the wire format. Every
module the child imports is standard-library only (no libcst, no gitpython, no rich):

* :mod:`~dynpatch.replay.script`    - what the engine double replays (JSON-able).
* :mod:`~dynpatch.replay.scenarios` - the named scenarios and the benchmark streams.
* :mod:`~dynpatch.replay.engine`    - the engine double (TRT-LLM-shaped results).
* :mod:`~dynpatch.replay.wire`      - canonical chunk serialisation, first divergence.
* :mod:`~dynpatch.replay.child`     - the child entry point.

``standin/tensorrt_llm`` is a test double of the ``tensorrt_llm`` package; it is put on
the children's ``PYTHONPATH`` and nowhere else.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
STANDIN_DIR = PACKAGE_DIR / "standin"
