"""A check's result, and the checking stages (test-upstream's CPU tier, verify) run
in-process on one release: its interpreter and folder, no evidence record saved."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from dynpatch.console import as_text
from dynpatch.errors import ToolkitError
from dynpatch.evidence import Record, Verify
from dynpatch.fetch import Checkout
from dynpatch.io import files
from dynpatch.services import replay_check as verify
from dynpatch.services import upstream_tests as test_upstream

PASS, FAIL, ERROR, NA, NOT_RUN, SKIPPED = "pass", "fail", "error", "n/a", "not run", "skipped"
STAGES = ("test-upstream", "verify")


@dataclass(frozen=True)
class Check:
    status: str  # PASS, FAIL, ERROR, NA, NOT_RUN or SKIPPED
    detail: str = ""
    seconds: float = 0.0
    cached: bool = False

    @property
    def bad(self) -> bool:
        return self.status in (FAIL, ERROR)


@dataclass(frozen=True)
class CheckJob:
    checkout: Checkout
    patches: Path  # the release's own series
    folder: Path  # the stages' output and logs
    trees: Path  # the baseline and patched trees (shared, one pair per base and series)
    python: Path  # the interpreter with the release's runtime
    budget: int  # verify: hypothesis streams
    seed: int
    alternative: bool = True  # verify: also the alternative (informative; bump saves it)


def run_check(stage: str, job: CheckJob, screen: Console) -> tuple[Check, Record | None]:
    """``stage`` on ``job``: pass or fail with its summary line and the record it would save
    (what it would print: ``<stage>.log``), or error with the reason it could not run."""
    start, python = time.perf_counter(), str(job.python)
    where = (job.checkout, job.patches, job.trees, job.folder / stage, screen)
    try:
        if stage == "test-upstream":
            options = test_upstream.UpstreamTestOptions(tier="cpu", python=python)
            result = test_upstream.check(options, *where)
        else:
            options = verify.VerifyOptions(
                budget=job.budget, seed=job.seed, python=python, alternative=job.alternative
            )
            result = verify.check(options, *where)
    except ToolkitError as exc:
        return Check(ERROR, str(exc), time.perf_counter() - start), None
    seconds = time.perf_counter() - start
    files.write_atomic(job.folder / f"{stage}.log", as_text(result.shown))
    assert result.record is not None  # both stages say what they would save
    return Check(PASS if result.ok else FAIL, summary(result.record), seconds), result.record


def summary(record: Record[Any]) -> str:
    """One line of a stage's record, for the table's notes and bump's output."""
    f = record.facts
    if isinstance(f, Verify):
        text = f"{f.streams - f.drawn} named + {f.drawn} property streams (seed {f.seed}); "
        text += f"divergences: {len(f.differ) or 'none'}"
        text += f" ({', '.join(d.split(':')[0] for d in f.differ[:3])})" if f.differ else ""
        text += f"; expectation not met: {', '.join(f.unmet[:3])}" if f.unmet else ""
        waived = record.details.get("not_expected")
        return text + (f"; not expected of this release: {'; '.join(waived)}" if waived else "")
    cpu = next(t for t in f.tiers if t.name == "cpu")
    mutation = "no carried tests ran"
    if cpu.new or cpu.extended:
        mutation = f"carried tests: {len(cpu.failed_before)} fail on baseline, "
        mutation += f"{len(cpu.passed_after)} pass on patched"
    return (
        f"baseline {cpu.before.get('passed', 0)} passed of {sum(cpu.before.values())}, patched "
        f"{cpu.after.get('passed', 0)} passed of {sum(cpu.after.values())}; {mutation}; "
        f"regressions: {len(cpu.changed) or 'none'}"
    ) + (f"; problem: {record.problems[0]}" if record.problems else "")
