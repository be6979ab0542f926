"""What a Python interpreter offers dynamo's tests: asked of the interpreter itself.

The CPU tier runs in this toolkit's nox venv; the GPU tier runs in the TRT-LLM
container's own Python. Either way the facts (dynamo runtime version, pytest,
tensorrt_llm, CUDA) come from running a short script under that interpreter.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.io import proc

# Runs under the probed interpreter: standard library only, prints one JSON object.
_SCRIPT = r"""
import importlib.metadata as md, importlib.util as iu, json, sys

def version(dist):
    try:
        return md.version(dist)
    except md.PackageNotFoundError:
        return None

info = {
    "executable": sys.executable,
    "python": sys.version.split()[0],
    "runtime": version("ai-dynamo-runtime"),
    "pytest": version("pytest"),
    "pytest_asyncio": version("pytest-asyncio"),
    "tensorrt_llm": iu.find_spec("tensorrt_llm") is not None,
    "torch": iu.find_spec("torch") is not None,
    "cuda": None,
    "cuda_error": "",
}
if info["tensorrt_llm"]:
    try:
        import torch
        info["cuda"] = bool(torch.cuda.is_available())
    except Exception as exc:
        info["cuda_error"] = f"{type(exc).__name__}: {exc}"
print(json.dumps(info))
"""


@dataclass(frozen=True)
class Interpreter:
    executable: str
    python: str
    runtime: str | None  # ai-dynamo-runtime version, None when not installed
    pytest: str | None
    pytest_asyncio: str | None
    tensorrt_llm: bool
    torch: bool
    cuda: bool | None  # None: not asked (no tensorrt_llm) or torch failed to import
    cuda_error: str = ""


def probe(python: str, timeout: float = 180.0) -> Interpreter:
    """Ask ``python`` what it has; one-line ToolkitError if it cannot be run."""
    if not Path(python).is_file() and shutil.which(python) is None:
        raise ToolkitError(f"Python interpreter not found: {python}")
    result = proc.run([python, "-c", _SCRIPT], doing=f"the probe of {python}", timeout=timeout)
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
