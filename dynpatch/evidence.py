"""The records the checking stages save in ``out/evidence/<stage>.json``, keyed to the base and
series their trees were built from: ``nox -s pr`` shows only those of its own base and series."""

from __future__ import annotations

import datetime as dt
import json
import platform
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from dynpatch.errors import ToolkitError
from dynpatch.io import files
from dynpatch.series import series_digest

STAGES = ("test-upstream", "verify", "bench", "pre-commit")


@dataclass(frozen=True)
class Record:
    """What a checking stage saves (``save`` adds when and where)."""

    stage: str  # one of STAGES
    base: str
    series_sha256: str
    command: str  # the command line a person can rerun
    verdict: str  # "pass" or "fail"
    summary_md: str  # for the PR's Validation section, as the stage printed it
    details: dict[str, Any]


def save(record: Record, patches_dir: Path, out: Path) -> Path:
    """Write ``out/<stage>.json``; refuse, saving nothing, if ``patches_dir``'s series changed."""
    now, made = series_digest(patches_dir), record.series_sha256
    if now != made:
        raise ToolkitError(
            f"{patches_dir} changed while {record.stage} ran (its trees hold series sha256 "
            f"{made[:12]}, {patches_dir.name}/ now {now[:12]}): nothing saved; rerun it"
        )
    when = {  # when and where it was made
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "host": {"python": platform.python_version(), "machine": platform.machine()},
    }
    out.mkdir(parents=True, exist_ok=True)  # an OSError is the command line's one line
    path = out / f"{record.stage}.json"
    files.write_atomic(
        path, json.dumps({**asdict(record), **when}, indent=2, sort_keys=True) + "\n"
    )
    return path


def replace_files(folder: Path, new: Mapping[str, bytes], locks: Path) -> None:
    """``new`` in ``folder``, all or none, the folder's other files kept."""
    others = {p.name for p in folder.iterdir()} - set(new) if folder.is_dir() else set()
    lock = locks / f"{folder.name}.lock"
    with files.lock(lock, f"{folder}"), files.staged_dir(folder, keep=frozenset(others)) as tmp:
        for name, data in new.items():
            files.write_atomic(tmp / name, data)


def _read_json(path: Path) -> Any:
    """``path``'s JSON; None when there is no such file; one line when it is not JSON."""
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ToolkitError(f"{path} is not valid JSON: {exc}") from None


def load(stage: str, out: Path) -> dict[str, Any] | None:
    return _read_json(out / f"{stage}.json")
