"""What a Python interpreter offers dynamo's tests, asked of it with the tests' PYTHONPATH."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.io import proc
from dynpatch.standin import off_path

# Runs under the probed interpreter: standard library only, prints one JSON object.
_SCRIPT = r"""
import importlib.metadata as md, importlib.util as iu, json, os, sys

def dist(name):
    try:
        return md.distribution(name)
    except md.PackageNotFoundError:
        return None

def version(name):
    return getattr(dist(name), "version", None)

spec = iu.find_spec("tensorrt_llm")
where = spec and (list(spec.submodule_search_locations or []) or [spec.origin])[0]
trt = where and dist("tensorrt_llm")  # the installed distribution, if it owns that folder
owned = trt and os.path.realpath(trt.locate_file("tensorrt_llm")) == os.path.realpath(where)
info = {
    "executable": sys.executable,
    "runtime": version("ai-dynamo-runtime"),
    "pytest": version("pytest"),
    "pytest_asyncio": version("pytest-asyncio"),
    "tensorrt_llm": where or None,
    "tensorrt_llm_version": trt.version if owned else None,
    "torch": iu.find_spec("torch") is not None,
    "cuda": None,  # cuda_error and gpu: the Interpreter's defaults unless set below
}
if where:
    try:
        import torch
        info["cuda"] = bool(torch.cuda.is_available())
        info["gpu"] = torch.cuda.get_device_name(0) if info["cuda"] else None
    except Exception as exc:
        info["cuda_error"] = f"{type(exc).__name__}: {exc}"
print(json.dumps(info))
"""


@dataclass(frozen=True)
class Interpreter:
    executable: str
    runtime: str | None  # ai-dynamo-runtime version, None when not installed
    pytest: str | None
    pytest_asyncio: str | None
    tensorrt_llm: str | None  # the folder ``import tensorrt_llm`` loads, None when missing
    tensorrt_llm_version: str | None  # of the installed distribution owning that folder
    torch: bool
    cuda: bool | None  # None: not asked (no tensorrt_llm) or torch failed to import
    cuda_error: str = ""
    gpu: str | None = None  # torch.cuda.get_device_name(0)


def probe(python: str) -> Interpreter:
    if not Path(python).is_file() and shutil.which(python) is None:
        raise ToolkitError(f"Python interpreter not found: {python}")
    # The environment the tests get (runner.py): the stand-in never inherited.
    env = os.environ | {"PYTHONPATH": os.pathsep.join(off_path(os.environ.get("PYTHONPATH")))}
    result = proc.run([python, "-c", _SCRIPT], doing=f"the probe of {python}", timeout=180, env=env)
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        raise ToolkitError(f"cannot run {python}: {result.last_line()}")
    return Interpreter(**json.loads(lines[-1]))


def env_problem(interp: Interpreter, version: str) -> str | None:
    """Why ``interp`` cannot run dynamo ``version``'s tests (None: it can)."""
    where = interp.executable
    if interp.runtime is None:
        return f"ai-dynamo-runtime is not installed in {where} (the tree is ai-dynamo {version})"
    if interp.runtime != version:
        return (
            f"pin mismatch: the tree is ai-dynamo {version}, "
            f"but {where} has ai-dynamo-runtime {interp.runtime}"
        )
    if interp.pytest is None:
        return f"pytest is not installed in {where}"
    if interp.pytest_asyncio is None:
        return f"pytest-asyncio is not installed in {where} (dynamo's async tests need it)"
    return None
