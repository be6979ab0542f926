"""``python -m dynpatch matrix-join DIR``: one matrix from many one-release runs.

A CI fan-out runs ``matrix --versions X --out DIR/X`` once per release (the list from
``matrix --list-json``). This reads every ``DIR/*/matrix.json``, joins the rows (in
release order, each release once: the newest build on PyPI and the same pinned release
are one row) and writes ``OUT/matrix.md`` and ``OUT/matrix.json`` with the same rendering as a whole run (:mod:`.report`). Exit status 1 when any row is
not ok (drifted, or a failed check), else 0; a release whose fix is upstream is a finding.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dynpatch import console
from dynpatch.errors import ToolkitError
from dynpatch.evidence import StageResult
from dynpatch.matrix import report
from dynpatch.matrix.release import Row
from dynpatch.matrix.releases import version_key
from dynpatch.matrix.stages import SKIPPED, STAGES

# Meta every part must agree on: rows of different pins or series are not one matrix.
SAME = ("pinned", "committed_series_sha256")


@dataclass(frozen=True, kw_only=True)
class JoinOptions:
    dir: Path  # holds DIR/<version>/matrix.json, one per run
    out: Path | None = None  # where the joined matrix.md and matrix.json go (default: DIR)


def run(args: JoinOptions) -> StageResult:
    parts = sorted(args.dir.glob("*/matrix.json"))
    if not parts:
        raise ToolkitError(f"no {args.dir}/*/matrix.json to join: run `matrix --out` per release")
    loaded = [_load(p) for p in parts]
    first_path, first = parts[0], loaded[0][1]
    for path, (_, meta) in zip(parts, loaded, strict=True):
        for key in SAME:
            if meta.get(key) != first.get(key):
                raise ToolkitError(
                    f"{path} has {key} {meta.get(key)!r}, {first_path} has {first.get(key)!r}: "
                    "not one matrix"
                )
    seen: dict[str, tuple[Path, Row]] = {}
    for path, (part_rows, _) in zip(parts, loaded, strict=True):
        for row in part_rows:
            held = seen.get(row.version)
            seen[row.version] = _once(row, path, *held) if held else (path, row)
    rows = sorted((row for _, row in seen.values()), key=lambda r: version_key(r.version))

    bad = [r.version for r in rows if not r.ok]
    seconds = sum(float(meta.get("seconds", 0)) for _, meta in loaded)
    skipped = [
        s for s in STAGES if any(getattr(r, s.replace("-", "_")).status == SKIPPED for r in rows)
    ]
    summary = (
        f"{report.tally(rows)}; {report.verdict(rows, skipped)}; joined from {len(parts)} runs"
    )
    meta = {
        **{k: first.get(k) for k in ("pinned", "toolkit", "committed_series_sha256")},
        "created": report.now(),
        "budget": first.get("budget"),
        "seed": first.get("seed"),
        "jobs": first.get("jobs"),
        "seconds": round(seconds, 1),  # the runs' own times, added up
        "ok": not bad,
        "summary": summary,
        "joined": [console.rel(p) for p in parts],
    }
    return StageResult(not bad, report.show(rows, meta, args.out or args.dir, summary))


def _once(row: Row, path: Path, other_path: Path, other: Row) -> tuple[Path, Row]:
    """One row for a release two runs checked: the newest build on PyPI is also a pinned
    release (the same wheel). Its worse outcome is kept, marked newest."""
    if row.newest == other.newest or row.sha256 != other.sha256:
        raise ToolkitError(f"release {row.version} is in both {other_path} and {path}")
    path, kept = (path, row) if other.ok else (other_path, other)
    return path, dataclasses.replace(kept, newest=True)


def _load(path: Path) -> tuple[list[Row], dict[str, Any]]:
    """The rows and the meta of one run's matrix.json."""
    try:
        data = json.loads(path.read_text())
        rows = [Row.from_json(r) for r in data["rows"]]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ToolkitError(f"{path} is not a matrix.json of `matrix` ({exc})") from None
    for key in ("pinned", "toolkit", "committed_series_sha256"):
        if not isinstance(data.get(key), str):
            raise ToolkitError(f"{path} is not a matrix.json of `matrix` (no {key!r})")
    return rows, data
