"""The built wheel as installed: dynamo's own tests from site-packages, never a source tree
(:func:`run_proof`); the named scenarios on it and on the stock one (:func:`replay_installed`)."""

from __future__ import annotations

import os
import re
import sys
import zipfile
from pathlib import Path

from dynpatch.console import err
from dynpatch.errors import ToolkitError
from dynpatch.io import files, proc, pypi
from dynpatch.pin import Pin
from dynpatch.services.upstream_tests import interpreter, runner, tiers

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
    """``python``'s site-packages, its ``dynamo.common.backend.logprobs`` and ai-dynamo version."""
    cmd, doing = [str(python), "-c", _PROBE], "import the installed dynamo"
    result = proc.check(cmd, doing=doing, timeout=120, cwd=python.parent, env=_env())
    purelib, module, version = result.stdout.strip().splitlines()[-3:]
    return Path(purelib), Path(module), version


def run_tests(python: Path, purelib: Path, work: Path, test: str, marker: str, junit: Path) -> str:
    """dynamo's tests at ``test`` selected by ``marker``: the summary line, unless they fail."""
    files.write_atomic(work / "pytest.ini", INI)
    cmd = runner.pytest_command(python, [purelib / test], work / "pytest.ini", work)
    cmd += ["-q", "-m", marker, f"--junitxml={junit}"]
    doing = "pytest of the installed wheel"
    result = proc.run(cmd, doing=doing, timeout=900, cwd=work, env=_env(), merge_stderr=True)
    lines = [ln.strip() for ln in result.stdout.splitlines() if _SUMMARY.match(ln.strip())]
    summary = lines[-1].strip("= ") if lines else f"exit status {result.returncode}"
    if result.returncode != 0:
        raise ToolkitError(f"dynamo's {test} failed on the installed wheel: {summary}")
    return summary


def run_proof(
    pin: Pin, wheel: Path, scratch_root: Path, into: Path | None, tier: str, reports: Path
) -> list[str]:
    """Install ``wheel`` ``--no-deps`` (in a fresh venv with the pinned runtime, or ``into``),
    run the ``tier``'s tests from site-packages; the gpu tier needs ``into`` with TRT-LLM."""
    if tier == "gpu":
        if into is None:
            raise ToolkitError(
                "the gpu tier of the wheel's proof needs --install-into PYTHON: an "
                "interpreter with NVIDIA's tensorrt_llm (a fresh venv has none)"
            )
        if why := tiers.gpu_problem(interpreter.probe(str(into)), pin.pinned.version):
            raise ToolkitError(f"the gpu tier of the wheel's proof cannot run: {why}")
    reports.mkdir(parents=True, exist_ok=True)
    with files.owned_dir(scratch_root, ".wheel-proof-") as scratch:
        python = into or scratch / "venv" / "bin" / "python"
        if into is None:
            runtime = f"ai-dynamo-runtime=={pin.pinned.version}"
            said = [f"proof: fresh venv, {runtime}, pip install --no-deps {wheel.name}"]
            cmd = [sys.executable, "-m", "venv", str(scratch / "venv")]
            with err.status("proof: a fresh venv ..."):
                proc.check(cmd, doing="python -m venv", timeout=300, env=_env())
                pypi.pip_install_into(python, [runtime, *REQUIREMENTS])
        else:
            said = [f"proof: pip install --no-deps {wheel.name} into {into}"]
        pypi.pip_install_into(python, ["--no-deps", str(wheel)])
        purelib, module, version = installed_helper(python)
        if "+dynpatch." not in version:
            raise ToolkitError(f"the installed ai-dynamo is {version}, not the patched wheel")
        with zipfile.ZipFile(wheel) as built:  # the helper as the patched wheel holds it
            helper = built.read("dynamo/common/backend/logprobs.py").decode()
        if not module.is_relative_to(purelib) or module.read_text() != helper:
            raise ToolkitError(
                f"dynamo.common.backend.logprobs comes from {module}: not the patched wheel "
                f"in site-packages {purelib}"
            )
        shown = f"{module} (in site-packages; the patched wheel's)"
        said.append(f"proof: dynamo.common.backend.logprobs.__file__ = {shown}")
        for i, (test, marker) in enumerate(TIERS[tier]):
            (work := scratch / f"work-{i}").mkdir()
            junit = reports / f"junit-{Path(test).stem}.xml"
            with err.status(f"proof: {test} from site-packages ..."):
                summary = run_tests(python, purelib, work, test, marker, junit)
            said.append(f"proof: {test} (-m '{marker}') from site-packages: {summary}")
    return said


def replay_installed(
    stock: Path, patched: Path, scratch_root: Path, python: str, keyword: str
) -> list[str]:
    """Every named scenario on the ``stock`` and ``patched`` wheels, each installed in a folder
    of its own; raises unless each ran its own package and no chunk diverged."""
    # the replay group (torch and the rest), only here
    from dynpatch.replay import runner as replay_runner
    from dynpatch.replay import scenarios
    from dynpatch.services import replay_check as verify

    names = list(scenarios.NAMED)
    job: dict[str, object] = {"scenarios": names, "scripts": []}
    with files.owned_dir(scratch_root, ".wheel-replay-") as tmp:
        pair = (("baseline", stock), ("patched", patched))
        for label, wheel in pair:
            with err.status(f"installing {wheel.name} into a folder of its own ..."):
                pypi.pip_install_target(str(wheel), tmp / label)
        with err.status(f"replaying {len(names)} scenarios on the installed wheels ..."):
            trees = [replay_runner.Tree(label, tmp / label) for label, _ in pair]
            results = replay_runner.run_trees(trees, job, tmp / "logs", python=python)
    replay_runner.check_trees(results["baseline"], results["patched"], keyword)
    expectations = {s.name: s.expect for s in scenarios.named(names)}
    outcomes = verify.compare(results["baseline"], results["patched"], expectations)
    where = results["patched"].get("modules", {}).get("dynamo.common.backend.logprobs", "?")
    if bad := [o for o in outcomes if not o.ok]:
        why = bad[0].divergence or "; ".join(bad[0].unmet)
        raise ToolkitError(f"the installed wheels diverge: {bad[0].name}: {why}")
    if len(outcomes) != len(names):
        raise ToolkitError(f"the installed wheels diverge: {len(outcomes)} of {len(names)} ran")
    return [
        f"replay: logprobs from the installed patched wheel: {where}",
        f"replay: {len(names)} named scenarios through the installed stock and patched "
        "wheels: 0 divergences",
    ]
