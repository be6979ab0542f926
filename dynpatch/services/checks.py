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
from dynpatch.evidence import Record
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
    text = summary(stage, result.record.details)
    return Check(PASS if result.ok else FAIL, text, seconds), result.record


def summary(stage: str, details: dict[str, Any]) -> str:
    """One line of a stage's ``details``, for the table's notes and bump's output."""
    if stage == "verify":
        return _verify_summary(details)
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
