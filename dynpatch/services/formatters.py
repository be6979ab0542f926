"""Upstream's formatters and linters in an isolated env at dynamo's pins; isort and black."""

from __future__ import annotations

import hashlib
import json
import sys
import venv
from collections.abc import Mapping
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.io import files, proc, pypi
from dynpatch.workspace import Workspace

# dynamo's pre-commit pins (.pre-commit-config.yaml); precommit.PIN reads them here.
TOOLS = ("black==23.1.0", "isort==5.12.0", "flake8==7.3.0", "ruff==0.5.2", "codespell==2.2.4")


def tools_python(ws: Workspace) -> Path:
    key = hashlib.sha256(" ".join(TOOLS).encode() + sys.version.encode()).hexdigest()[:12]
    # absolute (never resolved: the venv's python is a link): the hooks run in other folders
    env_dir = ws.tools.absolute() / f"upstream-fmt-{key}"
    python = env_dir / "bin" / "python"
    if python.exists():
        return python
    with files.lock(ws.locks / f"{env_dir.name}.lock", f"the formatter env {env_dir}"):
        if python.exists():  # another run built it while this one waited
            return python
        with files.staged_dir(env_dir) as tmp:
            venv.EnvBuilder(with_pip=True, symlinks=True).create(tmp)
            pypi.pip_install_into(tmp / "bin" / "python", TOOLS)
    # `python -m` keeps working after the rename; console-script shebangs would not.
    return python


# Runs inside the tool env: one interpreter for isort + black (startup dominates).
_FORMAT_SCRIPT = """
import json, sys
import black, isort
files = json.load(sys.stdin)
config = isort.Config(profile="black", line_length=88, known_first_party=["dynamo"])
mode = black.Mode(line_length=88)
out = {}
for path, text in files.items():
    text = isort.code(text, config=config)
    try:
        text = black.format_file_contents(text, fast=False, mode=mode)
    except black.NothingChanged:
        pass
    out[path] = text
json.dump(out, sys.stdout)
"""


def format_upstream(files: Mapping[str, str], python: Path) -> dict[str, str]:
    cmd = [str(python), "-c", _FORMAT_SCRIPT]
    result = proc.run(cmd, doing="isort and black", timeout=600, stdin=json.dumps(dict(files)))
    if result.returncode != 0:
        raise ToolkitError(f"isort/black failed on the patched files: {result.last_line()}")
    formatted: dict[str, str] = json.loads(result.stdout)
    return formatted
