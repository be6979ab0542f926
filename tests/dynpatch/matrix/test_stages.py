"""The contract with a stage's child process: the verdict and summary come from the
evidence record it wrote; the exit status only tells "ran" from "crashed", and a crash
is told by the child's last ``error:`` line. The child is a fake here (``proc.run``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from dynpatch import evidence
from dynpatch.io import proc
from dynpatch.matrix import stages
from dynpatch.matrix.stages import ERROR, FAIL, PASS, StageJob

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


def series(folder: Path, text: str = "one") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "0001-a.patch").write_text(text)
    (folder / "series").write_text("0001-a.patch\n")
    return folder


@pytest.fixture
def job(tmp_path: Path) -> StageJob:
    return StageJob(
        pin=tmp_path / "pin.toml",
        vendor=tmp_path / "vendor",
        version="9.9.9",
        patches=series(tmp_path / "patches"),
        folder=tmp_path / "release",
        python=Path(sys.executable),
        budget=7,
        seed=3,
    )


def fake_child(
    monkeypatch: pytest.MonkeyPatch,
    job: StageJob,
    code: int,
    *,
    stderr: str = "",
    verdict: str | None = None,
    details: Any = None,
    patches: Path | None = None,
    timed_out: bool = False,
) -> list[list[str]]:
    """Replace the child: it writes a record when ``verdict`` is given, then exits ``code``."""
    calls: list[list[str]] = []

    def run(cmd: list[str], **kwargs: object) -> proc.ProcResult:
        calls.append(cmd)
        stage = cmd[3]
        if verdict is not None:
            ran = patches or job.patches
            evidence.save(
                stage,
                ran,
                base="b" * 40,
                series_sha256=evidence.series_digest(ran),
                command="x",
                verdict=verdict,
                summary_md="",
                details=details if details is not None else TEST_DETAILS,
                out=job.record(stage).parent,
            )
        return proc.ProcResult(code, "what it printed\n", stderr, timed_out=timed_out)

    monkeypatch.setattr(proc, "run", run)
    return calls


def test_argv_is_the_stage_on_this_release_writing_under_its_folder(job: StageJob) -> None:
    cmd = job.argv("test-upstream")
    assert cmd[:4] == [sys.executable, "-m", "dynpatch", "test-upstream"]
    assert cmd[cmd.index("--patches") + 1] == str(job.patches)
    assert cmd[cmd.index("--evidence") + 1] == str(job.folder / "evidence")
    assert cmd[cmd.index("--out") + 1] == str(job.folder / "test-upstream")
    assert cmd[-2:] == ["--tier", "cpu"]
    verify = job.argv("verify")
    assert verify[-4:] == ["--budget", "7", "--seed", "3"]


def test_the_record_gives_the_verdict_whatever_the_exit_status(job, monkeypatch) -> None:
    fake_child(monkeypatch, job, 0, verdict="fail")
    check = stages.run_stage("test-upstream", job)
    assert check.status == FAIL
    assert check.detail == (
        "baseline 2 passed of 2, patched 3 passed of 4; new regression tests: 1 fail on "
        "baseline, 1 pass on patched; regressions: 1"
    )
    fake_child(monkeypatch, job, 1, verdict="pass")
    assert stages.run_stage("test-upstream", job).status == PASS
    log = (job.folder / "test-upstream.log").read_text()
    assert log.startswith(f"$ {sys.executable} -m dynpatch test-upstream ")
    assert "what it printed" in log


def test_a_crash_is_its_last_error_line(job: StageJob, monkeypatch) -> None:
    stderr = "warning: slow\nerror: first\nerror: pin mismatch: the tree is 9.9.9\n"
    fake_child(monkeypatch, job, 2, stderr=stderr, verdict="pass")  # a record, then a crash
    check = stages.run_stage("verify", job)
    assert check.status == ERROR
    assert check.detail.startswith("pin mismatch: the tree is 9.9.9 (log: ")
    fake_child(monkeypatch, job, -9, stderr="Killed\n")
    assert stages.run_stage("verify", job).detail.startswith("exit -9 (log: ")
    fake_child(monkeypatch, job, 0, timed_out=True)
    assert stages.run_stage("verify", job).detail.startswith("did not finish in 3600 s")


def test_last_error() -> None:
    assert stages.last_error("error: a\nnoise\nerror: b\n") == "b"
    assert stages.last_error("Traceback ...\n  error: indented is not one\n") == ""


def test_a_run_without_a_usable_record_is_an_error(job: StageJob, monkeypatch, tmp_path) -> None:
    # an older run's record is removed first: a child that writes none cannot pass on it
    fake_child(monkeypatch, job, 0, verdict="pass")
    assert stages.run_stage("verify", job).status == ERROR  # test-upstream details
    fake_child(monkeypatch, job, 0)
    check = stages.run_stage("test-upstream", job)
    assert check.status == ERROR and check.detail.startswith("the stage ran but wrote no")
    other = series(tmp_path / "other", "another series")
    fake_child(monkeypatch, job, 0, verdict="pass", patches=other)
    check = stages.run_stage("test-upstream", job)
    assert check.detail.startswith("evidence record is for another series")
    fake_child(monkeypatch, job, 0, verdict="pass", details={"tiers": {}})
    assert stages.run_stage("test-upstream", job).detail.startswith(
        "evidence record's details lack 'cpu'"
    )


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
