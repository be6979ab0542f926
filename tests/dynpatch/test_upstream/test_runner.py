"""run_pytest on a small synthetic tree: real pytest in a subprocess, read back through
the probe plugin and the JUnit XML."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from dynpatch.standin import STANDIN_DIR
from dynpatch.test_upstream import verdict
from dynpatch.test_upstream.runner import Failure, run_pytest

TESTS = "components/src/dynamo/common/backend/tests"

HELPER = "def double(x):\n    return 2 * x\n"
TEST_MODULE = """\
import pytest

from dynamo.common.backend.logprobs import double

pytestmark = [pytest.mark.pre_merge, pytest.mark.gpu_0]


@pytest.fixture
def broken():
    raise RuntimeError("fixture broke")


def test_passes():
    assert double(2) == 4


@pytest.mark.parametrize("x", [1, 2])
def test_fails(x):
    assert double(x) == 3


def test_skips():
    pytest.skip("not here")


def test_errors(broken):
    pass


@pytest.mark.xfail(reason="known")
def test_expected_failure():
    assert False
"""
GPU_ONLY = """\
import pytest

pytestmark = [pytest.mark.pre_merge, pytest.mark.gpu_1]


def test_needs_a_gpu():
    assert False
"""


def make_tree(root: Path, broken_module: bool = False) -> Path:
    files = {
        "components/src/dynamo/common/__init__.py": "",
        "components/src/dynamo/common/backend/__init__.py": "",
        "components/src/dynamo/common/backend/logprobs.py": HELPER,
        f"{TESTS}/test_synthetic.py": TEST_MODULE,
        f"{TESTS}/test_gpu_only.py": GPU_ONLY,
    }
    if broken_module:
        files[f"{TESTS}/test_broken.py"] = "import not_a_module_anywhere\n"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_outcomes_modules_and_junit_are_read_back(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree", broken_module=True)
    run = run_pytest(
        label="cpu-patched",
        tree=tree,
        python=sys.executable,
        targets=[TESTS],
        marker="pre_merge and gpu_0",
        work=tmp_path / "work",
        junit_dir=tmp_path / "junit",
    )
    key = f"{TESTS}/test_synthetic.py::"
    assert run.problem == ""
    assert {k: v.outcome for k, v in run.tests.items()} == {
        f"{key}test_passes": "passed",
        f"{key}test_fails[1]": "failed",
        f"{key}test_fails[2]": "failed",
        f"{key}test_skips": "skipped",
        f"{key}test_errors": "error",
        f"{key}test_expected_failure": "skipped",
    }
    assert run.tests[f"{key}test_fails[1]"].message.startswith("assert 2 == 3")
    # What each failure was and where it was raised, from the JUnit XML.
    module = f"{TESTS}/test_synthetic.py"
    assert run.failures[f"{key}test_fails[1]"] == Failure("assert 2 == 3", module, 19)
    assert str(run.failures[f"{key}test_fails[2]"]) == "assert 4 == 3 (test_synthetic.py:19)"
    assert run.failures[f"{key}test_errors"] == Failure(
        'failed on setup with "RuntimeError: fixture broke"', module, 10
    )
    assert sorted(run.failures) == [
        f"{key}test_errors",
        f"{key}test_fails[1]",
        f"{key}test_fails[2]",
    ]
    assert "RuntimeError: fixture broke" in run.tests[f"{key}test_errors"].message
    assert list(run.collect_errors) == [f"{TESTS}/test_broken.py"]
    assert "not_a_module_anywhere" in run.collect_errors[f"{TESTS}/test_broken.py"]
    # The helper came from the tree, and JUnit agrees with the probe on the count.
    assert Path(run.modules[verdict.HELPER_MODULE] or "") == tree / (
        "components/src/dynamo/common/backend/logprobs.py"
    )
    assert verdict.import_problems(run, "patched") == []
    assert run.junit == tmp_path / "junit" / "cpu-patched.xml"
    assert run.junit_cases == 7 == len(ET.parse(run.junit).getroot().findall(".//testcase"))
    assert verdict.run_problems(run, "patched") == [
        f"patched: collection error in {TESTS}/test_broken.py: "
        + run.collect_errors[f"{TESTS}/test_broken.py"]
    ]
    # Runs leave no bytecode or cache behind in the (cached, reused) tree.
    assert not list(tree.rglob("__pycache__")) and not list(tree.rglob(".pytest_cache"))


def test_node_ids_select_single_tests(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree")
    run = run_pytest(
        label="cpu-mutant",
        tree=tree,
        python=sys.executable,
        targets=[f"{TESTS}/test_synthetic.py::test_fails"],
        marker=None,
        work=tmp_path / "work",
        junit_dir=tmp_path / "junit",
    )
    assert sorted(run.tests) == [
        f"{TESTS}/test_synthetic.py::test_fails[1]",
        f"{TESTS}/test_synthetic.py::test_fails[2]",
    ]


def test_a_run_that_cannot_start_is_reported(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree")
    run = run_pytest(
        label="cpu-baseline",
        tree=tree,
        python=sys.executable,
        targets=[TESTS],
        marker="pre_merge and (",  # a bad -m expression: pytest stops with a usage error
        work=tmp_path / "work",
        junit_dir=tmp_path / "junit",
    )
    assert run.problem.startswith("pytest did not finish (exit 4)")
    assert verdict.run_problems(run, "baseline") == [f"baseline: {run.problem}"]


def test_the_standin_is_never_inherited_only_put_on_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A GPU-tier run (no ``path``) never imports the stand-in from an inherited
    PYTHONPATH; the stand-in tier (``path``) does."""
    tree = make_tree(tmp_path / "tree")
    test = f"{TESTS}/test_which_trtllm.py"
    (tree / test).write_text(
        "import tensorrt_llm\n\n\ndef test_real():\n    assert not tensorrt_llm.STANDIN\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(STANDIN_DIR))
    gpu, standin = (
        run_pytest(
            label=label,
            tree=tree,
            python=sys.executable,
            targets=[test],
            marker=None,
            work=tmp_path / label,
            junit_dir=tmp_path / "junit",
            path=path,
        )
        for label, path in (("gpu-patched", ()), ("standin-patched", (STANDIN_DIR,)))
    )
    assert "No module named 'tensorrt_llm'" in gpu.collect_errors[test]
    assert standin.tests[f"{test}::test_real"].outcome == "failed"  # it is the stand-in
