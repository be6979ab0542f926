"""Labelled CPU test doubles of what dynamo imports and this machine cannot install.

``tensorrt_llm/`` here is a TEST DOUBLE of NVIDIA's package (see its docstring). This
folder, :data:`STANDIN_DIR`, goes on the ``PYTHONPATH`` of the processes that need it and
nowhere else: the replay children (verify, bench) and the stand-in tier of
test-upstream. Never install it.
"""

from __future__ import annotations

import os
from pathlib import Path

STANDIN_DIR = Path(__file__).resolve().parent


def off_path(pythonpath: str | None) -> list[str]:
    """The entries of a ``PYTHONPATH`` value less this folder: a child gets the stand-in
    only where it is put on purpose, never by inheriting it."""
    entries = (pythonpath or "").split(os.pathsep)
    return [e for e in entries if e and Path(e).resolve() != STANDIN_DIR]
