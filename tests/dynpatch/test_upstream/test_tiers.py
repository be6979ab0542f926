"""Tier selection for test-upstream: what runs, what is reported as not run, and the
bad inputs (unknown tier, GPU requested where it cannot run, pin mismatch)."""

from __future__ import annotations

import dataclasses
import os
import sys

import pytest

from dynpatch.errors import ToolkitError
from dynpatch.test_upstream import interpreter, tiers
from dynpatch.test_upstream.interpreter import Interpreter

VERSION = "1.6.1"
READY = Interpreter(
    executable="/opt/trtllm/bin/python3",
    python="3.12.3",
    runtime=VERSION,
    pytest="8.4.0",
    pytest_asyncio="1.0.0",
    tensorrt_llm=True,
    cuda=True,
)


def with_(**changes: object) -> Interpreter:
    return dataclasses.replace(READY, **changes)  # type: ignore[arg-type]


# --- is the GPU tier possible? -------------------------------------------------------


def test_container_with_trtllm_and_cuda_can_run_the_gpu_tier() -> None:
    assert tiers.gpu_problem(READY, VERSION) is None


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"tensorrt_llm": False, "cuda": None}, "tensorrt_llm is not importable by /opt/trtllm"),
        ({"cuda": False}, "no CUDA device: torch.cuda.is_available() is False"),
        ({"cuda": None, "cuda_error": "ImportError: libcuda.so.1"}, "torch does not import"),
        ({"runtime": "1.6.0"}, "pin mismatch: the tree is ai-dynamo 1.6.1, but"),
        ({"runtime": None}, "ai-dynamo-runtime is not installed"),
        ({"pytest_asyncio": None}, "pytest-asyncio is not installed"),
        ({"pytest": None}, "pytest is not installed"),
    ],
    ids=[
        "no-trtllm",
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
    cpu = with_(tensorrt_llm=False, cuda=None)
    assert interpreter.env_problem(cpu, VERSION) is None
    mismatch = interpreter.env_problem(with_(runtime="1.7.0"), VERSION)
    assert mismatch == (
        "pin mismatch: the tree is ai-dynamo 1.6.1, but /opt/trtllm/bin/python3 "
        "has ai-dynamo-runtime 1.7.0"
    )


# --- which tiers run -------------------------------------------------------------------


def test_default_on_a_cpu_machine_runs_cpu_and_says_gpu_was_not_run() -> None:
    plan = tiers.plan(None, "tensorrt_llm is not importable by /venv/bin/python")
    assert plan.tiers == (tiers.CPU,)
    assert len(plan.not_run) == 1
    line = plan.not_run[0]
    assert line.startswith("GPU tier: not run (tensorrt_llm is not importable by /venv/bin/python;")
    assert "--tier gpu" in line and "gpu-upstream.yml" in line


def test_default_on_a_gpu_machine_runs_both() -> None:
    plan = tiers.plan(None, None)
    assert plan.tiers == (tiers.CPU, tiers.GPU) and plan.not_run == ()


def test_cpu_only_on_request_reports_gpu_as_not_requested() -> None:
    plan = tiers.plan("cpu", None)
    assert plan.tiers == (tiers.CPU,)
    assert plan.not_run == ("GPU tier: not run (not requested: --tier cpu)",)


@pytest.mark.parametrize("requested", ["gpu", "all"])
def test_gpu_requested_where_it_cannot_run_is_an_error(requested: str) -> None:
    with pytest.raises(
        ToolkitError, match=rf"--tier {requested}: the GPU tier cannot run here: no CUDA"
    ):
        tiers.plan(requested, "no CUDA device")


def test_gpu_and_all_where_possible() -> None:
    assert tiers.plan("gpu", None) == tiers.Plan(
        (tiers.GPU,), ("CPU tier: not run (not requested: --tier gpu)",)
    )
    assert tiers.plan("all", None) == tiers.Plan((tiers.CPU, tiers.GPU), ())


@pytest.mark.parametrize("requested", ["GPU", "both", ""])
def test_unknown_tier_is_one_clear_error(requested: str) -> None:
    with pytest.raises(ToolkitError, match=r"unknown --tier .*: choose one of cpu, gpu, all"):
        tiers.plan(requested, None)


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


def test_probe_of_a_missing_interpreter_is_one_line() -> None:
    with pytest.raises(ToolkitError, match="Python interpreter not found: /nonexistent/python"):
        interpreter.probe("/nonexistent/python")
