"""Labelled CPU test doubles of what dynamo imports and this machine cannot install.

``tensorrt_llm/`` here is a TEST DOUBLE of NVIDIA's package (see its docstring). This
folder, :data:`STANDIN_DIR`, goes on the ``PYTHONPATH`` of the processes that need it and
nowhere else: the replay children (verify, bench) and the stand-in tier of
test-upstream. Never install it.
"""

from __future__ import annotations

from pathlib import Path

STANDIN_DIR = Path(__file__).resolve().parent
