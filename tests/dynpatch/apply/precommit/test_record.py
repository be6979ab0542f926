"""dynpatch.apply.precommit.record: the hooks' results saved for the series, read back by pr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dynpatch.apply.precommit import record
from dynpatch.apply.precommit.findings import Finding, HookResult
from dynpatch.pr import validation
from dynpatch.pr.validation import State

PY = "components/src/dynamo/x.py"
PASSED = [HookResult("ruff", "0.5.2", (PY,)), HookResult("codespell", "2.2.4", (PY,))]


@pytest.fixture
def series(tmp_path: Path) -> Path:
    (tmp_path / "patches").mkdir()
    (tmp_path / "patches" / "0001-x.patch").write_text("the patch\n")
    (tmp_path / "patches" / "series").write_text("0001-x.patch\n")
    return tmp_path / "patches"


def test_a_passing_run_is_saved_as_the_pre_commit_stage(series: Path, tmp_path: Path) -> None:
    out = tmp_path / "evidence"
    path = record.save(PASSED, series, out, "b" * 40, "nox -s apply -- --check")
    saved = json.loads(path.read_text())
    assert path == out / "pre-commit.json"
    assert (saved["stage"], saved["verdict"]) == ("pre-commit", "pass")
    assert saved["command"] == "nox -s apply -- --check"
    assert "| ruff | 0.5.2 | 1 (whole files) | pass |" in saved["summary_md"]
    assert [h["hook"] for h in saved["details"]["hooks"]] == ["ruff", "codespell"]

    def state() -> State:
        return {e.stage: e for e in validation.gather(series, "b" * 40, out)}["pre-commit"].state

    assert state() is State.CURRENT
    (series / "0001-x.patch").write_text("the patch, version 2\n")
    assert state() is State.STALE


def test_a_failing_run_is_never_saved(series: Path, tmp_path: Path) -> None:
    failed = HookResult("SPDX header", "rule", (PY,), (Finding("SPDX header", PY, 1, "no"),))
    for results in ([*PASSED, failed], []):
        with pytest.raises(ValueError, match="only for a series that passed"):
            record.save(results, series, tmp_path / "evidence", "b" * 40)
    assert not (tmp_path / "evidence").exists()
