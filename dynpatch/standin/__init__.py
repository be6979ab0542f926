"""Labelled CPU test doubles of what dynamo imports and this machine cannot install:
``tensorrt_llm/`` (see its docstring). :data:`STANDIN_DIR` goes on the ``PYTHONPATH`` of
the replay children and of test-upstream's stand-in tier, nowhere else."""

from __future__ import annotations

import os
from pathlib import Path

STANDIN_DIR = Path(__file__).resolve().parent


def off_path(pythonpath: str | None) -> list[str]:
    """The entries of a ``PYTHONPATH`` value less this folder (never inherited)."""
    entries = (pythonpath or "").split(os.pathsep)
    return [e for e in entries if e and Path(e).resolve() != STANDIN_DIR]
