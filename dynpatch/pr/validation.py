"""What the saved stage results say about *this* patch series.

Each checking stage (test-upstream, verify, bench) saves ``out/evidence/<stage>.json``
for the series digest it checked (see ``dynpatch.evidence``). Here every record is
classified as current, stale (another series digest), invalid or missing, and only
current records are ever reported as results.

``apply`` saves one more record, ``pre-commit`` (:mod:`dynpatch.format.record`): upstream's
pre-commit hooks on the series' files and commits, as a table (hook, pin, files, result).

Policy: pushing requires current, passing test-upstream and verify records (they show
the patch is correct); bench is reported when current and only warned about otherwise
(it measures cost, not correctness). The pre-commit record is shown like the others and
warned about when stale or unusable; a missing one only says "not run" in the
description (``apply`` refuses a series that fails a hook, so no record means that
``apply`` has not been run on it here, not that a hook failed). Generating the branch and
the description locally requires none of them: the description says which results are
not run or stale.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dynpatch import console, evidence
from dynpatch.errors import ToolkitError
from dynpatch.format import record
from dynpatch.pin import ROOT

REQUIRED_TO_PUSH = ("test-upstream", "verify")
# The checking stages' records, then apply's record of upstream's hooks.
STAGES = evidence.STAGES
# The session that makes a stage's record, where it is not named after the stage.
_SESSION = {record.STAGE: record.COMMAND}
_KEYS = {"stage": str, "series_sha256": str, "command": str, "verdict": str, "summary_md": str}


class State(enum.StrEnum):
    CURRENT = "current"
    STALE = "stale"
    INVALID = "invalid"
    MISSING = "not run"


@dataclass(frozen=True)
class StageEvidence:
    stage: str
    state: State
    path: Path
    record: Mapping[str, Any] | None = None
    reason: str = ""

    @property
    def verdict(self) -> str | None:
        """The saved verdict, only for a current record."""
        return str(self.record["verdict"]) if self.state is State.CURRENT and self.record else None

    @property
    def rerun(self) -> str:
        return _SESSION.get(self.stage, f"nox -s {self.stage}")

    def status(self) -> str:
        """One line for the console."""
        if self.state is State.CURRENT:
            return f"{self.stage}: {self.verdict} (saved for this series)"
        return f"{self.stage}: {self.state} ({self.reason})"


def gather(patches_dir: Path, evidence_dir: Path = evidence.EVIDENCE) -> tuple[StageEvidence, ...]:
    """Every stage's saved record, classified against the series now in ``patches_dir``."""
    digest = evidence.series_digest(patches_dir)
    return tuple(_classify(stage, patches_dir, evidence_dir, digest) for stage in STAGES)


def _classify(stage: str, patches_dir: Path, evidence_dir: Path, digest: str) -> StageEvidence:
    path = evidence_dir / f"{stage}.json"
    shown = console.rel(path, ROOT)
    try:
        record = evidence.load(stage, evidence_dir)
    except ToolkitError as exc:
        return StageEvidence(stage, State.INVALID, path, None, str(exc))
    if record is None:
        return StageEvidence(stage, State.MISSING, path, None, f"no {shown}")
    problem = _record_problem(record, stage)
    if problem:
        return StageEvidence(stage, State.INVALID, path, None, f"{shown} {problem}")
    if not evidence.is_current(record, patches_dir):
        return StageEvidence(
            stage, State.STALE, path, record,
            f"{shown} was saved for series sha256 {record['series_sha256'][:12]}, "
            f"not this series ({digest[:12]})",
        )  # fmt: skip
    return StageEvidence(stage, State.CURRENT, path, record)


def _record_problem(record: Mapping[str, Any], stage: str) -> str | None:
    for key, kind in _KEYS.items():
        if not isinstance(record.get(key), kind):
            return f"has no {kind.__name__} {key!r}"
    if record["stage"] != stage:
        return f"is a {record['stage']!r} record"
    if record["verdict"] not in ("pass", "fail"):
        return f"has verdict {record['verdict']!r} (neither pass nor fail)"
    return None


def push_blockers(found: Sequence[StageEvidence]) -> list[str]:
    """Why the saved results do not allow a push (empty: they do)."""
    problems = []
    for e in found:
        if e.stage not in REQUIRED_TO_PUSH:
            continue
        if e.state is not State.CURRENT:
            problems.append(f"{e.stage} is {e.state} ({e.reason}): run `{e.rerun}` first")
        elif e.verdict != "pass":
            problems.append(f"{e.stage} failed for this series (see {console.rel(e.path, ROOT)})")
    return problems


def warnings(found: Sequence[StageEvidence]) -> list[str]:
    """One line per stage whose result will not appear as a pass in the description."""
    lines = []
    for e in found:
        if e.stage == record.STAGE and e.state is State.MISSING:
            continue  # said in the description; apply refuses a failing series anyway
        if e.state is not State.CURRENT:
            lines.append(f"{e.status()}: run `{e.rerun}`")
        elif e.verdict != "pass":
            lines.append(f"{e.stage}: the saved result for this series is a FAIL")
    return lines


def markdown(found: Sequence[StageEvidence]) -> str:
    """The stages' part of the Validation section: current results verbatim, the rest
    named as not run, stale or invalid (their contents are never shown)."""
    return "\n".join(_stage_markdown(e) for e in found)


def _stage_markdown(e: StageEvidence) -> str:
    if e.state is State.CURRENT and e.record is not None:
        r = e.record
        host = r.get("host") if isinstance(r.get("host"), Mapping) else {}
        where = ", ".join(str(host[k]) for k in ("python", "machine") if host.get(k))
        saved = f"saved {r.get('created', '?')}" + (f" (Python {where})" if where else "")
        verdict = "pass" if e.verdict == "pass" else "**FAIL**"
        return (
            f"#### {e.stage}: {verdict}\n\n"
            f"```console\n$ {r['command']}\n```\n\n"
            f"{saved}, for this patch series (sha256 `{r['series_sha256'][:12]}`).\n\n"
            f"{r['summary_md'].strip()}\n"
        )
    if e.state is State.STALE:
        return (
            f"#### {e.stage}: stale, not reported\n\n"
            f"{e.reason[0].upper()}{e.reason[1:]}: its results belong to another version of "
            f"the patch and are left out. Not run for this version (`{e.rerun}`).\n"
        )
    if e.state is State.INVALID:
        return f"#### {e.stage}: not reported\n\nThe saved record is unusable: {e.reason}.\n"
    return f"#### {e.stage}: not run\n\nNo saved result for this version of the patch.\n"
