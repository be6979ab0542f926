"""Test doubles of what dynamo imports but this machine cannot install (children's paths only)."""

from __future__ import annotations

import os
from pathlib import Path

STANDIN_DIR = Path(__file__).resolve().parent


def off_path(pythonpath: str | None) -> list[str]:
    """The entries of a ``PYTHONPATH`` value less this folder (never inherited)."""
    entries = (pythonpath or "").split(os.pathsep)
    return [e for e in entries if e and Path(e).resolve() != STANDIN_DIR]
