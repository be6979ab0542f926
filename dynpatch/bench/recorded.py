"""The committed reference counts, ``docs/bench/instructions.json`` and its plot.

``nox -s bench -- --record`` writes them (both or neither) after a run
whose gates pass. The record names the code it measured by :func:`dynpatch.series.
code_digest` (the series' diffs only), so a commit message may quote its figures;
:func:`reference` hands it out only while ``patches/`` still holds that code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dynpatch import evidence, series
from dynpatch.io import files

DOCS = Path("docs") / "bench"
RECORD = "instructions.json"
PLOT = "instructions.png"


def record(data: dict[str, Any], png: bytes, root: Path) -> Path:
    """Write ``data`` (which names its ``code_sha256``) and its plot into
    ``root/docs/bench``, both or neither; the folder's other files (the reviewer's script)
    stay. Return the record's path."""
    if not data.get("code_sha256"):
        raise ValueError("a reference record names the code it measured (code_sha256)")
    folder = root / DOCS
    others = {p.name for p in folder.iterdir()} - {RECORD, PLOT} if folder.is_dir() else set()
    with (
        files.lock(root / "out" / ".docs-bench.lock", f"{folder}"),
        files.staged_dir(folder, keep=frozenset(others)) as tmp,
    ):
        files.write_atomic(tmp / RECORD, json.dumps(data, indent=1, sort_keys=True) + "\n")
        files.write_atomic(tmp / PLOT, png)
    return folder / RECORD


def reference(root: Path) -> dict[str, Any] | None:
    """The reference record when it measured the code now in ``root/patches``; None when
    there is none, or it measured other code (rerun with ``--record``). A file that is
    not a reference record is a ToolkitError."""
    return evidence.reference_for(series.code_digest(root / "patches"), root / DOCS / RECORD)
