"""run_pytest on small synthetic trees: real pytest in a subprocess, read back through the
JUnit XML and the probe plugin; the stand-in tier's plugin run for real through it."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from dynpatch.services.upstream_tests import tiers, verdict
from dynpatch.services.upstream_tests.runner import Failure, run_pytest
from dynpatch.standin import STANDIN_DIR
from tests.fixtures.synthetic import write_files as write

TESTS = "components/src/dynamo/common/backend/tests"
TEST_MODULE = """\
import importlib.util
import pytest
from dynamo.common.backend.logprobs import double
pytestmark = [pytest.mark.pre_merge, pytest.mark.gpu_0]

@pytest.fixture
def broken():
    raise RuntimeError("fixture broke")

@pytest.fixture
def breaks_after():
    yield
    raise RuntimeError("teardown broke")

def test_passes():
    assert double(2) == 4

@pytest.mark.parametrize("x", [1, 2])
def test_fails(x):
    assert double(x) == 3

def test_skips():
    pytest.skip("not here")

def test_errors(broken):
    pass

def test_fails_then_teardown_breaks(breaks_after):
    assert double(1) == 3

@pytest.mark.xfail(reason="known")
def test_expected_failure():
    assert False

def test_the_standin_is_never_inherited():
    assert importlib.util.find_spec("tensorrt_llm") is None

class TestClass:
    def test_method(self):
        assert double(0) == 1
"""
GPU_ONLY = "import pytest\npytestmark = [pytest.mark.pre_merge, pytest.mark.gpu_1]\n\n\ndef test_gpu():\n    assert False\n"


def test_outcomes_failures_modules_and_junit_are_read_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module, broken = f"{TESTS}/test_synthetic.py", f"{TESTS}/test_broken.py"
    helper = "components/src/dynamo/common/backend/logprobs.py"
    tree = write(
        tmp_path / "tree",
        {
            "components/src/dynamo/common/__init__.py": "",
            "components/src/dynamo/common/backend/__init__.py": "",
            helper: "def double(x):\n    return 2 * x\n",
            module: TEST_MODULE,
            f"{TESTS}/test_gpu_only.py": GPU_ONLY,
            broken: "import not_a_module_anywhere\n",
        },
    )
    # A CPU-tier run (its dirs that the tree has, its -m) never imports the stand-in from an
    # inherited PYTHONPATH.
    monkeypatch.setenv("PYTHONPATH", str(STANDIN_DIR))
    result = run_pytest(tiers.CPU, "patched", tree, sys.executable, tmp_path)
    key = f"{module}::"
    assert result.tests == {
        f"{key}test_passes": "passed",
        f"{key}test_fails[1]": "failed",
        f"{key}test_fails[2]": "failed",
        f"{key}test_skips": "skipped",
        f"{key}test_errors": "error",
        f"{key}test_fails_then_teardown_breaks": "failed",
        f"{key}test_expected_failure": "skipped",
        f"{key}test_the_standin_is_never_inherited": "passed",
        f"{key}TestClass::test_method": "failed",
    }
    # What each failure was and where it was raised (the call's, not the teardown's).
    assert result.failures == {
        f"{key}test_fails[1]": Failure("assert 2 == 3", module, 20),
        f"{key}test_fails[2]": Failure("assert 4 == 3", module, 20),
        f"{key}test_errors": Failure(
            'failed on setup with "RuntimeError: fixture broke"', module, 8
        ),
        f"{key}test_fails_then_teardown_breaks": Failure("assert 2 == 3", module, 29),
        f"{key}TestClass::test_method": Failure("assert 0 == 1", module, 40),
    }
    assert str(result.failures[f"{key}test_fails[2]"]) == "assert 4 == 3 (test_synthetic.py:20)"
    assert result.collect_errors[broken].startswith("ModuleNotFoundError: No module named 'not_")
    # The helper came from the tree; the only problem is the collection error.
    assert result.modules[verdict.HELPER_MODULE] == str(tree / helper)
    assert result.junit == tmp_path / "junit" / "cpu-patched.xml"
    assert verdict.run_problems(result, "patched") == [
        f"patched: collection error in {broken}: {result.collect_errors[broken]}"
    ]
    # Runs leave no bytecode or cache behind in the (cached, reused) tree.
    assert not list(tree.rglob("__pycache__")) and not list(tree.rglob(".pytest_cache"))


GUARDED = """\
import pytest
import torch
if not torch.cuda.is_available():
    pytest.skip("needs the TRT-LLM bindings", allow_module_level=True)
import tensorrt_llm
pytestmark = [pytest.mark.pre_merge, pytest.mark.trtllm, pytest.mark.gpu_1]

def test_imports_the_double_and_sees_no_cuda():
    assert tensorrt_llm.STANDIN is True
    assert torch.cuda.is_available() is False

def test_not_selected():
    assert False
"""
GUARDED_TEST = "components/src/dynamo/trtllm/tests/test_trtllm_guarded.py"
# A torch without CUDA (the real one is not in this venv).
NO_CUDA = {
    "torch/__init__.py": "from torch import cuda\n",
    "torch/cuda.py": "def is_available():\n    return False\n",
}


def test_the_standin_plugin_imports_guarded_modules_and_refuses_a_real_tensorrt_llm(
    tmp_path: Path,
) -> None:
    """Selected by node id (as the mutants' runs are), without the tier's -m: the guarded
    module imports the double and its test sees no CUDA; a real tensorrt_llm is refused."""
    tree = write(tmp_path / "tree", {GUARDED_TEST: GUARDED})
    fake = write(tmp_path / "site", NO_CUDA)
    target = f"{GUARDED_TEST}::test_imports_the_double_and_sees_no_cuda"
    standin = dataclasses.replace(tiers.STANDIN, path=(*tiers.STANDIN.path, fake))
    result = run_pytest(standin, "patched", tree, sys.executable, tmp_path, [target])
    assert result.tests == {target: "passed"}
    write(fake, {"tensorrt_llm/__init__.py": ""})
    real = dataclasses.replace(tiers.STANDIN, path=(fake,))
    result = run_pytest(real, "baseline", tree, sys.executable, tmp_path, [GUARDED_TEST])
    assert result.problem.startswith("pytest did not finish (exit 4)")
    assert verdict.run_problems(result, "baseline") == [f"baseline: {result.problem}"]
    output = tmp_path / "work" / "standin-baseline" / "pytest-output.txt"
    assert "imported the real tensorrt_llm" in output.read_text()
