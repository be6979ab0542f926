"""The toolkit's GitHub workflows, checked without GitHub (unreachable from here): actionlint
on each (the same checker and settings as `nox -s lint`), that the checker can fail, and the
structure the workflows promise: each ci.yml job runs its nox session, drift.yml's release
matrix is the list job's output and its join runs whatever the rows did."""

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


def test_the_workflows_are_there() -> None:
    assert {p.name for p in WORKFLOWS} >= {"ci.yml", "drift.yml", "gpu-upstream.yml"}


@pytest.mark.parametrize("path", WORKFLOWS, ids=rel)
def test_actionlint_finds_no_problem(actionlint, path: Path) -> None:
    result = actionlint(path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


@pytest.mark.parametrize("path", WORKFLOWS, ids=rel)
def test_each_workflow_says_it_has_never_run(path: Path) -> None:
    header = path.read_text().split("\nname:")[0]
    assert "NEVER RUN: GitHub is not reachable" in header


@pytest.mark.parametrize(
    ("broken", "expected"),
    [
        # a job needing a job that does not exist, a context not available at job level,
        # and a string where a number must be: each valid YAML
        ("needs: nowhere", 'needs job "nowhere" which does not exist in this workflow [job-needs]'),
        ("if: ${{ steps.none.outputs.x == 1 }}", 'context "steps" is not allowed here'),
        ("timeout-minutes: soon", "but found plain text node [syntax-check]"),
    ],
)
def test_a_broken_workflow_makes_actionlint_fail(
    actionlint, tmp_path: Path, broken: str, expected: str
) -> None:
    workflow = tmp_path / "broken.yml"
    workflow.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
        f"    {broken}\n    steps:\n      - run: echo hi\n"
    )
    assert yaml.safe_load(workflow.read_text())  # valid YAML: only actionlint can tell
    result = actionlint(workflow)
    assert result.returncode == 1, result.stdout + result.stderr
    assert expected in result.stdout


def test_actionlint_keeps_other_unknown_runner_labels(actionlint, tmp_path: Path) -> None:
    """Only gpu-upstream.yml's `gpu` label is declared; any other unknown label still fails."""
    workflow = tmp_path / "labels.yml"
    workflow.write_text(
        "on: push\njobs:\n  a:\n    runs-on: [self-hosted, gpu, tpu]\n"
        "    steps:\n      - run: echo hi\n"
    )
    result = actionlint(workflow)
    assert result.returncode == 1
    assert 'label "tpu" is unknown' in result.stdout and 'label "gpu"' not in result.stdout


@pytest.mark.parametrize("path", WORKFLOWS, ids=rel)
def test_each_workflow_may_only_read_the_repository(path: Path) -> None:
    assert yaml.safe_load(path.read_text())["permissions"] == {"contents": "read"}


@pytest.mark.parametrize("path", WORKFLOWS, ids=rel)
def test_yaml_parses_with_jobs_that_have_time_limits(path: Path) -> None:
    workflow = yaml.safe_load(path.read_text())
    assert workflow["jobs"]
    for name, job in workflow["jobs"].items():
        assert isinstance(job.get("timeout-minutes", 0), int), name
        assert "timeout-minutes" in job or name == "pin", f"{rel(path)}: {name} has no time limit"


CI_SESSIONS = {
    "tests": "nox -s tests",  # the README's test command, with its pip install
    "apply-check": "nox -s apply -- --check",
    "test-upstream": "nox -s test-upstream",
    "verify": "nox -s verify",
    "bench": "nox -s bench -- --mutant",
}


def test_ci_runs_on_push_and_pull_request() -> None:
    # PyYAML reads the key `on` as True (YAML 1.1).
    assert set(load("ci.yml")[True]) == {"push", "pull_request"}


@pytest.mark.parametrize(("job", "command"), CI_SESSIONS.items())
def test_each_ci_job_runs_its_nox_session(job: str, command: str) -> None:
    spec = load("ci.yml")["jobs"][job]
    assert spec["runs-on"] == "ubuntu-latest"
    commands = [line for line in steps_text(spec).splitlines() if "nox -s" in line]
    assert commands == [f"python3 -m pip install nox uv && {command}"]
    python = [s for s in spec["steps"] if str(s.get("uses", "")).startswith("actions/setup-python")]
    assert python and python[0]["with"]["python-version"] == "3.11"


def test_ci_has_exactly_those_jobs() -> None:
    assert set(load("ci.yml")["jobs"]) == set(CI_SESSIONS)


