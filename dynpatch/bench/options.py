"""The bench stage's options: what ``python -m dynpatch bench`` was asked for, as one
frozen dataclass the stage reads."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from dynpatch.fetch import FetchOptions


@dataclass(frozen=True, kw_only=True)
class BenchOptions(FetchOptions):
    mutant: bool = False  # also count a mutant, whose gates must fail
    record: bool = False  # write the reference docs/bench/ (gates passed)
    python: str = sys.executable  # interpreter of the replay children
    out: Path | None = None  # None: out/bench
