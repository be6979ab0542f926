"""The stand-in tier's pytest plugin, run for real through the tier's runner: CUDA is
answered True only while a module is imported, and a real tensorrt_llm is refused."""

from __future__ import annotations

from pathlib import Path

from dynpatch.standin import STANDIN_DIR
from dynpatch.test_upstream import tiers
from dynpatch.test_upstream.runner import run_pytest

MODULE = """\
import pytest
import torch

if not torch.cuda.is_available():
    pytest.skip("needs the TRT-LLM bindings", allow_module_level=True)

import tensorrt_llm

pytestmark = [pytest.mark.pre_merge, pytest.mark.trtllm, pytest.mark.gpu_1]


def test_imports_the_double_and_sees_no_cuda():
    assert tensorrt_llm.STANDIN is True
    assert torch.cuda.is_available() is False
"""
TEST = "components/src/dynamo/trtllm/tests/test_trtllm_guarded.py"


def _world(tmp_path: Path) -> tuple[Path, Path]:
    tree = tmp_path / "tree"
    (tree / TEST).parent.mkdir(parents=True)
    (tree / TEST).write_text(MODULE)
    fake = tmp_path / "fake"  # a torch without CUDA (the real one is not in this venv)
    (fake / "torch").mkdir(parents=True)
    (fake / "torch" / "__init__.py").write_text("from torch import cuda\n")
    (fake / "torch" / "cuda.py").write_text("def is_available():\n    return False\n")
    return tree, fake


def _run(tmp_path: Path, tree: Path, path: tuple[Path, ...], plugins: tuple[str, ...]):
    return run_pytest(
        label="standin-test",
        tree=tree,
        python=__import__("sys").executable,
        targets=[TEST],
        marker=tiers.STANDIN.marker,
        work=tmp_path / "work",
        junit_dir=tmp_path / "junit",
        path=path,
        plugins=plugins,
    )


def test_the_guarded_module_runs_with_the_plugin_and_sees_no_cuda_inside_tests(
    tmp_path: Path,
) -> None:
    tree, fake = _world(tmp_path)
    run = _run(tmp_path, tree, (*tiers.STANDIN.path, fake), tiers.STANDIN.plugins)
    assert run.problem == "", run.output_tail
    assert {k.split("::")[-1]: r.outcome for k, r in run.tests.items()} == {
        "test_imports_the_double_and_sees_no_cuda": "passed"
    }


def test_without_the_plugin_the_module_skips_at_import(tmp_path: Path) -> None:
    tree, fake = _world(tmp_path)
    run = _run(tmp_path, tree, (STANDIN_DIR, fake), ())
    assert run.tests == {} and run.exit_code == 5  # nothing collected: the module skipped


def test_a_real_tensorrt_llm_is_refused(tmp_path: Path) -> None:
    tree, fake = _world(tmp_path)
    real = tmp_path / "real"
    (real / "tensorrt_llm").mkdir(parents=True)
    (real / "tensorrt_llm" / "__init__.py").write_text("")
    run = _run(tmp_path, tree, (real, fake), tiers.STANDIN.plugins)
    assert run.problem.startswith("pytest did not finish (exit 4)"), run.output_tail
    assert "imported the real tensorrt_llm" in (tmp_path / "work" / "pytest-output.txt").read_text()
