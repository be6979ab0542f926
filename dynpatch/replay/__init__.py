"""Replay harness: dynamo's real TRT-LLM handler driven by an engine double, on CPU.

Parent side (the ``verify`` and ``bench`` stages) and child side (one process per tree,
``python -m dynpatch.replay.child``) share the data model and the wire format. Every
module the child imports is standard-library only (no libcst, no gitpython, no rich):

* :mod:`~dynpatch.replay.script`    - what the engine double replays (JSON-able).
* :mod:`~dynpatch.replay.streams`   - deterministic building blocks of those scripts.
* :mod:`~dynpatch.replay.scenarios` - the named scenarios and the benchmark streams.
* :mod:`~dynpatch.replay.engine`    - the engine double (TRT-LLM-shaped results).
* :mod:`~dynpatch.replay.wire`      - canonical chunk serialisation, first divergence.
* :mod:`~dynpatch.replay.paths`     - which modules must come from the tree; ``inside``.
* :mod:`~dynpatch.replay.fatal`     - the fatal-exit seam each release has, observed.
* :mod:`~dynpatch.replay.handler`   - dynamo's handler imported, its fatal exit observed.
* :mod:`~dynpatch.replay.timing`    - what a benchmark worker measures.
* :mod:`~dynpatch.replay.job`       - verify's transport: a job file in, a result file out.
* :mod:`~dynpatch.replay.serve`     - bench's transport: a worker answering over pipes.
* :mod:`~dynpatch.replay.child`     - the child entry point (either transport).
* :mod:`dynpatch.io.atomic`         - the result file written all-or-nothing.

The parent side (:mod:`~dynpatch.replay.runner`, the stages) also uses ``paths``.

:data:`~dynpatch.standin.STANDIN_DIR` (``dynpatch/standin/tensorrt_llm``, a test double of
the ``tensorrt_llm`` package) is put on the children's ``PYTHONPATH``.
"""

from __future__ import annotations

from pathlib import Path

from dynpatch.standin import STANDIN_DIR

PACKAGE_DIR = Path(__file__).resolve().parent
__all__ = ["PACKAGE_DIR", "STANDIN_DIR"]
