"""Tier selection for test-upstream: what runs, what is reported as not run, and the
bad inputs (unknown tier, GPU requested where it cannot run, pin mismatch)."""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path

import pytest

from dynpatch.errors import ToolkitError
from dynpatch.standin import STANDIN_DIR
from dynpatch.test_upstream import interpreter, tiers
from dynpatch.test_upstream.interpreter import Interpreter

VERSION = "1.6.1"
READY = Interpreter(
    executable="/opt/trtllm/bin/python3",
    python="3.12.3",
    runtime=VERSION,
    pytest="8.4.0",
    pytest_asyncio="1.0.0",
    tensorrt_llm="/opt/trtllm/lib/python3.12/site-packages/tensorrt_llm",
    tensorrt_llm_version="1.1.0",
    torch=True,
    cuda=True,
    gpu="NVIDIA H100 80GB HBM3",
)


def with_(**changes: object) -> Interpreter:
    return dataclasses.replace(READY, **changes)  # type: ignore[arg-type]


# --- is the GPU tier possible? -------------------------------------------------------


def test_container_with_trtllm_and_cuda_can_run_the_gpu_tier() -> None:
    assert tiers.gpu_problem(READY, VERSION) is None


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"tensorrt_llm": None, "cuda": None}, "tensorrt_llm is not importable by /opt/trtllm"),
        ({"tensorrt_llm": str(STANDIN_DIR / "tensorrt_llm")}, "is this toolkit's dynpatch/stand"),
        ({"tensorrt_llm_version": None}, "is no installed distribution: no version"),
        ({"cuda": False}, "no CUDA device: torch.cuda.is_available() is False"),
        ({"cuda": None, "cuda_error": "ImportError: libcuda.so.1"}, "torch does not import"),
        ({"runtime": "1.6.0"}, "pin mismatch: the tree is ai-dynamo 1.6.1, but"),
        ({"runtime": None}, "ai-dynamo-runtime is not installed"),
        ({"pytest_asyncio": None}, "pytest-asyncio is not installed"),
        ({"pytest": None}, "pytest is not installed"),
    ],
    ids=[
        "no-trtllm",
        "standin",
        "no-version",
        "no-cuda",
        "torch-broken",
        "pin-mismatch",
        "no-runtime",
        "no-asyncio",
        "no-pytest",
    ],
)
def test_gpu_problem_says_why(changes: dict[str, object], reason: str) -> None:
    problem = tiers.gpu_problem(with_(**changes), VERSION)
    assert problem is not None and reason in problem


def test_cpu_env_needs_the_pinned_runtime_but_not_trtllm() -> None:
    cpu = with_(tensorrt_llm=None, cuda=None)
    assert interpreter.env_problem(cpu, VERSION) is None
    mismatch = interpreter.env_problem(with_(runtime="1.7.0"), VERSION)
    assert mismatch == (
        "pin mismatch: the tree is ai-dynamo 1.6.1, but /opt/trtllm/bin/python3 "
        "has ai-dynamo-runtime 1.7.0"
    )


# --- which tiers run -------------------------------------------------------------------


NO_GPU = "tensorrt_llm is not importable by /venv/bin/python"


def test_default_on_a_cpu_machine_runs_cpu_and_standin_and_says_gpu_was_not_run() -> None:
    plan = tiers.plan(None, NO_GPU, None)
    assert plan.tiers == (tiers.CPU, tiers.STANDIN)
    assert len(plan.not_run) == 1
    line = plan.not_run[0]
    assert line.startswith("GPU tier: not run (tensorrt_llm is not importable by /venv/bin/python;")
    assert "--tier gpu" in line and "gpu-upstream.yml" in line


def test_without_torch_the_standin_tier_is_reported_as_not_run() -> None:
    why = tiers.standin_problem(with_(torch=False))
    assert (
        why == "torch is not installed in /opt/trtllm/bin/python3 (the handler's modules import it)"
    )
    plan = tiers.plan(None, NO_GPU, why)
    assert plan.tiers == (tiers.CPU,)
    assert plan.not_run[0] == f"STAND-IN tier: not run ({why})"
    assert plan.not_run[1].startswith("GPU tier: not run (")
    with pytest.raises(
        ToolkitError, match=r"--tier standin: the STAND-IN tier cannot run here: torch"
    ):
        tiers.plan("standin", NO_GPU, why)


def test_default_on_a_gpu_machine_runs_cpu_and_gpu_not_the_standin() -> None:
    plan = tiers.plan(None, None, None)
    assert plan.tiers == (tiers.CPU, tiers.GPU)
    assert plan.not_run == (
        "STAND-IN tier: not run (the GPU tier runs dynamo's handler tests for real)",
    )


def test_one_tier_on_request_reports_the_others_as_not_requested() -> None:
    assert tiers.plan("cpu", None) == tiers.Plan(
        (tiers.CPU,),
        (
            "STAND-IN tier: not run (not requested: --tier cpu)",
            "GPU tier: not run (not requested: --tier cpu)",
        ),
    )
    assert tiers.plan("standin", NO_GPU).tiers == (tiers.STANDIN,)
    assert tiers.plan("gpu", None) == tiers.Plan(
        (tiers.GPU,),
        (
            "CPU tier: not run (not requested: --tier gpu)",
            "STAND-IN tier: not run (not requested: --tier gpu)",
        ),
    )


