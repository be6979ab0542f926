"""The tiers of dynamo's own tests, and which of them a run does.

CPU tier: ``pre_merge and gpu_0`` over the shared backend tests plus the trtllm tests
that collect without TensorRT-LLM (dynamo's own conftest skips ``test_trtllm_*`` files
when ``tensorrt_llm`` is missing). GPU tier: dynamo's trtllm stages, meant for the
TRT-LLM runtime container on a GPU runner.
"""

from __future__ import annotations

from dataclasses import dataclass

from dynpatch import console
from dynpatch.errors import ToolkitError
from dynpatch.test_upstream.interpreter import Interpreter, env_problem

TRTLLM_TESTS = "components/src/dynamo/trtllm/tests"


@dataclass(frozen=True)
class Tier:
    name: str
    dirs: tuple[str, ...]  # repository paths handed to pytest
    marker: str  # pytest -m expression

    @property
    def title(self) -> str:
        return f"{self.name.upper()} tier"


CPU = Tier(
    "cpu", ("components/src/dynamo/common/backend/tests", TRTLLM_TESTS), "pre_merge and gpu_0"
)
GPU = Tier("gpu", (TRTLLM_TESTS,), "pre_merge and trtllm and (gpu_0 or gpu_1)")
CHOICES = ("cpu", "gpu", "all")
GPU_HOWTO = (
    "run `nox -s test-upstream -- --tier gpu` in dynamo's TRT-LLM runtime container "
    "with DYNPATCH_GPU_PYTHON set (see .github/workflows/gpu-upstream.yml)"
)


@dataclass(frozen=True)
class Plan:
    tiers: tuple[Tier, ...]
    # One line for each tier that is not run, saying why ("GPU tier: not run (...)").
    not_run: tuple[str, ...]


def gpu_problem(interp: Interpreter, version: str) -> str | None:
    """Why the GPU tier cannot run under ``interp`` (None: it can)."""
    where = console.rel(interp.executable)
    if not interp.tensorrt_llm:
        return f"tensorrt_llm is not importable by {where}"
    if interp.cuda is None:
        return f"torch does not import in {where}: {interp.cuda_error or 'unknown error'}"
    if not interp.cuda:
        return f"no CUDA device: torch.cuda.is_available() is False in {where}"
    return env_problem(interp, version)


def plan(requested: str | None, gpu_unavailable: str | None) -> Plan:
    """The tiers to run for ``--tier requested`` (None: what this machine can run).

    ``gpu_unavailable`` is why the GPU tier cannot run here, or None. A requested
    tier that cannot run is an error; an unrequested one is reported as not run.
    """
    if requested is not None and requested not in CHOICES:
        raise ToolkitError(f"unknown --tier {requested!r}: choose one of {', '.join(CHOICES)}")
    if requested in ("gpu", "all") and gpu_unavailable:
        raise ToolkitError(f"--tier {requested}: the GPU tier cannot run here: {gpu_unavailable}")
    if requested == "cpu":
        return Plan((CPU,), (f"{GPU.title}: not run (not requested: --tier cpu)",))
    if requested == "gpu":
        return Plan((GPU,), (f"{CPU.title}: not run (not requested: --tier gpu)",))
    if requested == "all" or gpu_unavailable is None:
        return Plan((CPU, GPU), ())
    return Plan((CPU,), (f"{GPU.title}: not run ({gpu_unavailable}; to run it, {GPU_HOWTO})",))
