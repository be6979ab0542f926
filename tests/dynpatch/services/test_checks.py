"""A release's check, in-process: the verdict is the stage's own result, the summary line
comes from what it would save, and a stage that cannot run is an error with its reason.
The stages are fakes here; test_matrix.py runs test-upstream for real (pass, its log)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from dynpatch.errors import ToolkitError
from dynpatch.results import StageResult
from dynpatch.services import checks as stages
from dynpatch.services import replay_check as verify
from dynpatch.services import upstream_tests as test_upstream
from dynpatch.services.checks import ERROR, FAIL, CheckJob
from tests.fixtures.pr import sample


@pytest.fixture
def job(tmp_path: Path) -> CheckJob:
    checkout: Any = object()
    where = [tmp_path / name for name in ("patches", "release", "trees")]
    return CheckJob(checkout, *where, Path(sys.executable), budget=7, seed=3)


def fake(monkeypatch: pytest.MonkeyPatch, module: Any, ok: bool | None) -> list[Any]:
    """Replace ``module.check``: it passes (or fails) with a record, or raises (None)."""
    calls: list[Any] = []

    def check(options: Any, *where: Any) -> StageResult:
        calls.append((options, *where))
        if ok is None:
            raise ToolkitError("pin mismatch: the tree is 9.9.9")
        record = sample("test-upstream", "b" * 40, "s" * 64, "delta", bool(ok))
        return StageResult(ok, ["what it printed"], records=(record,))

    monkeypatch.setattr(module, "check", check)
    return calls


def test_the_stage_result_gives_the_verdict_and_the_summary(job, monkeypatch) -> None:
    calls = fake(monkeypatch, test_upstream, False)
    check, record = stages.run_check("test-upstream", job, Console(quiet=True))
    assert (check.status, record and record.passed) == (FAIL, False)
    assert check.detail == (
        "baseline 264 passed of 268, patched 266 passed of 270; carried tests: 2 fail on "
        "baseline, 1 pass on patched; regressions: none; problem: test-upstream found a problem"
    )
    options, checkout, patches, trees, out, _screen = calls[0]
    assert (options.tier, options.python) == ("cpu", sys.executable)
    assert (checkout, patches, trees) == (job.checkout, job.patches, job.trees)
    assert out == job.folder / "test-upstream"


def test_verify_runs_with_the_budget_and_seed_and_a_fault_is_an_error(job, monkeypatch) -> None:
    calls = fake(monkeypatch, verify, None)
    check, record = stages.run_check("verify", job, Console(quiet=True))
    assert (check.status, check.detail, record) == (ERROR, "pin mismatch: the tree is 9.9.9", None)
    assert (calls[0][0].budget, calls[0][0].seed) == (7, 3)


def test_verify_summary() -> None:
    record = sample("verify", "b" * 40, "s" * 64, "delta", passed=False)
    facts = dataclasses.replace(record.facts, unmet=("fatal: exit",))
    assert stages.summary(dataclasses.replace(record, facts=facts)) == (
        "34 named + 200 property streams (seed 20261130); divergences: 1 (property-3); "
        "expectation not met: fatal: exit"
    )
    older = dataclasses.replace(record, details={"not_expected": ["x: y (dynamo 1.6.0 on)"]})
    older = dataclasses.replace(older, facts=dataclasses.replace(record.facts, differ=()))
    assert stages.summary(older) == (
        "34 named + 200 property streams (seed 20261130); divergences: none; "
        "not expected of this release: x: y (dynamo 1.6.0 on)"
    )
