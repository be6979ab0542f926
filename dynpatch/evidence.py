"""What a verb returns (``StageResult``) and the records the checking stages save in
``out/evidence/<stage>.json``, keyed to the base and the series their trees were built from:
``nox -s pr`` shows only those made on its own base for its own series."""

from __future__ import annotations

import datetime as dt
import io
import json
import platform
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console, RenderableType

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


@dataclass
class StageResult:
    """Whether the verb passed, what it prints on stdout (and warns of on stderr), and the
    record to save."""

    ok: bool = True
    shown: list[RenderableType] = field(default_factory=list)
    record: Record | None = None
    warnings: list[str] = field(default_factory=list)

    def say(self, *lines: RenderableType) -> None:
        self.shown.extend(lines)


def show(screen: Console, item: RenderableType) -> None:
    """A line as it is (never folded, no markup); a table styled and fit to the screen."""
    if isinstance(item, str):
        screen.print(item, markup=False, soft_wrap=True)
    else:
        screen.print(item)


def as_text(items: list[RenderableType], width: int = 120) -> str:
    """``items`` as the command line prints them, on a screen ``width`` wide."""
    text = io.StringIO()
    screen = Console(file=text, width=width, highlight=False)
    for item in items:
        show(screen, item)
    return text.getvalue()


def save(record: Record, patches_dir: Path, out: Path) -> Path:
    """Write ``out/<stage>.json``; refuses, saving nothing, when ``patches_dir`` holds
    another series than the record's by now."""
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
