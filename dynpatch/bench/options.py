"""The bench stage's options: what ``python -m dynpatch bench`` was asked for (the timed
A/B run, or ``--instructions``), as one frozen dataclass the stages read."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from dynpatch import evidence
from dynpatch.fetch import FetchOptions
from dynpatch.patch.apply import PATCHES


@dataclass(frozen=True, kw_only=True)
class Options(FetchOptions):
    quick: bool = False  # CI form: same code path, fewer samples
    pairs: int | None = None  # None: the form's default
    ops: int | None = None
    warmup: int | None = None
    rounds: int | None = None
    strict: bool = False  # exit 1 when a target is not met
    instructions: bool = False  # count instructions under valgrind instead of timing
    mutant: bool = False  # instructions: also count a mutant, whose gates must fail
    record: bool = False  # instructions: write the reference docs/bench/ (gates passed)
    python: str = sys.executable  # interpreter of the replay children
    out: Path | None = None  # None: out/bench[/quick]
    patches: Path = PATCHES
    evidence: Path = evidence.EVIDENCE
