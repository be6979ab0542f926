"""Proof that the built wheel installs and works: a fresh venv with the pinned
``ai-dynamo-runtime`` and what dynamo's CPU-tier tests import, the wheel installed with
``--no-deps``, and dynamo's ``test_logprobs.py`` (the series' new tests included) run from
the installed package in site-packages, never from a source tree.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from dynpatch.console import out
from dynpatch.errors import ToolkitError
from dynpatch.io import files, proc, pypi
from dynpatch.pin import Pin

TEST = "dynamo/common/backend/tests/test_logprobs.py"
MARKER = "pre_merge and gpu_0"
REQUIREMENTS = (
    "typing-extensions",
    "pytest",
    "pytest-asyncio",
    "pydantic<=2.13.5",
    "prometheus-client>=0.23.1,<1.0",
    "numpy",
)
INI = (
    "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
    "markers =\n    unit\n    gpu_0\n    core\n    pre_merge\n"
)
_PROBE = (
    "import sysconfig, dynamo.common.backend.logprobs as m; "
    "print(sysconfig.get_paths()['purelib']); print(m.__file__)"
)
_SUMMARY = re.compile(r"^=*\s*\d+ (passed|failed|error)")


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return env | {"PYTHONDONTWRITEBYTECODE": "1"}


def install_venv(the_pin: Pin, wheel: Path, where: Path) -> Path:
    """A fresh venv at ``where`` with the runtime, the test requirements and ``wheel``."""
    proc.check(
        [sys.executable, "-m", "venv", str(where)], doing="python -m venv", timeout=300, env=_env()
    )
    python = where / "bin" / "python"
    pypi.pip_install_into(python, [f"ai-dynamo-runtime=={the_pin.pinned.version}", *REQUIREMENTS])
    pypi.pip_install_into(python, ["--no-deps", str(wheel)])
    return python


def installed_helper(python: Path) -> tuple[Path, Path]:
    """site-packages of ``python`` and the file ``dynamo.common.backend.logprobs`` is."""
    result = proc.check(
        [str(python), "-c", _PROBE],
        doing="import the installed dynamo",
        timeout=120,
        cwd=python.parent,
        env=_env(),
    )
    purelib, module = result.stdout.strip().splitlines()[-2:]
    return Path(purelib), Path(module)


def run_tests(python: Path, purelib: Path, work: Path) -> str:
    """dynamo's logprob tests from site-packages; the pytest summary line (raises unless
    they pass)."""
    ini = work / "pytest.ini"
    files.write_atomic(ini, INI)
    cmd = [
        str(python),
        "-m",
        "pytest",
        "-q",
        str(purelib / TEST),
        "-c",
        str(ini),
        "--rootdir",
        str(work),
        "--import-mode=importlib",
        "-p",
        "no:cacheprovider",
        "-m",
        MARKER,
    ]
    result = proc.run(
        cmd,
        doing="pytest of the installed wheel",
        timeout=900,
        cwd=work,
        env=_env(),
        merge_stderr=True,
    )
    lines = [ln.strip() for ln in result.stdout.splitlines() if _SUMMARY.match(ln.strip())]
    summary = lines[-1].strip("= ") if lines else f"exit status {result.returncode}"
    if result.returncode != 0:
        raise ToolkitError(f"dynamo's {TEST} failed on the installed wheel: {summary}")
    return summary


def run_proof(the_pin: Pin, wheel: Path, vendor: Path) -> str:
    """Install ``wheel`` in a fresh venv and run the tests; print what was seen."""
    with files.owned_dir(vendor / "scratch", ".wheel-proof-") as scratch:
        out.print(
            f"proof: fresh venv, ai-dynamo-runtime=={the_pin.pinned.version}, "
            f"pip install --no-deps {wheel.name}",
            markup=False,
        )
        python = install_venv(the_pin, wheel, scratch / "venv")
        purelib, module = installed_helper(python)
        if not module.is_relative_to(purelib):
            raise ToolkitError(
                f"dynamo.common.backend.logprobs comes from {module}, "
                f"not the venv's site-packages {purelib}"
            )
        if "new_token_ids" not in module.read_text():
            raise ToolkitError(f"the installed {module} lacks new_token_ids: not the patch")
        out.print(
            f"proof: dynamo.common.backend.logprobs.__file__ = {module} "
            "(in site-packages; has new_token_ids)",
            markup=False,
        )
        work = scratch / "work"
        work.mkdir()
        summary = run_tests(python, purelib, work)
        out.print(f"proof: {TEST} (-m '{MARKER}') from site-packages: {summary}", markup=False)
    return summary
