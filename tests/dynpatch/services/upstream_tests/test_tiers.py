"""Tier selection for test-upstream: what runs, what is reported as not run, and the
bad inputs (unknown tier, a tier requested where it cannot run, pin mismatch)."""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path

import pytest

from dynpatch.errors import ToolkitError
from dynpatch.services.upstream_tests import interpreter, tiers
from dynpatch.services.upstream_tests.interpreter import Interpreter
from dynpatch.services.upstream_tests.tiers import CPU, GPU, STANDIN, Plan
from dynpatch.standin import STANDIN_DIR
from tests.fixtures.synthetic import write_files

VERSION = "1.6.1"
READY = Interpreter(
    executable="/opt/trtllm/bin/python3",
    runtime=VERSION,
    pytest="8.4.0",
    pytest_asyncio="1.0.0",
    tensorrt_llm="/opt/trtllm/lib/python3.12/site-packages/tensorrt_llm",
    tensorrt_llm_version="1.1.0",
    torch=True,
    cuda=True,
    gpu="NVIDIA H100 80GB HBM3",
)


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({}, None),
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
)
def test_the_gpu_tier_needs_nvidias_tensorrt_llm_cuda_and_the_pinned_runtime(
    changes: dict[str, object], reason: str | None
) -> None:
    problem = tiers.gpu_problem(dataclasses.replace(READY, **changes), VERSION)  # type: ignore[arg-type]
    assert problem == reason or (reason is not None and problem is not None and reason in problem)


NO_GPU = "tensorrt_llm is not importable by /venv/bin/python"
REAL = "the GPU tier runs dynamo's handler tests for real"


@pytest.mark.parametrize(
    ("requested", "gpu", "standin", "runs", "not_run"),
    [  # by default the stand-in runs where the GPU tier cannot
        (None, NO_GPU, None, "cpu standin", {GPU: f"{NO_GPU}; to run it, {tiers.GPU_HOWTO}"}),
        (
            None,
            NO_GPU,
            "no torch",
            "cpu",
            {STANDIN: "no torch", GPU: f"{NO_GPU}; to run it, {tiers.GPU_HOWTO}"},
        ),
        (None, None, None, "cpu gpu", {STANDIN: REAL}),
        ("cpu", None, None, "cpu", dict.fromkeys([STANDIN, GPU], "not requested: --tier cpu")),
        (
            "gpu",
            None,
            "no torch",
            "gpu",
            dict.fromkeys([CPU, STANDIN], "not requested: --tier gpu"),
        ),
        ("all", None, None, "cpu standin gpu", {}),
    ],
)
def test_the_plan_runs_what_can_run_and_says_why_the_rest_does_not(
    requested: str | None, gpu: str | None, standin: str | None, runs: str, not_run: dict
) -> None:
    plan = tiers.plan(requested, gpu, standin)
    assert plan == Plan(
        tuple(t for t in (CPU, STANDIN, GPU) if t.name in runs.split()),
        {t.name: why for t, why in not_run.items()},
    )
    assert plan.not_run == tuple(f"{t.title}: not run ({why})" for t, why in not_run.items())


@pytest.mark.parametrize(
    ("requested", "gpu", "standin", "error"),
    [
        ("gpu", "no CUDA device", None, "--tier gpu: the GPU tier cannot run here: no CUDA"),
        ("all", "no CUDA device", None, "--tier all: the GPU tier cannot run here: no CUDA"),
        ("standin", NO_GPU, "torch", "--tier standin: the STAND-IN tier cannot run here: torch"),
        ("GPU", None, None, "unknown --tier 'GPU': choose one of cpu, standin, gpu, all"),
        ("", None, None, "unknown --tier '': choose one of"),
    ],
)
def test_a_tier_that_cannot_run_or_does_not_exist_is_one_error(
    requested: str, gpu: str | None, standin: str | None, error: str
) -> None:
    with pytest.raises(ToolkitError) as raised:
        tiers.plan(requested, gpu, standin)
    assert str(raised.value).startswith(error)


def test_the_tiers_select_as_dynamo_ci() -> None:
    assert [t.marker for t in tiers.ALL] == [
        "pre_merge and gpu_0",
        "pre_merge and trtllm and gpu_1",
        "pre_merge and trtllm and (gpu_0 or gpu_1)",
    ]


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
    return write_files(root, made)


@pytest.mark.parametrize("trtllm", [None, "", "1.1.0"])  # none (only the stand-in), bare, installed
def test_the_probe_asks_the_interpreter_and_never_offers_the_standin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, trtllm: str | None
) -> None:
    site = fake_site(tmp_path / "site", trtllm)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(STANDIN_DIR), str(site)]))
    found = dataclasses.replace(interpreter.probe(sys.executable), runtime=VERSION)
    assert found.executable == sys.executable and found.pytest is not None
    assert found.tensorrt_llm == (str(site / "tensorrt_llm") if trtllm is not None else None)
    assert (found.cuda is None) is (trtllm is None)  # CUDA is asked only with tensorrt_llm
    # Shown relative to the working directory when inside it (the line ends up in PR text).
    shown = (
        os.path.relpath(sys.executable)
        if sys.executable.startswith(os.getcwd())
        else sys.executable
    )
    assert (
        tiers.gpu_problem(found, VERSION)
        == {
            None: f"tensorrt_llm is not importable by {shown}",
            "": f"tensorrt_llm in {shown} ({site / 'tensorrt_llm'}) is no installed distribution: no version",
            "1.1.0": None,
        }[trtllm]
    )


def test_an_installed_tensorrt_llm_shadowed_by_another_folder_has_no_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The distribution's version describes its own folder, not the checkout that
    ``import tensorrt_llm`` loads from earlier on PYTHONPATH."""
    shadow = write_files(tmp_path / "shadow", {"tensorrt_llm/__init__.py": ""})
    site = fake_site(tmp_path / "site", "1.1.0")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(shadow), str(site)]))
    found = dataclasses.replace(interpreter.probe(sys.executable), runtime=VERSION)
    assert found.tensorrt_llm == str(shadow / "tensorrt_llm")
    assert found.tensorrt_llm_version is None
    problem = tiers.gpu_problem(found, VERSION)
    assert problem is not None
    assert problem.endswith(f"({shadow / 'tensorrt_llm'}) is no installed distribution: no version")


def test_probe_of_a_missing_interpreter_is_one_line() -> None:
    with pytest.raises(ToolkitError, match="Python interpreter not found: /nonexistent/python"):
        interpreter.probe("/nonexistent/python")
