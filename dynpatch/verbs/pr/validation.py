"""The records saved for *this* base and series (:mod:`dynpatch.evidence`), each typed, or
why there is none; what they let ``pr`` say and do."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dynpatch import evidence
from dynpatch.evidence import Bench, PreCommit, Record, TestUpstream, Verify

# The session that makes a stage's record, where it is not named after the stage.
_SESSION = {PreCommit.STAGE: "nox -s apply"}


@dataclass(frozen=True)
class Found:
    """Each stage's record for this base, series and design, or why there is none."""

    tests: Record[TestUpstream] | str
    verify: Record[Verify] | str
    bench: Record[Bench] | str
    pre_commit: Record[PreCommit] | str

    def each(self) -> list[tuple[str, Record[Any] | str]]:
        kinds = (TestUpstream, Verify, Bench, PreCommit)
        return [(k.STAGE, r) for k, r in zip(kinds, vars(self).values(), strict=True)]


def gather(out: Path, base: str, digest: str, design: str) -> Found:
    """Every stage's record for ``base`` and the series ``digest`` of ``design``."""

    def one(kind: type[Any]) -> Record[Any] | str:
        got = evidence.load(kind, out, base, digest)
        if isinstance(got, Record) and got.design != design:
            return f"made for the {got.design} design, not {design}"
        return got

    return Found(one(TestUpstream), one(Verify), one(Bench), one(PreCommit))


def status(stage: str, got: Record[Any] | str) -> str:
    """One line for the console."""
    if isinstance(got, str):
        return f"{stage}: {got}"
    said = "pass" if got.passed else f"FAIL ({got.problems[0]})"
    return f"{stage}: {said} (saved for this base and series)"


def warnings(found: Found, rerun: str | None = None) -> list[str]:
    """One line per stage the description cannot call a pass, with what to run: the stage's
    session, or ``rerun`` (off the pin, `pr --run-checks` on that base)."""
    lines = []
    for stage, got in found.each():
        if isinstance(got, str):
            lines.append(
                f"{status(stage, got)}: run `{rerun or _SESSION.get(stage, f'nox -s {stage}')}`"
            )
        elif not got.passed:
            lines.append(f"{stage}: the saved result for this series is a FAIL")
    return lines


def push_blockers(found: Found) -> list[str]:
    """Why the branch may not leave the machine: each check the description cites must
    have passed for this base and series."""
    return [status(s, r) for s, r in found.each() if isinstance(r, str) or not r.passed]