@pytest.mark.parametrize("job", ["test-upstream", "verify", "bench"])
def test_torch_comes_from_the_cpu_index_where_the_replay_runs(job: str) -> None:
    env = load("ci.yml")["jobs"][job]["env"]
    assert env["PIP_EXTRA_INDEX_URL"] == "https://download.pytorch.org/whl/cpu"
    assert env["UV_TORCH_BACKEND"] == "cpu"  # uv does not read PIP_* settings


def test_the_bench_job_installs_valgrind_first() -> None:
    steps = load("ci.yml")["jobs"]["bench"]["steps"]
    runs = [str(s.get("run", "")) for s in steps]
    valgrind = next(i for i, r in enumerate(runs) if "apt-get install -y valgrind" in r)
    assert valgrind < next(i for i, r in enumerate(runs) if "nox -s bench" in r)


def test_drift_runs_weekly_and_by_hand() -> None:
    on = load("drift.yml")[True]
    assert set(on) == {"schedule", "workflow_dispatch"}
    _minute, _hour, day, month, weekday = on["schedule"][0]["cron"].split()
    assert (day, month) == ("*", "*") and weekday != "*"


def test_drift_matrix_is_built_from_the_list_job_output() -> None:
    jobs = load("drift.yml")["jobs"]
    listing = jobs["list"]
    # The toolkit alone: the matrix session's extras would bring PyPI's (CUDA) torch.
    assert "python3 -m pip install -e .\n" in steps_text(listing) + "\n"
    assert "nox" not in steps_text(listing) and "PIP_EXTRA_INDEX_URL" not in listing.get("env", {})
    step = next(s for s in listing["steps"] if s.get("id") == "list")
    # one command: the listing refuses an empty or broken list itself (test_matrix.py)
    assert step["shell"] == "bash"  # -eo pipefail: a refusal fails the step
    assert step["run"] == (
        "python -m dynpatch matrix --list-json | sed 's/^/versions=/' >> \"$GITHUB_OUTPUT\""
    )
    assert listing["outputs"]["versions"] == "${{ steps.list.outputs.versions }}"

    release = jobs["release"]
    assert release["needs"] == "list"
    assert release["strategy"]["fail-fast"] is False
    assert release["strategy"]["matrix"] == {
        "version": "${{ fromJSON(needs.list.outputs.versions) }}"
    }
    assert release["env"]["VERSION"] == "${{ matrix.version }}"
    assert (
        'nox -s matrix -- --versions "$VERSION" "$newest" --out "out/matrix/rows/$VERSION"'
        in steps_text(release)
    )
    upload = next(s for s in release["steps"] if "upload-artifact" in str(s.get("uses")))
    assert upload["with"]["path"] == "out/matrix/rows/${{ matrix.version }}/"
    assert upload["if"] == "always()"


def test_drift_keeps_the_trust_on_first_use_records_between_runs() -> None:
    steps = load("drift.yml")["jobs"]["release"]["steps"]
    uses = [str(s.get("uses", "")) for s in steps]
    restore = next(i for i, u in enumerate(uses) if u.startswith("actions/cache/restore@"))
    save = next(i for i, u in enumerate(uses) if u.startswith("actions/cache/save@"))
    matrix = next(i for i, s in enumerate(steps) if "nox -s matrix" in str(s.get("run", "")))
    assert restore < matrix < save
    assert steps[restore]["with"]["path"] == steps[save]["with"]["path"] == "vendor/cache/tofu"
    assert steps[restore]["with"]["restore-keys"] == "tofu-"
    assert steps[save]["if"].startswith("always()")  # a drift is when the records matter


def test_drift_join_runs_after_every_row_and_its_failure_fails_the_workflow() -> None:
    join = load("drift.yml")["jobs"]["join"]
    assert "release" in join["needs"] and join["if"] == "always()"
    text = steps_text(join)
    assert "python -m dynpatch matrix-join out/matrix/rows --out out/matrix" in text
    assert 'exit "$status"' in text  # the join's exit status is the step's
    assert 'cat out/matrix/matrix.md >> "$GITHUB_STEP_SUMMARY"' in text
    assert not any(s.get("continue-on-error") for s in join["steps"])
    download = next(s for s in join["steps"] if "download-artifact" in str(s.get("uses")))
    assert download["with"]["pattern"] == "matrix-row-*"
    uploads = [s for s in join["steps"] if "upload-artifact" in str(s.get("uses"))]
    assert "out/matrix/matrix.md" in uploads[-1]["with"]["path"]


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
