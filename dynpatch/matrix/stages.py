"""A check's result, and the checking stages (test-upstream, verify) run as children.

Each release has its own interpreter and runtime, so a stage runs as its own
``python -m dynpatch <stage>`` process. The contract with that child is its evidence
record (:mod:`dynpatch.evidence`), written under the job's folder: the verdict and the
summary are read from the record alone (``verdict`` and ``details``). The exit status
only tells a child that ran (0 or 1, the stages' pass and fail) from one that crashed
(anything else); a crashed child's reason is its last ``error:`` line, the one line every
failure of the command line ends in.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dynpatch import console, evidence
from dynpatch.errors import ToolkitError
from dynpatch.io import files, proc
from dynpatch.pin import ROOT

PASS, FAIL, ERROR, NA, NOT_RUN, SKIPPED = "pass", "fail", "error", "n/a", "not run", "skipped"
STAGES = ("test-upstream", "verify")
RAN = (0, 1)  # the exit statuses of a stage that ran to its verdict
TIMEOUT = 3600  # seconds; the CPU tests of one release take minutes


@dataclass
class Check:
    status: str  # PASS, FAIL, ERROR, NA, NOT_RUN or SKIPPED
    detail: str = ""
    seconds: float = 0.0
    cached: bool = False

    @property
    def bad(self) -> bool:
        return self.status in (FAIL, ERROR)


@dataclass(frozen=True)
class StageJob:
    """One release's stage run: its inputs, and the one folder the child writes under."""

    pin: Path
    vendor: Path
    version: str
    patches: Path  # the release's own series
    folder: Path  # logs, the stage's output and its evidence record
    python: Path  # the interpreter with the release's runtime
    budget: int  # verify: hypothesis streams
    seed: int

    def record(self, stage: str) -> Path:
        return self.folder / "evidence" / f"{stage}.json"

    def argv(self, stage: str) -> list[str]:
        cmd = [
            sys.executable,
            "-m",
            "dynpatch",
            stage,
            "--pin",
            str(self.pin),
            "--vendor",
            str(self.vendor),
            "--version",
            self.version,
            "--patches",
            str(self.patches),
            "--python",
            str(self.python),
            "--out",
            str(self.folder / stage),
            "--evidence",
            str(self.record(stage).parent),
        ]
        if stage == "test-upstream":
            return [*cmd, "--tier", "cpu"]
        return [*cmd, "--budget", str(self.budget), "--seed", str(self.seed)]


def run_stage(stage: str, job: StageJob) -> Check:
    """Run ``stage`` for ``job`` as a child; its result as the module docstring says."""
    record = job.record(stage)
    files.remove_tree(record)  # what is read back must come from this run
    job.folder.mkdir(parents=True, exist_ok=True)
    log = job.folder / f"{stage}.log"
    cmd = job.argv(stage)
    start = time.perf_counter()
    child = proc.run(cmd, doing=stage, timeout=TIMEOUT, cwd=ROOT, allow_timeout=True)
    seconds = time.perf_counter() - start
    files.write_atomic(log, f"$ {' '.join(cmd)}\n{child.stdout}\n--- stderr\n{child.stderr}")
    where = f"log: {console.rel(log)}"
    if child.timed_out:
        return Check(ERROR, f"did not finish in {TIMEOUT} s ({where})", seconds)
    if child.returncode not in RAN:
        why = last_error(child.stderr) or f"exit {child.returncode}"
        return Check(ERROR, f"{why} ({where})", seconds)
    status, detail = read_verdict(stage, job)
    return Check(status, detail if status != ERROR else f"{detail} ({where})", seconds)


def last_error(stderr: str) -> str:
    """The last ``error: ...`` line of ``stderr`` without its prefix ('' when none)."""
    errors = [ln for ln in stderr.splitlines() if ln.startswith("error: ")]
    return errors[-1].removeprefix("error: ") if errors else ""


def read_verdict(stage: str, job: StageJob) -> tuple[str, str]:
    """(PASS or FAIL, summary) from the record the child wrote; (ERROR, why) when there is
    no usable record for this job's series."""
    try:
        record = evidence.load(stage, job.record(stage).parent)
    except ToolkitError as exc:
        return ERROR, str(exc)
    if record is None:
        return ERROR, "the stage ran but wrote no evidence record"
    if not evidence.is_current(record, job.patches):
        return ERROR, "evidence record is for another series"
    verdict = record.get("verdict")
    if verdict not in ("pass", "fail"):
        return ERROR, f"evidence record has verdict {verdict!r}, not 'pass' or 'fail'"
    try:
        text = summary(stage, record["details"])
    except (KeyError, TypeError, AttributeError) as exc:
        return ERROR, f"evidence record's details lack {exc}"
    return (PASS if verdict == "pass" else FAIL), text


def summary(stage: str, details: dict[str, Any]) -> str:
    """One line of a stage's ``details``, for the table's notes and bump's output."""
    return (_test_summary if stage == "test-upstream" else _verify_summary)(details)


def _test_summary(details: dict[str, Any]) -> str:
    cpu = details["tiers"]["cpu"]
    base, patched = cpu["baseline"]["counts"], cpu["patched"]["counts"]
    mutation = (cpu.get("mutation") or "no carried tests ran").split(" (of ")[0]
    text = (
        f"baseline {base.get('passed', 0)} passed of {sum(base.values())}, patched "
        f"{patched.get('passed', 0)} passed of {sum(patched.values())}; {mutation}; "
        f"regressions: {len(cpu['regressions']) or 'none'}"
    )
    if details.get("problems"):
        text += f"; problem: {details['problems'][0]}"
    return text


def _verify_summary(details: dict[str, Any]) -> str:
    scenarios = details["scenarios"]
    diverged = [s["name"] for s in scenarios if s["divergence"]]
    unmet = [s["name"] for s in scenarios if s["unmet"]]
    props = sum(1 for s in scenarios if s["name"].startswith("property-"))
    text = (
        f"{len(scenarios) - props} named + {props} property streams (seed {details['seed']}); "
        f"divergences: {len(diverged) or 'none'}"
    )
    if diverged:
        text += f" ({', '.join(diverged[:3])})"
    if unmet:
        text += f"; expectation not met: {', '.join(unmet[:3])}"
    if details.get("not_expected"):
        text += f"; not expected of this release: {'; '.join(details['not_expected'])}"
    return text
