"""The hooks' results for the series in ``patches/``, saved for the PR's Validation.

``apply`` refuses a series that fails any hook, so a record is written only for a series
that passed them all, after ``patches/`` holds it (or, with ``--check``, is found to hold
it). It follows the evidence contract of :mod:`dynpatch.evidence` (stage, series digest,
command, verdict, ``summary_md``, details) under the stage name ``pre-commit``, so ``pr``
classifies it as current or stale like the other stages' records. ``evidence.save``
accepts only the stages it lists, hence this writer.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import platform
from collections.abc import Sequence
from pathlib import Path

from dynpatch.evidence import series_digest
from dynpatch.format.findings import HookResult, markdown
from dynpatch.io import files

STAGE = "pre-commit"
COMMAND = "nox -s apply"


def default_dir(patches_dir: Path) -> Path:
    """Where the record of ``patches_dir`` lives: ``out/evidence`` beside it (the
    repository's ``out/evidence`` for its ``patches/``), so a series made elsewhere (a
    test's temporary folder) never overwrites the real series' record."""
    return patches_dir.resolve().parent / "out" / "evidence"


def save(
    results: Sequence[HookResult], patches_dir: Path, out: Path, command: str = COMMAND
) -> Path:
    """Write ``out/pre-commit.json`` for the series in ``patches_dir``; return its path."""
    if not results or any(not r.ok for r in results):
        raise ValueError("a pre-commit record is saved only for a series that passed")
    record = {
        "stage": STAGE,
        "series_sha256": series_digest(patches_dir),
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "host": {"python": platform.python_version(), "machine": platform.machine()},
        "command": command,
        "verdict": "pass",
        "summary_md": markdown(results),
        "details": {"hooks": [dataclasses.asdict(r) for r in results]},
    }
    path = out / f"{STAGE}.json"
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise files.os_error(exc, f"cannot make {out}") from None
    files.write_atomic(path, json.dumps(record, indent=2, sort_keys=True) + "\n")
    return path
