"""What the saved records (:mod:`dynpatch.evidence`) say about *this* series on *this*
base: current, stale (another series), not run for this base, invalid or missing."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dynpatch import console, evidence, series
from dynpatch.errors import ToolkitError
from dynpatch.services import precommit as record

# The session that makes a stage's record, where it is not named after the stage.
_SESSION = {record.STAGE: record.COMMAND}
_KEYS = ("stage", "base", "series_sha256", "command", "verdict", "summary_md")


class State(enum.StrEnum):
    CURRENT = "current"
    STALE = "stale"
    OTHER_BASE = "not run for this base"
    INVALID = "invalid"
    MISSING = "not run"


@dataclass(frozen=True)
class StageEvidence:
    stage: str
    state: State
    record: Mapping[str, Any] | None = None
    reason: str = ""

    @property
    def verdict(self) -> str | None:
        """What a current record says: pass or fail; None for any other record."""
        return str(self.record["verdict"]) if self.state is State.CURRENT and self.record else None

    def status(self) -> str:
        """One line for the console."""
        if self.state is State.CURRENT:
            return f"{self.stage}: {self.verdict} (saved for this base and series)"
        return f"{self.stage}: {self.state} ({self.reason})"


def gather(patches_dir: Path, base: str, evidence_dir: Path) -> tuple[StageEvidence, ...]:
    """Every stage's saved record, classified against ``base`` and the series now in
    ``patches_dir``."""
    digest = series.series_digest(patches_dir)
    return tuple(_classify(stage, evidence_dir, base, digest) for stage in evidence.STAGES)


def _classify(stage: str, evidence_dir: Path, base: str, digest: str) -> StageEvidence:
    shown = console.rel(evidence_dir / f"{stage}.json")
    try:
        saved = evidence.load(stage, evidence_dir)
    except ToolkitError as exc:
        return StageEvidence(stage, State.INVALID, None, str(exc))
    if saved is None:
        return StageEvidence(stage, State.MISSING, None, f"no {shown}")
    if problem := _record_problem(saved, stage):
        return StageEvidence(stage, State.INVALID, None, f"{shown} {problem}")
    if saved["series_sha256"] != digest:
        why = f"{shown} is of series {saved['series_sha256'][:12]}, not this series ({digest[:12]})"
        return StageEvidence(stage, State.STALE, saved, why)
    if saved["base"] != base:
        why = f"{shown} was made on {saved['base'][:12]}, not on {base[:12]}"
        return StageEvidence(stage, State.OTHER_BASE, saved, why)
    return StageEvidence(stage, State.CURRENT, saved)


def _record_problem(saved: Mapping[str, Any], stage: str) -> str | None:
    for key in _KEYS:
        if not isinstance(saved.get(key), str):
            return f"has no str {key!r}"
    if saved["stage"] != stage:
        return f"is a {saved['stage']!r} record"
    if saved["verdict"] not in ("pass", "fail"):
        return f"has verdict {saved['verdict']!r} (neither pass nor fail)"
    return None


def warnings(found: Sequence[StageEvidence], rerun: str | None = None) -> list[str]:
    """One line per stage whose result will not appear as a pass in the description, with
    what to run: the stage's session, or ``rerun`` (a base other than the pin's: the stages
    run on the pin, `pr --run-checks` on that base)."""
    lines = []
    for e in found:
        if e.stage == record.STAGE and e.state is State.MISSING:
            continue  # said in the description; apply refuses a failing series anyway
        if e.state is not State.CURRENT:
            lines.append(
                f"{e.status()}: run `{rerun or _SESSION.get(e.stage, f'nox -s {e.stage}')}`"
            )
        elif e.verdict == "fail":
            lines.append(f"{e.stage}: the saved result for this series is a FAIL")
    return lines


def push_blockers(found: Sequence[StageEvidence]) -> list[str]:
    """Why the branch may not leave the machine: each check the description cites must
    have passed for this base and series."""
    return [e.status() for e in found if e.verdict != "pass"]


def markdown(e: StageEvidence) -> str:
    """The stage's saved result in full if current; else named as not run, stale or
    invalid (its contents never shown)."""
    if e.state is not State.CURRENT:
        return f"## {e.stage}: {e.state}\n\n{e.reason}.\n"
    r = e.record or {}
    host = r.get("host") if isinstance(r.get("host"), Mapping) else {}
    where = ", ".join(str(host[k]) for k in ("python", "machine") if host.get(k))
    return (
        f"## {e.stage}: {e.verdict}\n\n```console\n$ {r.get('command')}\n```\n\n"
        f"Saved {r.get('created', '?')}" + (f" (Python {where})" if where else "") + ".\n\n"
        f"{str(r.get('summary_md') or '').strip()}\n"
    )
