"""The tiers of dynamo's own tests (CPU; the stand-in: gpu_1 handler tests on the CPU with
the toolkit's labelled ``tensorrt_llm`` double, never reported as the GPU tier; GPU: with
NVIDIA's tensorrt_llm and a CUDA device), and which of them a run does."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from dynpatch import console
from dynpatch.errors import ToolkitError
from dynpatch.services.upstream_tests.interpreter import Interpreter, env_problem
from dynpatch.standin import STANDIN_DIR

BACKEND_TESTS = "components/src/dynamo/common/backend/tests"
TRTLLM_TESTS = "components/src/dynamo/trtllm/tests"
IMAGE_ENV = "DYNPATCH_CONTAINER_IMAGE"  # set by gpu-upstream.yml: the container's image


@dataclass(frozen=True)
class Tier:
    name: str
    title: str
    dirs: tuple[str, ...]  # repository paths handed to pytest (those the tree has)
    marker: str  # pytest -m expression
    # Put first on the tests' PYTHONPATH (after the tree) and loaded with -p.
    path: tuple[Path, ...] = ()
    plugins: tuple[str, ...] = ()


CPU = Tier("cpu", "CPU tier", (BACKEND_TESTS, TRTLLM_TESTS), "pre_merge and gpu_0")
# The gpu_1 modules that build handlers over a MagicMock engine and collect with the stand-in
# (1.6.1). Left out: test_trtllm_unit.py (imports BuildConfig and llm_args, not in the
# stand-in), and those that need CUDA or a real engine (test_trtllm_logits_runtime.py, ...).
STANDIN_MODULES = tuple(
    f"{TRTLLM_TESTS}/{name}"
    for name in (
        "test_trtllm_handler_base.py",
        "test_trtllm_disagg_request_id.py",
        "test_trtllm_engine.py",
        "test_trtllm_multimodal_processor.py",
        "request_handlers/test_trtllm_prompt_tokens_details.py",
        "request_handlers/test_trtllm_uuid_guard.py",
    )
)
STANDIN = Tier(
    "standin",
    "STAND-IN tier",
    STANDIN_MODULES,
    "pre_merge and trtllm and gpu_1",
    (STANDIN_DIR,),
    ("dynpatch_standin",),
)
GPU = Tier("gpu", "GPU tier", (TRTLLM_TESTS,), "pre_merge and trtllm and (gpu_0 or gpu_1)")
ALL = (CPU, STANDIN, GPU)
CHOICES = ("cpu", "standin", "gpu", "all")
GPU_HOWTO = (
    "run `nox -s test-upstream -- --tier gpu` in dynamo's TRT-LLM runtime container "
    "with DYNPATCH_GPU_PYTHON set (see .github/workflows/gpu-upstream.yml)"
)


@dataclass(frozen=True)
class Plan:
    tiers: tuple[Tier, ...]
    why: dict[str, str]  # tier name -> why it does not run, for each tier not run

    @property
    def not_run(self) -> tuple[str, ...]:
        """ "GPU tier: not run (why)", for each tier not run."""
        return tuple(f"{t.title}: not run ({self.why[t.name]})" for t in ALL if t.name in self.why)


def gpu_problem(interp: Interpreter, version: str) -> str | None:
    """Why the GPU tier cannot run under ``interp`` (None: it can)."""
    where, found = console.rel(interp.executable), interp.tensorrt_llm
    if not found:
        return f"tensorrt_llm is not importable by {where}"
    if STANDIN_DIR.parent in Path(found).resolve().parents:
        return f"tensorrt_llm in {where} is this toolkit's {console.rel(found)}, not NVIDIA's"
    if not interp.tensorrt_llm_version:
        return f"tensorrt_llm in {where} ({found}) is no installed distribution: no version"
    if interp.cuda is None:
        return f"torch does not import in {where}: {interp.cuda_error or 'unknown error'}"
    if not interp.cuda:
        return f"no CUDA device: torch.cuda.is_available() is False in {where}"
    return env_problem(interp, version)


def gpu_facts(interp: Interpreter) -> dict[str, str | None]:
    """What the GPU tier ran on, for its evidence (the image: as the workflow names it)."""
    return {
        "tensorrt_llm": interp.tensorrt_llm_version,
        "tensorrt_llm_path": interp.tensorrt_llm,
        "gpu": interp.gpu,
        "image": os.environ.get(IMAGE_ENV) or None,
    }


def standin_problem(interp: Interpreter) -> str | None:
    """Why the stand-in tier cannot run under ``interp`` (None: it can)."""
    if not interp.torch:
        where = console.rel(interp.executable)
        return f"torch is not installed in {where} (the handler's modules import it)"
    return None


def plan(
    requested: str | None, gpu_unavailable: str | None, standin_unavailable: str | None = None
) -> Plan:
    """The tiers for ``--tier requested`` (None: what this machine can run, the stand-in only
    where the GPU tier cannot); a requested tier that cannot run is an error."""
    if requested is not None and requested not in CHOICES:
        raise ToolkitError(f"unknown --tier {requested!r}: choose one of {', '.join(CHOICES)}")
    for tier, why in ((GPU, gpu_unavailable), (STANDIN, standin_unavailable)):
        if requested in (tier.name, "all") and why:
            raise ToolkitError(f"--tier {requested}: the {tier.title} cannot run here: {why}")
    if requested is not None:
        skipped = f"not requested: --tier {requested}"
        why = {t: skipped for t in ALL if requested not in (t.name, "all")}
    elif gpu_unavailable is None:
        why = {STANDIN: "the GPU tier runs dynamo's handler tests for real"}
    else:
        why = {STANDIN: standin_unavailable, GPU: f"{gpu_unavailable}; to run it, {GPU_HOWTO}"}
    return Plan(tuple(t for t in ALL if not why.get(t)), {t.name: w for t, w in why.items() if w})
