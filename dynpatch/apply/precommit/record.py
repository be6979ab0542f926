"""The hooks' results for a series that passed them all, saved as the evidence record of
the stage ``pre-commit`` (:mod:`dynpatch.evidence`), which ``pr`` classifies like the other
stages' records."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from dynpatch import evidence, series
from dynpatch.apply.precommit.findings import HookResult, markdown

STAGE = "pre-commit"
COMMAND = "nox -s apply"


def save(
    results: Sequence[HookResult], patches_dir: Path, out: Path, base: str, command: str = COMMAND
) -> Path:
    """Write ``out/pre-commit.json`` for the series in ``patches_dir`` on ``base``."""
    if not results or any(not r.ok for r in results):
        raise ValueError("a pre-commit record is saved only for a series that passed")
    return evidence.save(
        evidence.Record(
            STAGE,
            base=base,
            series_sha256=series.series_digest(patches_dir),
            command=command,
            verdict="pass",
            summary_md=markdown(results),
            details={"hooks": [dataclasses.asdict(r) for r in results]},
        ),
        patches_dir,
        out,
    )
