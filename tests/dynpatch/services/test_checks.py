"""A release's check, in-process: the verdict is the stage's own result, the summary line
comes from what it would save, and a stage that cannot run is an error with its reason.
The stages are fakes here; test_matrix.py runs test-upstream for real (pass, its log)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from dynpatch.errors import ToolkitError
from dynpatch.evidence import Record
from dynpatch.results import StageResult
from dynpatch.services import checks as stages
from dynpatch.services import replay_check as verify
from dynpatch.services import upstream_tests as test_upstream
from dynpatch.services.checks import ERROR, FAIL, CheckJob

TEST_DETAILS = {
    "tiers": {
        "cpu": {
            "baseline": {"counts": {"passed": 2}},
            "patched": {"counts": {"passed": 3, "failed": 1}},
            "mutation": "new regression tests: 1 fail on baseline, 1 pass on patched (of 1)",
            "regressions": ["test_x"],
        }
    }
}


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
        verdict = "pass" if ok else "fail"
        record = Record("test-upstream", "b" * 40, "s" * 64, "x", verdict, "", TEST_DETAILS)
        return StageResult(ok, ["what it printed"], records=(record,))

    monkeypatch.setattr(module, "check", check)
    return calls


def test_the_stage_result_gives_the_verdict_and_the_summary(job, monkeypatch) -> None:
    calls = fake(monkeypatch, test_upstream, False)
    check, record = stages.run_check("test-upstream", job, Console(quiet=True))
    assert (check.status, record and record.verdict) == (FAIL, "fail")
    assert check.detail == (
        "baseline 2 passed of 2, patched 3 passed of 4; new regression tests: 1 fail on "
        "baseline, 1 pass on patched; regressions: 1"
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
    scenarios = [
        {"name": "plain", "divergence": None, "unmet": []},
        {"name": "fatal", "divergence": {"at": 3}, "unmet": ["exit"]},
        {"name": "property-1", "divergence": None, "unmet": []},
    ]
    assert stages.summary("verify", {"scenarios": scenarios, "seed": 5}) == (
        "2 named + 1 property streams (seed 5); divergences: 1 (fatal); expectation not met: fatal"
    )
    older = {"scenarios": scenarios[:1], "seed": 0, "not_expected": ["x: y (dynamo 1.6.0 on)"]}
    assert stages.summary("verify", older) == (
        "1 named + 0 property streams (seed 0); divergences: none; "
        "not expected of this release: x: y (dynamo 1.6.0 on)"
    )
