"""Proof that the built wheel installs and works: the wheel installed with ``--no-deps``
into a fresh venv with the pinned ``ai-dynamo-runtime`` and what dynamo's CPU-tier tests
import, or (``--install-into PYTHON``) into an interpreter that already has them, such as
the TRT-LLM runtime container's; then dynamo's tests run from the installed package in
site-packages, never from a source tree: ``test_logprobs.py`` (the series' new tests
included), and on the ``gpu`` tier dynamo's trtllm tests too, only where NVIDIA's
tensorrt_llm and a CUDA device are (:func:`dynpatch.test_upstream.tiers.gpu_problem`).
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
from dynpatch.test_upstream import interpreter, runner, tiers

TEST = "dynamo/common/backend/tests/test_logprobs.py"
MARKER = "pre_merge and gpu_0"
# What each tier runs from site-packages: (path under site-packages, pytest -m).
TIERS = {
    "cpu": ((TEST, MARKER),),
    "gpu": ((TEST, MARKER), ("dynamo/trtllm/tests", tiers.GPU.marker)),
}
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
    "import sysconfig, importlib.metadata as md, dynamo.common.backend.logprobs as m; "
    "print(sysconfig.get_paths()['purelib']); print(m.__file__); print(md.version('ai-dynamo'))"
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


def installed_helper(python: Path) -> tuple[Path, Path, str]:
    """site-packages of ``python``, the file ``dynamo.common.backend.logprobs`` is, and the
    installed ai-dynamo's version."""
    result = proc.check(
        [str(python), "-c", _PROBE],
        doing="import the installed dynamo",
        timeout=120,
        cwd=python.parent,
        env=_env(),
    )
    purelib, module, version = result.stdout.strip().splitlines()[-3:]
    return Path(purelib), Path(module), version


def run_tests(
    python: Path,
    purelib: Path,
    work: Path,
    test: str = TEST,
    marker: str = MARKER,
    junit: Path | None = None,
) -> str:
    """dynamo's tests at ``test`` (under site-packages) selected by ``marker``; the pytest
    summary line (raises unless they pass). JUnit XML to ``junit`` if given."""
    ini = work / "pytest.ini"
    files.write_atomic(ini, INI)
    cmd = [
        *runner.pytest_command(python, [purelib / test], ini, work),
        "-q",
        "-m",
        marker,
        *([f"--junitxml={junit}"] if junit else []),
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
        raise ToolkitError(f"dynamo's {test} failed on the installed wheel: {summary}")
    return summary


def gpu_refusal(python: Path, version: str) -> str | None:
    """Why the gpu tier cannot run under ``python`` (None: it can)."""
    why = tiers.gpu_problem(interpreter.probe(str(python)), version)
    return f"the gpu tier of the wheel's proof cannot run: {why}" if why else None


def run_proof(
    the_pin: Pin,
    wheel: Path,
    vendor: Path,
    into: Path | None = None,
    tier: str = "cpu",
    reports: Path | None = None,
) -> list[str]:
    """Install ``wheel`` (a fresh venv, or ``into``) and run the ``tier``'s tests from
    site-packages, JUnit XML into ``reports``; print what was seen. The pytest summary
    line of each test run."""
    if tier not in TIERS:
        raise ToolkitError(f"unknown tier {tier!r} for the wheel's proof (cpu or gpu)")
    if tier == "gpu":
        if into is None:
            raise ToolkitError(
                "the gpu tier of the wheel's proof needs --install-into PYTHON: an "
                "interpreter with NVIDIA's tensorrt_llm (a fresh venv has none)"
            )
        if why := gpu_refusal(into, the_pin.pinned.version):
            raise ToolkitError(why)
    if reports:
        reports.mkdir(parents=True, exist_ok=True)
    with files.owned_dir(vendor / "scratch", ".wheel-proof-") as scratch:
        if into is None:
            out.print(
                f"proof: fresh venv, ai-dynamo-runtime=={the_pin.pinned.version}, "
                f"pip install --no-deps {wheel.name}",
                markup=False,
            )
            python = install_venv(the_pin, wheel, scratch / "venv")
        else:
            out.print(f"proof: pip install --no-deps {wheel.name} into {into}", markup=False)
            pypi.pip_install_into(into, ["--no-deps", str(wheel)])
            python = into
        purelib, module, version = installed_helper(python)
        if "+dynpatch." not in version:
            raise ToolkitError(f"the installed ai-dynamo is {version}, not the patched wheel")
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
        summaries = []
        for i, (test, marker) in enumerate(TIERS[tier]):
            work = scratch / f"work-{i}"
            work.mkdir()
            junit = reports / f"junit-{Path(test).stem}.xml" if reports else None
            summaries.append(run_tests(python, purelib, work, test, marker, junit))
            out.print(
                f"proof: {test} (-m '{marker}') from site-packages: {summaries[-1]}",
                markup=False,
            )
    return summaries
