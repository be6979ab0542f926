"""Proofs of the built wheel as installed. :func:`run_proof`: installed ``--no-deps`` into
a fresh venv with the pinned ``ai-dynamo-runtime`` and what dynamo's CPU-tier tests import,
or into ``--install-into PYTHON`` (the TRT-LLM container's), then dynamo's tests run from
site-packages, never a source tree; the ``gpu`` tier adds dynamo's trtllm tests, only where
NVIDIA's tensorrt_llm and a CUDA device are. :func:`replay_installed`: the named scenarios
through the installed stock and patched wheels, whose chunk streams must be identical.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from dynpatch.console import err, say
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
REQUIREMENTS = [
    "typing-extensions",
    "pytest",
    "pytest-asyncio",
    "pydantic<=2.13.5",
    "prometheus-client>=0.23.1,<1.0",
    "numpy",
]
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


def installed_helper(python: Path) -> tuple[Path, Path, str]:
    """site-packages of ``python``, the file ``dynamo.common.backend.logprobs`` is, and the
    installed ai-dynamo's version."""
    cmd, doing = [str(python), "-c", _PROBE], "import the installed dynamo"
    result = proc.check(cmd, doing=doing, timeout=120, cwd=python.parent, env=_env())
    purelib, module, version = result.stdout.strip().splitlines()[-3:]
    return Path(purelib), Path(module), version


def run_tests(
    python: Path, purelib: Path, work: Path, test: str, marker: str, junit: Path | None
) -> str:
    """dynamo's tests at ``test`` (under site-packages) selected by ``marker``; the pytest
    summary line (raises unless they pass). JUnit XML to ``junit`` if given."""
    ini = work / "pytest.ini"
    files.write_atomic(ini, INI)
    cmd = runner.pytest_command(python, [purelib / test], ini, work)
    cmd += ["-q", "-m", marker, *([f"--junitxml={junit}"] if junit else [])]
    doing = "pytest of the installed wheel"
    result = proc.run(cmd, doing=doing, timeout=900, cwd=work, env=_env(), merge_stderr=True)
    lines = [ln.strip() for ln in result.stdout.splitlines() if _SUMMARY.match(ln.strip())]
    summary = lines[-1].strip("= ") if lines else f"exit status {result.returncode}"
    if result.returncode != 0:
        raise ToolkitError(f"dynamo's {test} failed on the installed wheel: {summary}")
    return summary


def run_proof(
    the_pin: Pin,
    wheel: Path,
    cache: Path,
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
        if why := tiers.gpu_problem(interpreter.probe(str(into)), the_pin.pinned.version):
            raise ToolkitError(f"the gpu tier of the wheel's proof cannot run: {why}")
    if reports:
        reports.mkdir(parents=True, exist_ok=True)
    with files.owned_dir(cache / "scratch", ".wheel-proof-") as scratch:
        if into is None:
            say(
                f"proof: fresh venv, ai-dynamo-runtime=={the_pin.pinned.version}, "
                f"pip install --no-deps {wheel.name}"
            )
            venv = scratch / "venv"
            cmd = [sys.executable, "-m", "venv", str(venv)]
            proc.check(cmd, doing="python -m venv", timeout=300, env=_env())
            python = venv / "bin" / "python"
            runtime = f"ai-dynamo-runtime=={the_pin.pinned.version}"
            pypi.pip_install_into(python, [runtime, *REQUIREMENTS])
            pypi.pip_install_into(python, ["--no-deps", str(wheel)])
        else:
            say(f"proof: pip install --no-deps {wheel.name} into {into}")
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
        say(
            f"proof: dynamo.common.backend.logprobs.__file__ = {module} "
            "(in site-packages; has new_token_ids)"
        )
        summaries = []
        for i, (test, marker) in enumerate(TIERS[tier]):
            work = scratch / f"work-{i}"
            work.mkdir()
            junit = reports / f"junit-{Path(test).stem}.xml" if reports else None
            summaries.append(run_tests(python, purelib, work, test, marker, junit))
            say(f"proof: {test} (-m '{marker}') from site-packages: {summaries[-1]}")
    return summaries


def replay_installed(stock: Path, patched: Path, scratch_root: Path, python: str) -> None:
    """Replay every named scenario on ``stock`` and ``patched`` (wheel files), each
    installed ``--no-deps`` into a folder of its own that the replay child puts first on
    its path; raises unless both ran their own package and no chunk diverged."""
    from dynpatch import verify  # the replay group (torch and the rest), only here
    from dynpatch.replay import runner as replay_runner
    from dynpatch.replay import scenarios

    names = list(scenarios.NAMED)
    job: dict[str, object] = {"scenarios": names, "scripts": []}
    results = {}
    with files.owned_dir(scratch_root, ".wheel-replay-") as tmp:
        for label, wheel in (("baseline", stock), ("patched", patched)):
            with err.status(f"installing {wheel.name} into a folder of its own ..."):
                pypi.pip_install_target(str(wheel), tmp / label)
            with err.status(f"replaying {len(names)} scenarios on the installed {label} ..."):
                tree = replay_runner.Tree(label, tmp / label)
                log = tmp / f"{label}.log"
                results[label] = replay_runner.run_child(tree, job, log, python=python)
    replay_runner.check_trees(results["baseline"], results["patched"])
    expectations = {s.name: s.expect for s in scenarios.named(names)}
    outcomes = verify.compare(results["baseline"], results["patched"], expectations)
    bad = [o for o in outcomes if not o.ok]
    where = results["patched"].get("modules", {}).get("dynamo.common.backend.logprobs", "?")
    say(f"replay: logprobs from the installed patched wheel: {where}")
    if bad:
        raise ToolkitError(
            f"the installed wheels diverge: {bad[0].name}: "
            f"{bad[0].divergence or '; '.join(bad[0].unmet)}"
        )
    if len(outcomes) != len(names):
        raise ToolkitError(f"the installed wheels diverge: {len(outcomes)} of {len(names)} ran")
    say(
        f"replay: {len(names)} named scenarios through the installed stock and patched "
        "wheels: 0 divergences"
    )
