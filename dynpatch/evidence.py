"""Saved results of the checking stages (test-upstream, verify, bench), keyed to a patch.

Each stage writes ``out/evidence/<stage>.json`` holding the digest of the exact
``patches/`` series it checked. ``nox -s pr`` reads them back and refuses (or flags)
results that belong to another version of the series.

Record contract (every stage): ``stage``, ``series_sha256``, ``created``, ``host``,
``command`` (the exact command line a person can rerun), ``verdict`` (``"pass"`` or
``"fail"``), ``summary_md`` (Markdown for the PR's Validation section: tables and
lines exactly as the stage printed them) and ``details`` (stage-specific data).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import platform
from pathlib import Path
from typing import Any

from dynpatch.errors import ToolkitError
from dynpatch.io import files
from dynpatch.pin import ROOT

OUT = ROOT / "out"
EVIDENCE = OUT / "evidence"
STAGES = ("test-upstream", "verify", "bench")


def series_digest(patches_dir: Path) -> str:
    """sha256 over ``patches/series`` and, in order, every patch it lists."""
    series = patches_dir / "series"
    if not series.is_file():
        raise ToolkitError(f"{patches_dir}/series not found: run `nox -s apply` first")
    digest = hashlib.sha256()
    for name in ["series", *series.read_text().split()]:
        path = patches_dir / name
        if not path.is_file():
            raise ToolkitError(f"{patches_dir}/series lists {name}, which does not exist")
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def save(
    stage: str,
    patches_dir: Path,
    *,
    command: str,
    verdict: str,
    summary_md: str,
    details: dict[str, Any],
    out: Path = EVIDENCE,
) -> Path:
    """Write ``out/<stage>.json`` for the series in ``patches_dir``; return its path."""
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}")
    if verdict not in ("pass", "fail"):
        raise ValueError(f"verdict must be 'pass' or 'fail', not {verdict!r}")
    record = {
        "stage": stage,
        "series_sha256": series_digest(patches_dir),
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "host": {"python": platform.python_version(), "machine": platform.machine()},
        "command": command,
        "verdict": verdict,
        "summary_md": summary_md,
        "details": details,
    }
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{stage}.json"
    files.write_atomic(path, json.dumps(record, indent=2, sort_keys=True) + "\n")
    return path


def load(stage: str, out: Path = EVIDENCE) -> dict[str, Any] | None:
    path = out / f"{stage}.json"
    if not path.is_file():
        return None
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ToolkitError(f"{path} is not valid JSON: {exc}") from None
    return data


def is_current(record: dict[str, Any], patches_dir: Path) -> bool:
    """True when ``record`` was made for the series now in ``patches_dir``."""
    return record.get("series_sha256") == series_digest(patches_dir)
