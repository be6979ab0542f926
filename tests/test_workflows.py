"""The toolkit's GitHub workflows, checked without GitHub (unreachable from here): actionlint
on each (the same checker and settings as `nox -s lint`), that the checker can fail, and the
structure the workflows promise: each ci.yml job runs its nox session, drift.yml's one matrix
job keeps its trust records and uploads the table whatever the rows did, mutants.yml runs its
one session weekly."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml  # PyYAML: a dependency of libcst, so every session of the toolkit has it

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.y*ml"))
CONFIG = ROOT / ".github" / "actionlint.yaml"


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def load(name: str) -> dict:
    return yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text())


def steps_text(job: dict) -> str:
    return "\n".join(str(step.get("run", "")) for step in job["steps"])


@pytest.fixture(scope="session")
def actionlint():
    """actionlint of the `actionlint` extra (in the test extra), with the project's settings."""
    binary = shutil.which("actionlint", path=str(Path(sys.executable).parent))
    assert binary, "no actionlint beside this Python: install the test extra"

    def run(*files: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [binary, "-oneline", "-config-file", str(CONFIG), *map(str, files)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )

    return run


@pytest.mark.parametrize("path", WORKFLOWS, ids=rel)
def test_each_workflow_passes_actionlint_reads_only_and_has_time_limits(
    actionlint, path: Path
) -> None:
    result = actionlint(path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert "NEVER RUN: GitHub is not reachable" in path.read_text().split("\nname:")[0]
    workflow = yaml.safe_load(path.read_text())
    assert workflow["permissions"] == {"contents": "read"}
    for name, job in workflow["jobs"].items():
        assert isinstance(job.get("timeout-minutes", 0), int), name
        assert "timeout-minutes" in job or name == "pin", f"{rel(path)}: {name} has no time limit"


@pytest.mark.parametrize(
    ("job", "expected"),
    [
        # a job needing a job that does not exist, a context not available at job level,
        # and a string where a number must be: each valid YAML
        ("needs: nowhere", 'needs job "nowhere" which does not exist in this workflow [job-needs]'),
        ("if: ${{ steps.none.outputs.x == 1 }}", 'context "steps" is not allowed here'),
        ("timeout-minutes: soon", "but found plain text node [syntax-check]"),
        # Only gpu-upstream.yml's `gpu` label is declared; any other unknown label fails.
        ("runs-on: [self-hosted, gpu, tpu]", 'label "tpu" is unknown'),
    ],
)
def test_a_broken_workflow_makes_actionlint_fail(
    actionlint, tmp_path: Path, job: str, expected: str
) -> None:
    workflow = tmp_path / "broken.yml"
    runs_on = "" if job.startswith("runs-on") else "    runs-on: ubuntu-latest\n"
    workflow.write_text(
        f"on: push\njobs:\n  a:\n{runs_on}    {job}\n    steps:\n      - run: echo hi\n"
    )
    assert yaml.safe_load(workflow.read_text())  # valid YAML: only actionlint can tell
    result = actionlint(workflow)
    assert result.returncode == 1, result.stdout + result.stderr
    assert expected in result.stdout and 'label "gpu"' not in result.stdout


CI_SESSIONS = {
    "tests": "nox -s tests",  # the README's test command, with its pip install
    "apply-check": "nox -s apply -- --check",
    "test-upstream": "nox -s test-upstream",
    "verify": "nox -s verify",
    "bench": "nox -s bench -- --mutant",
}


def test_ci_runs_one_nox_session_per_job_on_push_and_pull_request() -> None:
    ci = load("ci.yml")
    assert set(ci[True]) == {"push", "pull_request"}  # PyYAML reads the key `on` as True
    assert set(ci["jobs"]) == set(CI_SESSIONS)
    for job, command in CI_SESSIONS.items():
        spec = ci["jobs"][job]
        assert spec["runs-on"] == "ubuntu-latest"
        commands = [line for line in steps_text(spec).splitlines() if "nox -s" in line]
        assert commands == [f"python3 -m pip install nox uv && {command}"]
        setup = [
            s for s in spec["steps"] if str(s.get("uses", "")).startswith("actions/setup-python")
        ]
        assert setup and setup[0]["with"]["python-version"] == "3.11"
    for job in ("test-upstream", "verify", "bench"):  # torch from the CPU index, for the replay
        env = ci["jobs"][job]["env"]
        assert env["PIP_EXTRA_INDEX_URL"] == "https://download.pytorch.org/whl/cpu"
        assert env["UV_TORCH_BACKEND"] == "cpu"  # uv does not read PIP_* settings
    runs = [str(s.get("run", "")) for s in ci["jobs"]["bench"]["steps"]]
    valgrind = next(i for i, r in enumerate(runs) if "apt-get install -y valgrind" in r)
    assert valgrind < next(i for i, r in enumerate(runs) if "nox -s bench" in r)


def step(job: dict, match: str) -> tuple[int, dict]:
    """The first step of ``job`` whose ``uses`` or ``run`` holds ``match``, and its index."""
    return next(
        (i, s) for i, s in enumerate(job["steps"]) if match in f"{s.get('uses')}{s.get('run')}"
    )


def test_drift_runs_weekly_on_the_releases_and_on_main() -> None:
    drift = load("drift.yml")
    assert set(drift[True]) == {"schedule", "workflow_dispatch"}
    _minute, _hour, day, month, weekday = drift[True]["schedule"][0]["cron"].split()
    assert (day, month) == ("*", "*") and weekday != "*"
    assert set(drift["jobs"]) == {"releases", "main"}
    main = drift["jobs"]["main"]
    _, run = step(main, "nox -s matrix -- --source git --ref main")
    assert "--source git --ref main" in run["run"] and 'exit "$status"' in run["run"]
    _, upload = step(main, "upload-artifact")
    assert upload["with"]["path"] == "out/matrix-main/" and upload["if"] == "always()"
    job = drift["jobs"]["releases"]
    assert job["env"]["UV_TORCH_BACKEND"] == "cpu"  # torch from the CPU index, for the replay
    matrix, run = step(job, "nox -s matrix")
    assert run["shell"] == "bash" and 'exit "$status"' in run["run"]  # the matrix's verdict
    # The trust-on-first-use records are kept between runs (a drift is when they matter).
    (restore, restored), (save, saved) = step(job, "cache/restore@"), step(job, "cache/save@")
    assert restore < matrix < save and saved["if"] == "always()"
    assert restored["with"]["path"] == saved["with"]["path"] == ".cache/tofu"
    assert restored["with"]["restore-keys"] == "tofu-"
    _, upload = step(job, "upload-artifact")
    assert upload["with"]["path"] == "out/matrix/" and upload["if"] == "always()"
    assert not any(s.get("continue-on-error") for s in job["steps"])


def test_gpu_workflow_steps_are_one_command_each_and_hold_no_logic() -> None:
    job = load("gpu-upstream.yml")["jobs"]["gpu-tier"]
    runs = [" ".join(s["run"].split()) for s in job["steps"] if "run" in s]
    assert runs[1:] == [
        "python3 -m pip install nox pytest pytest-asyncio",
        'nox --force-venv-backend virtualenv -s wheel -- --install-into "$(command -v python3)" '
        "--tier gpu",
        "nox --force-venv-backend virtualenv -s test-upstream -- --tier gpu --gpu-python "
        '"$(command -v python3)"',
    ]
    assert all("\n" not in s["run"].strip() for s in job["steps"] if "run" in s)
    uploads = [s["with"]["path"] for s in job["steps"] if "upload-artifact" in str(s.get("uses"))]
    assert any("out/wheel/" in path for path in uploads)
    # The evidence names the image the tier ran in (dynpatch/test_upstream/tiers.py).
    assert job["env"]["DYNPATCH_CONTAINER_IMAGE"] == job["container"]["image"]


def test_mutants_runs_weekly_and_on_demand_one_command() -> None:
    mutants = load("mutants.yml")
    assert set(mutants[True]) == {"schedule", "workflow_dispatch"}
    _minute, _hour, day, month, weekday = mutants[True]["schedule"][0]["cron"].split()
    assert (day, month) == ("*", "*") and weekday != "*"
    (job,) = mutants["jobs"].values()
    assert steps_text(job).strip() == "python3 -m pip install nox uv && nox -s mutants"