@pytest.mark.parametrize("requested", ["gpu", "all"])
def test_gpu_requested_where_it_cannot_run_is_an_error(requested: str) -> None:
    with pytest.raises(
        ToolkitError, match=rf"--tier {requested}: the GPU tier cannot run here: no CUDA"
    ):
        tiers.plan(requested, "no CUDA device")


def test_all_runs_every_tier_where_possible() -> None:
    assert tiers.plan("all", None, None) == tiers.Plan((tiers.CPU, tiers.STANDIN, tiers.GPU), ())


@pytest.mark.parametrize("requested", ["GPU", "both", ""])
def test_unknown_tier_is_one_clear_error(requested: str) -> None:
    with pytest.raises(
        ToolkitError, match=r"unknown --tier .*: choose one of cpu, standin, gpu, all"
    ):
        tiers.plan(requested, None)


def test_the_standin_tier_is_labelled_and_never_the_gpu_tier() -> None:
    assert tiers.STANDIN.title == "STAND-IN tier" != tiers.GPU.title
    assert tiers.STANDIN.marker == "pre_merge and trtllm and gpu_1"
    assert tiers.STANDIN.path == (STANDIN_DIR,) and tiers.STANDIN.plugins == ("dynpatch_standin",)
    assert tiers.STANDIN.dirs[0].endswith("trtllm/tests/test_trtllm_handler_base.py")
    assert tiers.GPU.path == () and tiers.GPU.plugins == ()


def test_tier_selections_match_dynamo_ci() -> None:
    assert tiers.CPU.marker == "pre_merge and gpu_0"
    assert tiers.GPU.marker == "pre_merge and trtllm and (gpu_0 or gpu_1)"
    assert tiers.GPU.dirs == ("components/src/dynamo/trtllm/tests",)
    assert "components/src/dynamo/common/backend/tests" in tiers.CPU.dirs


# --- the interpreter probe really asks the interpreter --------------------------------


def test_probe_of_this_interpreter() -> None:
    found = interpreter.probe(sys.executable)
    assert found.executable == sys.executable
    assert found.pytest is not None
    # This toolkit's test environment has no TensorRT-LLM: the GPU tier cannot run here.
    assert not found.tensorrt_llm and found.cuda is None
    # Shown relative to the working directory when inside it (the line ends up in PR text).
    shown = (
        os.path.relpath(sys.executable)
        if sys.executable.startswith(os.getcwd())
        else (sys.executable)
    )
    assert tiers.gpu_problem(found, VERSION) == f"tensorrt_llm is not importable by {shown}"


def fake_site(root: Path, trtllm: str | None) -> Path:
    """A site folder for the probe: torch that sees one CUDA device, pytest-asyncio, and
    (unless ``trtllm`` is None) a ``tensorrt_llm`` package, installed at that version when
    it is one (``""``: a bare folder)."""
    made = {
        "torch/__init__.py": "from torch import cuda\n",
        "torch/cuda.py": "def is_available():\n    return True\n\n\n"
        "def get_device_name(i):\n    return 'Fake GPU'\n",
        "pytest_asyncio-1.0.0.dist-info/METADATA": "Name: pytest-asyncio\nVersion: 1.0.0\n",
    }
    if trtllm is not None:
        made["tensorrt_llm/__init__.py"] = ""
    if trtllm:
        made[f"tensorrt_llm-{trtllm}.dist-info/METADATA"] = (
            f"Name: tensorrt-llm\nVersion: {trtllm}\n"
        )
    for rel, text in made.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.mark.parametrize(
    ("trtllm", "problem"),
    [
        (None, "tensorrt_llm is not importable by"),  # the stand-in alone is not offered
        ("", "is no installed distribution: no version"),
        ("1.1.0", None),
    ],
)
def test_the_gpu_tier_takes_only_an_installed_tensorrt_llm_never_the_standin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, trtllm: str | None, problem: str | None
) -> None:
    site = fake_site(tmp_path / "site", trtllm)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(STANDIN_DIR), str(site)]))
    monkeypatch.setenv(tiers.IMAGE_ENV, "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:1.6.1")
    found = interpreter.probe(sys.executable)
    assert found.tensorrt_llm == (str(site / "tensorrt_llm") if trtllm is not None else None)
    why = tiers.gpu_problem(found, VERSION)
    assert why == problem or (problem is not None and why is not None and problem in why)
    if problem is None:
        assert tiers.gpu_facts(found) == {
            "tensorrt_llm": "1.1.0",
            "tensorrt_llm_path": str(site / "tensorrt_llm"),
            "gpu": "Fake GPU",
            "image": "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:1.6.1",
        }


def test_probe_of_a_missing_interpreter_is_one_line() -> None:
    with pytest.raises(ToolkitError, match="Python interpreter not found: /nonexistent/python"):
        interpreter.probe("/nonexistent/python")
